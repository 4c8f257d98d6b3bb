"""A reference host: the integration recipe for any Python agent framework.

It loads plugins from the ``openclaw.plugins`` entry point group into a pluggy
``PluginManager("openclaw")``, calls the hooks around each turn and routes tool calls to the
registered tools. ``Host`` is synchronous; ``AsyncHost`` runs the same hooks without ever
blocking its event loop (hooks run in a worker thread; a hook that returns an awaitable is
awaited).

The "model" is any callable taking the message list and the tool list and returning the
assistant's reply, so the recipe works with any LLM client.
"""

from __future__ import annotations

import asyncio
import inspect
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pluggy

from openclaw_tinmem.events import (
    AgentEndEvent,
    HookContext,
    Message,
    PromptBuildEvent,
    PromptContext,
    SessionEvent,
    ToolRegistration,
)  # fmt: skip
from openclaw_tinmem.hookspecs import ENTRY_POINT_GROUP, make_plugin_manager

Model = Callable[[Sequence[Message], Sequence[ToolRegistration]], str]
AsyncModel = Callable[[Sequence[Message], Sequence[ToolRegistration]], Awaitable[str]]


def load_plugins(
    plugins: Sequence[object] = (), *, entry_points: bool = True
) -> pluggy.PluginManager:
    """A PluginManager with the openclaw hookspecs, entry-point plugins and ``plugins``."""
    manager = make_plugin_manager()
    if entry_points:
        manager.load_setuptools_entrypoints(ENTRY_POINT_GROUP)
    for plugin in plugins:
        manager.register(plugin)
    manager.check_pending()
    return manager


def join_contexts(results: Sequence[PromptContext | None]) -> PromptContext:
    system = [
        result.prepend_system_context
        for result in results
        if result and result.prepend_system_context
    ]
    context = [result.prepend_context for result in results if result and result.prepend_context]
    return PromptContext("\n\n".join(system) or None, "\n\n".join(context) or None)


def build_prompt(history: Sequence[Message], user_text: str, added: PromptContext) -> list[Message]:
    """The messages the model sees: added system context, history, added context + user text."""
    messages = list(history)
    if added.prepend_system_context:
        messages.insert(0, Message("system", added.prepend_system_context))
    user = f"{added.prepend_context}\n\n{user_text}" if added.prepend_context else user_text
    return [*messages, Message("user", user)]


@dataclass
class Session:
    """One conversation: its ids and visible history."""

    ctx: HookContext
    history: list[Message] = field(default_factory=list)
    last_injected: str | None = None


class Host:
    """A synchronous agent loop around the openclaw hooks."""

    def __init__(self, manager: pluggy.PluginManager, model: Model) -> None:
        self.manager = manager
        self.model = model
        self.tools: dict[str, ToolRegistration] = {}
        self.manager.hook.register_tools(register=self._register)

    def _register(self, tool: ToolRegistration) -> None:
        self.tools[tool.name] = tool

    def _run(self, result: Any) -> Any:
        """A hook result, awaited on a private event loop when a hookimpl returned one."""
        if not inspect.isawaitable(result):
            return result

        async def wait() -> Any:
            return await result

        return asyncio.run(wait())

    def start_session(self, *, agent_id: str = "main", user_id: str | None = None,
                      channel: str | None = None) -> Session:  # fmt: skip
        session_id = str(uuid.uuid4())
        key = f"{agent_id}:{session_id}"
        ctx = HookContext(agent_id=agent_id, session_id=session_id, session_key=key,
                          user_id=user_id, channel=channel)  # fmt: skip
        for result in self.manager.hook.session_start(event=SessionEvent(session_id), ctx=ctx):
            self._run(result)
        return Session(ctx)

    def turn(self, session: Session, user_text: str) -> str:
        run_id = str(uuid.uuid4())
        ctx = HookContext(**{**session.ctx.to_dict(), "run_id": run_id})
        event = PromptBuildEvent(prompt=user_text, messages=tuple(session.history))
        results = [
            self._run(r) for r in self.manager.hook.before_prompt_build(event=event, ctx=ctx)
        ]
        added = join_contexts(results)
        session.last_injected = added.prepend_context
        started = time.perf_counter()
        reply = self.model(
            build_prompt(session.history, user_text, added), list(self.tools.values())
        )
        session.history += [Message("user", user_text), Message("assistant", reply)]
        end = AgentEndEvent(messages=tuple(session.history), run_id=run_id,
                            duration_ms=(time.perf_counter() - started) * 1000)  # fmt: skip
        for result in self.manager.hook.agent_end(event=end, ctx=ctx):
            self._run(result)
        return reply

    def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        return self.tools[name].handler(arguments)

    def end_session(self, session: Session) -> None:
        event = SessionEvent(session.ctx.session_id, tuple(session.history), reason="end")
        for result in self.manager.hook.session_end(event=event, ctx=session.ctx):
            self._run(result)


class AsyncHost:
    """The same loop for asyncio: hooks run in a worker thread, awaitables are awaited."""

    def __init__(self, manager: pluggy.PluginManager, model: AsyncModel) -> None:
        self.manager = manager
        self.model = model
        self.tools: dict[str, ToolRegistration] = {}
        self.manager.hook.register_tools(
            register=lambda tool: self.tools.__setitem__(tool.name, tool)
        )

    async def _call(self, hook: Callable[..., list[Any]], **kwargs: Any) -> list[Any]:
        results = await asyncio.to_thread(hook, **kwargs)
        return [await result if inspect.isawaitable(result) else result for result in results]

    async def start_session(self, *, agent_id: str = "main", user_id: str | None = None) -> Session:
        session_id = str(uuid.uuid4())
        ctx = HookContext(agent_id=agent_id, session_id=session_id, user_id=user_id,
                          session_key=f"{agent_id}:{session_id}")  # fmt: skip
        await self._call(self.manager.hook.session_start, event=SessionEvent(session_id), ctx=ctx)
        return Session(ctx)

    async def turn(self, session: Session, user_text: str) -> str:
        run_id = str(uuid.uuid4())
        ctx = HookContext(**{**session.ctx.to_dict(), "run_id": run_id})
        event = PromptBuildEvent(prompt=user_text, messages=tuple(session.history))
        added = join_contexts(
            await self._call(self.manager.hook.before_prompt_build, event=event, ctx=ctx)
        )
        session.last_injected = added.prepend_context
        started = time.perf_counter()
        reply = await self.model(
            build_prompt(session.history, user_text, added), list(self.tools.values())
        )
        session.history += [Message("user", user_text), Message("assistant", reply)]
        end = AgentEndEvent(messages=tuple(session.history), run_id=run_id,
                            duration_ms=(time.perf_counter() - started) * 1000)  # fmt: skip
        await self._call(self.manager.hook.agent_end, event=end, ctx=ctx)
        return reply

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        tool = self.tools[name]
        if tool.async_handler is not None:
            return await tool.async_handler(arguments)
        return await asyncio.to_thread(tool.handler, arguments)

    async def end_session(self, session: Session) -> None:
        event = SessionEvent(session.ctx.session_id, tuple(session.history), reason="end")
        await self._call(self.manager.hook.session_end, event=event, ctx=session.ctx)
