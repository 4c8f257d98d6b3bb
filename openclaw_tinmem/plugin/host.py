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
from datetime import UTC, datetime
from typing import Any

import pluggy

from openclaw_tinmem.errors import UnknownToolError
from openclaw_tinmem.events import (
    AgentEndEvent,
    HookContext,
    Message,
    PromptBuildEvent,
    PromptContext,
    Role,
    SessionEvent,
    ToolRegistration,
)
from openclaw_tinmem.plugin.hookspecs import (
    ENTRY_POINT_GROUP,
    make_plugin_manager,
    registered_tools,
)

# The model answers with the reply's text, or with a whole Message (who said it, when, its id)
Model = Callable[[Sequence[Message], Sequence[ToolRegistration]], str | Message]
AsyncModel = Callable[[Sequence[Message], Sequence[ToolRegistration]], Awaitable[str | Message]]


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
    shown = tuple(memory_id for result in results if result for memory_id in result.memory_ids)
    return PromptContext("\n\n".join(system) or None, "\n\n".join(context) or None, shown)


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
    last_injected_ids: tuple[str, ...] = ()  # the memories the last injected context showed


def new_session(agent_id: str, user_id: str | None, channel: str | None = None) -> Session:
    session_id = str(uuid.uuid4())
    key = f"{agent_id}:{session_id}"
    return Session(
        HookContext(
            agent_id=agent_id,
            session_id=session_id,
            session_key=key,
            user_id=user_id,
            channel=channel,
        )
    )


def said(role: Role, said: str | Message) -> Message:
    """A message as the host keeps it: given whole, or its text dated now with a new id."""
    if isinstance(said, Message):
        return said
    return Message(role, said, timestamp=datetime.now(UTC), id=str(uuid.uuid4()))


@dataclass(frozen=True)
class TurnStart:
    """A turn before the model is called: its context, the prompt event, the user's message
    and the turn's start time."""

    ctx: HookContext
    event: PromptBuildEvent
    started: float
    message: Message

    @classmethod
    def begin(cls, session: Session, user_text: str | Message) -> TurnStart:
        ctx = session.ctx.for_new_run()
        message = said("user", user_text)
        event = PromptBuildEvent(prompt=message.content, messages=tuple(session.history))
        return cls(ctx, event, time.perf_counter(), message)

    def messages(self, session: Session, results: Sequence[PromptContext | None]) -> list[Message]:
        """What the model sees; records the injected context on the session."""
        added = join_contexts(results)
        session.last_injected = added.prepend_context
        session.last_injected_ids = added.memory_ids
        return build_prompt(session.history, self.event.prompt, added)

    def end(self, session: Session, reply: str | Message) -> AgentEndEvent:
        """The turn added to the session's history, as the ``agent_end`` event."""
        session.history += [self.message, said("assistant", reply)]
        return AgentEndEvent(
            messages=tuple(session.history),
            run_id=self.ctx.run_id,
            duration_ms=(time.perf_counter() - self.started) * 1000,
        )


def end_event(session: Session) -> SessionEvent:
    return SessionEvent(session.ctx.session_id, tuple(session.history), reason="end")


class Host:
    """A synchronous agent loop around the openclaw hooks."""

    def __init__(self, manager: pluggy.PluginManager, model: Model) -> None:
        self.manager = manager
        self.model = model
        self.tools = registered_tools(manager)

    def _call(self, hook: Callable[..., list[Any]], **kwargs: Any) -> list[Any]:
        """Call a hook; a hookimpl's awaitable result is awaited on a private event loop."""
        return [asyncio.run(_awaited(r)) if inspect.isawaitable(r) else r for r in hook(**kwargs)]

    def start_session(
        self, *, agent_id: str = "main", user_id: str | None = None, channel: str | None = None
    ) -> Session:
        session = new_session(agent_id, user_id, channel)
        event = SessionEvent(session.ctx.session_id)
        self._call(self.manager.hook.session_start, event=event, ctx=session.ctx)
        return session

    def turn(self, session: Session, user_text: str | Message) -> str:
        """One turn: recall, the model, capture. ``user_text`` may be a whole ``Message``
        (its sender's name, time and id kept); returns the reply's text."""
        turn = TurnStart.begin(session, user_text)
        hook = self.manager.hook
        results = self._call(hook.before_prompt_build, event=turn.event, ctx=turn.ctx)
        reply = self.model(turn.messages(session, results), list(self.tools.values()))
        self._call(hook.agent_end, event=turn.end(session, reply), ctx=turn.ctx)
        return reply.content if isinstance(reply, Message) else reply

    def call_tool(
        self, name: str, arguments: dict[str, Any], session: Session | None = None
    ) -> Any:
        """Run a registered tool as the session's agent would (``main`` without a session)."""
        return registered(self.tools, name).handler(arguments, session.ctx if session else None)

    def end_session(self, session: Session) -> None:
        self._call(self.manager.hook.session_end, event=end_event(session), ctx=session.ctx)


def registered(tools: dict[str, ToolRegistration], name: str) -> ToolRegistration:
    """The tool called ``name``; an error naming the tools there are when there is none."""
    if name not in tools:
        raise UnknownToolError.naming(name, tools, field="name")
    return tools[name]


class AsyncHost:
    """The same loop for asyncio: hooks run in a worker thread, awaitables are awaited."""

    def __init__(self, manager: pluggy.PluginManager, model: AsyncModel) -> None:
        self.manager = manager
        self.model = model
        self.tools = registered_tools(manager)

    async def _call(self, hook: Callable[..., list[Any]], **kwargs: Any) -> list[Any]:
        results = await asyncio.to_thread(hook, **kwargs)
        return [await result if inspect.isawaitable(result) else result for result in results]

    async def start_session(
        self, *, agent_id: str = "main", user_id: str | None = None, channel: str | None = None
    ) -> Session:
        session = new_session(agent_id, user_id, channel)
        event = SessionEvent(session.ctx.session_id)
        await self._call(self.manager.hook.session_start, event=event, ctx=session.ctx)
        return session

    async def turn(self, session: Session, user_text: str | Message) -> str:
        turn = TurnStart.begin(session, user_text)
        hook = self.manager.hook
        results = await self._call(hook.before_prompt_build, event=turn.event, ctx=turn.ctx)
        reply = await self.model(turn.messages(session, results), list(self.tools.values()))
        await self._call(hook.agent_end, event=turn.end(session, reply), ctx=turn.ctx)
        return reply.content if isinstance(reply, Message) else reply

    async def call_tool(
        self, name: str, arguments: dict[str, Any], session: Session | None = None
    ) -> Any:
        tool = registered(self.tools, name)
        ctx = session.ctx if session else None
        if tool.async_handler is not None:
            return await tool.async_handler(arguments, ctx)
        return await asyncio.to_thread(tool.handler, arguments, ctx)

    async def end_session(self, session: Session) -> None:
        await self._call(self.manager.hook.session_end, event=end_event(session), ctx=session.ctx)


async def _awaited(result: Awaitable[Any]) -> Any:
    return await result
