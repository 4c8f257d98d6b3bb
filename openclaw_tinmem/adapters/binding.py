"""One agent's binding to tinmem, for frameworks that have their own hook and tool shapes.

A framework adapter does not re-implement memory: it turns its framework's events into the
openclaw hook calls the reference host makes (``before_prompt_build`` before the model,
``agent_end`` after the turn) and its tool calls into the registered tools' handlers, all
through one pluggy ``PluginManager``. So recall, capture, identity (the agent and user ids
travel in the ``HookContext``), time boxes and the degraded mode are the plugin's own, and
what automatic capture stores, the agent's tools find.

Nothing here raises into the framework: a failing hook means "no memory this turn"; a
failing tool call is a JSON error the model can read.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import Sequence
from typing import Any

from openclaw_tinmem.config import Settings
from openclaw_tinmem.errors import (
    InvalidArgumentError,
    TinmemError,
    describe_failure,
)
from openclaw_tinmem.events import (
    AgentEndEvent,
    HookContext,
    Message,
    PromptBuildEvent,
    PromptContext,
    SessionEvent,
)
from openclaw_tinmem.plugin.hookimpls import TinmemPlugin
from openclaw_tinmem.plugin.hookspecs import registered_tools
from openclaw_tinmem.plugin.host import join_contexts, load_plugins, registered

logger = logging.getLogger("openclaw_tinmem")


class MemoryBinding:
    """tinmem's hooks and tools for one agent (and user) of a framework.

    ``plugin``: a configured ``TinmemPlugin`` to share between agents (one store, one capture
    worker); by default one is made from ``settings`` (or the usual config file and
    ``TINMEM_*`` variables). ``close()`` flushes captures and releases a plugin made here.
    ``user_id``: the user the agent talks with, or None for none (an agent on its own, which
    sees what all its users said); a blank id is refused (``InvalidArgumentError``).
    """

    def __init__(
        self,
        plugin: TinmemPlugin | None = None,
        *,
        settings: Settings | None = None,
        agent_id: str = "main",
        user_id: str | None = None,
        session_id: str | None = None,
        channel: str | None = None,
    ) -> None:
        if user_id is not None and (not isinstance(user_id, str) or not user_id.strip()):
            raise InvalidArgumentError(
                f"user_id must be text naming a user, or None, not {user_id!r}: a call with no "
                "user sees what every user of the agent said, so a blank id is not taken for one",
                field="user_id",
            )
        self._owns_plugin = plugin is None
        self.plugin = plugin or TinmemPlugin(settings)
        self.manager = load_plugins([self.plugin], entry_points=False)
        self.tools = registered_tools(self.manager)
        session = session_id or str(uuid.uuid4())
        self.context = HookContext(
            agent_id=agent_id,
            session_id=session,
            session_key=f"{agent_id}:{session}",
            user_id=user_id,
            channel=channel,
        )
        self._started = False

    def _turn_context(self) -> HookContext:
        return self.context.for_new_run()

    def _start(self) -> None:
        if not self._started:
            self._started = True
            event = SessionEvent(self.context.session_id)
            self._hook("session_start", event=event, ctx=self.context)

    def _hook(self, name: str, **arguments: Any) -> list[Any]:
        try:
            return list(getattr(self.manager.hook, name)(**arguments))
        except Exception:  # the plugin degrades itself; this is the last line of defence
            logger.exception("tinmem hook %s failed; the turn goes on without memory", name)
            return []

    # ----------------------------------------------------------------- the turn

    def prompt_context(self, prompt: str, history: Sequence[Message] = ()) -> PromptContext:
        """What to add to the prompt for ``prompt``: the ``<agent-experience>`` block as
        system context or as text before the user's message (the plugin's setting)."""
        self._start()
        event = PromptBuildEvent(prompt=prompt, messages=tuple(history))
        return join_contexts(
            self._hook("before_prompt_build", event=event, ctx=self._turn_context())
        )

    async def prompt_context_async(
        self, prompt: str, history: Sequence[Message] = ()
    ) -> PromptContext:
        """``prompt_context`` without blocking the event loop."""
        return await asyncio.to_thread(self.prompt_context, prompt, history)

    def turn_ended(
        self,
        messages: Sequence[Message | dict[str, Any]],
        *,
        success: bool = True,
        error: str | None = None,
    ) -> None:
        """Hand a finished turn (its messages, oldest first: ``Message`` objects or dicts in
        the OpenAI chat format) to capture; returns at once."""
        self._start()
        turn = tuple(
            Message.from_dict(message) if isinstance(message, dict) else message
            for message in messages
            if not isinstance(message, dict) or message.get("role")
        )
        event = AgentEndEvent(messages=turn, success=success, error=error)
        self._hook("agent_end", event=event, ctx=self._turn_context())

    # ----------------------------------------------------------------- tools

    def call_tool(self, name: str, arguments: dict[str, Any] | str) -> str:
        """Run a tinmem tool as this agent; returns the JSON text the model reads (an error
        as the tools give theirs: ``{"error": {"type", "message", "field"}}``)."""
        try:
            tool = registered(self.tools, name)
            if isinstance(arguments, str):
                try:
                    arguments = json.loads(arguments or "{}")
                except ValueError as error:
                    raise InvalidArgumentError(
                        f"the arguments are not JSON: {error}", field="arguments"
                    ) from None
            result = tool.handler(arguments, self._turn_context())
            return json.dumps(result.data, ensure_ascii=False, default=str)
        except TinmemError as error:
            return json.dumps({"error": error.to_dict()}, ensure_ascii=False)
        except Exception as error:  # a tool call never raises into the framework
            logger.exception("tinmem tool %s failed", name)
            failure = {"type": "internal_error", "message": describe_failure(error)}
            return json.dumps({"error": failure}, ensure_ascii=False)

    async def call_tool_async(self, name: str, arguments: dict[str, Any] | str) -> str:
        return await asyncio.to_thread(self.call_tool, name, arguments)

    # ----------------------------------------------------------------- life cycle

    def flush(self) -> bool:
        """Wait (bounded by ``flush_timeout_seconds``) until captured turns are stored."""
        return self.plugin.flush()

    def close(self) -> None:
        """End the session (flushing captures); release the plugin if this binding made it."""
        if self._started:
            event = SessionEvent(self.context.session_id, reason="end")
            self._hook("session_end", event=event, ctx=self.context)
        if self._owns_plugin:
            self.plugin.close()
