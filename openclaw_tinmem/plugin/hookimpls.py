"""The openclaw-tinmem plugin: automatic recall before each turn, capture after it, and tools.

Registered through the ``openclaw.plugins`` entry point as the module-level ``plugin``. It
does no work at import time: the service, journal and worker are built on first use
(``plugin/parts.py``), from ``load_settings()`` unless settings or a service are given.

Every hook swallows its own failures: the host sees "no memory this turn", never an exception.
"""

from __future__ import annotations

import fnmatch
import logging
from collections.abc import Callable, Sequence
from concurrent.futures import TimeoutError as FutureTimeout

from openclaw_tinmem.access import Identity, resolve_scope_setting
from openclaw_tinmem.capture.journal import Journal, TurnRecord
from openclaw_tinmem.capture.pipeline import capture_window
from openclaw_tinmem.events import (
    AgentEndEvent,
    HookContext,
    Message,
    PromptBuildEvent,
    PromptContext,
    SessionEvent,
    ToolRegistration,
)
from openclaw_tinmem.models import INSTRUCTION_TAG, Hit
from openclaw_tinmem.plugin.hookspecs import hookimpl
from openclaw_tinmem.plugin.lazy_tools import LazyToolbox
from openclaw_tinmem.plugin.parts import PluginParts, fallback_journal_path
from openclaw_tinmem.process.urgency import urgent
from openclaw_tinmem.recall.exposure import InjectionPolicy
from openclaw_tinmem.recall.injection import render_block
from openclaw_tinmem.recall.instructions import instructions_first
from openclaw_tinmem.recall.scoring import InjectionFloors, worth_injecting
from openclaw_tinmem.redaction import redact_together
from openclaw_tinmem.tools.definitions import tool_definitions

logger = logging.getLogger("openclaw_tinmem")
SESSION_MESSAGES_KEPT = 60  # the newest messages a session summary is written from


def redacted(messages: Sequence[Message]) -> list[Message]:
    """The messages with their secrets replaced, as the journal keeps them: a secret found in
    one message is replaced in all of them (``redaction.redact_together``)."""
    texts = redact_together([message.content for message in messages])
    return [message.with_content(text) for message, text in zip(messages, texts, strict=True)]


def excluded(agent_id: str, patterns: list[str]) -> bool:
    """True when the agent id matches one of the patterns (``fnmatch``, case-sensitive)."""
    return any(fnmatch.fnmatchcase(agent_id, pattern) for pattern in patterns)


class TinmemPlugin(PluginParts):
    """Hook implementations; each is a few lines that call the service."""

    # ----------------------------------------------------------------- recall

    def recall_for_prompt(self, prompt: str, ctx: HookContext) -> list[Hit]:
        """What automatic recall injects: the same recall ``memory_recall`` runs for this
        agent (every scope it may read) without what this session may not be shown
        (``recall.exposure``: untrusted, private, another user's), kept to what is worth
        injecting: close to the
        message in meaning, or relevant to it by the cross-encoder, and about what it names
        (``scoring.worth_injecting``); first, the user's standing instructions for requests
        such as this one (``recall.instructions``)."""
        settings = self.settings
        query = prompt.strip()[: settings.max_query_characters]
        identity = Identity.from_context(ctx)
        allows = InjectionPolicy(settings, ctx).allows
        hits = self.service.recall(
            query,
            identity=identity,
            limit=settings.injection_limit,
            min_similarity=settings.injection_min_similarity,
            min_relevance=settings.injection_min_relevance if settings.rerank else None,
            allows=allows,
            min_neighbourhood=settings.injection_min_neighbourhood if settings.rerank else None,
        )
        floors = InjectionFloors.from_settings(settings) if settings.rerank else None
        instructions = self.service.standing_instructions(query, identity=identity, allows=allows)
        # an instruction comes by its condition alone: its words are about other requests
        found = [
            hit
            for hit in worth_injecting(query, hits, floors)
            if INSTRUCTION_TAG not in hit.memory.tags
        ]
        return instructions_first(instructions, found, settings.injection_limit)

    @hookimpl
    def before_prompt_build(
        self, event: PromptBuildEvent, ctx: HookContext
    ) -> PromptContext | None:
        try:
            if self.degraded():
                return None
            settings = self.settings
            if not settings.auto_recall or excluded(ctx.agent_id, settings.recall_exclude_agents):
                return None
            future = self.recall_pool.submit(self.recall_for_prompt, event.prompt, ctx)
            hits = future.result(timeout=self.settings.recall_timeout_seconds)
            block = render_block(
                hits,
                token_budget=self.settings.injection_token_budget,
                detailed_items=self.settings.injection_detail_items,
                visible_context=[message.content for message in event.messages],
                query=event.prompt.strip()[: settings.max_query_characters],
            )
        except FutureTimeout:
            logger.warning(
                "memory recall exceeded %gs; no memory this turn",
                self.settings.recall_timeout_seconds,
            )
            return None
        except Exception:
            logger.exception("memory recall failed; no memory this turn")
            return None
        if block is None:
            return None
        return PromptContext(prepend_context=block.text, memory_ids=block.memory_ids)

    # ----------------------------------------------------------------- capture

    @hookimpl
    def agent_end(self, event: AgentEndEvent, ctx: HookContext) -> None:
        try:
            if self.degraded():
                self._journal_raw(event, ctx)
                return
            settings = self.settings
            if not settings.auto_capture or excluded(ctx.agent_id, settings.capture_exclude_agents):
                return
            record = TurnRecord(
                # only what capture reads, and no secret rests in the journal
                messages=redacted(capture_window(event.messages, settings.context_messages)),
                scope=self.capture_scope(ctx),
                ctx=ctx,
                created_at=event.ended_at.isoformat(),
            )
            try:
                with urgent():  # the worker hands back the GIL sooner after each system call
                    journalled = self.journal_turn(record)  # durable before we return
            except OSError:
                logger.exception("could not journal the turn; capturing it from memory")
                for kept in [*self.take_unjournalled(), record]:
                    self.worker.hold(kept)
                return
            if journalled:
                self.start_worker()
        except Exception:
            logger.exception("could not journal the turn for memory capture")

    def _journal_raw(self, event: AgentEndEvent, ctx: HookContext) -> None:
        """Keep the turn for later while the configuration is broken (capture_scope unknown:
        the agent's own scope, the default)."""
        Journal(fallback_journal_path()).write(
            TurnRecord(
                messages=redacted(event.messages),
                scope=resolve_scope_setting("agent", Identity.from_context(ctx)),
                ctx=ctx,
                created_at=event.ended_at.isoformat(),
            )
        )

    def capture_scope(self, ctx: HookContext) -> str:
        """Where this agent's turns are captured (``capture_scope``)."""
        return resolve_scope_setting(self.settings.capture_scope, Identity.from_context(ctx))

    def flush(self) -> bool:
        """Wait (bounded) until the journalled turns that are due are processed (a turn that
        waits for a retry stays journalled): ``flush_timeout_seconds`` for the worker to be
        built, if it is not, and as long again for the turns."""
        try:
            timeout = self.settings.flush_timeout_seconds
            if self._worker is None:
                self.start_worker()
                self.wait_for_start()
                if self._worker is None:
                    return False
            return self.worker.flush(timeout)
        except Exception:
            logger.exception("memory capture flush failed")
            return False

    @hookimpl
    def session_start(self, event: SessionEvent, ctx: HookContext) -> None:
        try:
            if self.degraded():
                return
            self.start_worker()
        except Exception:
            logger.exception("could not start the memory capture worker")

    def close_session(self, event: SessionEvent, ctx: HookContext) -> None:
        """Journal a session summary (with an LLM), then wait for pending captures (bounded)."""
        try:
            if self.degraded():
                return
            self._journal_session_summary(event, ctx)
        except Exception:  # a malformed event included: never an exception into the host
            logger.exception("could not journal the session summary")
        self.flush()

    def _journal_session_summary(self, event: SessionEvent, ctx: HookContext) -> None:
        settings = self.settings
        user_messages = sum(1 for message in event.messages if message.role == "user")
        if (
            settings.llm_configured()
            and settings.auto_capture
            and not excluded(ctx.agent_id, settings.capture_exclude_agents)
            and user_messages >= settings.session_summary_min_messages
        ):
            spoken = [m for m in event.messages if m.role in ("user", "assistant")]
            recent = spoken[-SESSION_MESSAGES_KEPT:]  # a summary is of what was said
            self.journal.write(
                TurnRecord(
                    messages=redacted(recent),
                    scope=self.capture_scope(ctx),
                    ctx=ctx,
                    kind="session",
                )
            )

    @hookimpl
    def session_end(self, event: SessionEvent, ctx: HookContext) -> None:
        self.close_session(event, ctx)

    @hookimpl
    def before_reset(self, event: SessionEvent, ctx: HookContext) -> None:
        self.close_session(event, ctx)

    @hookimpl
    def before_compaction(self, event: SessionEvent, ctx: HookContext) -> None:
        self.close_session(event, ctx)

    # ----------------------------------------------------------------- tools

    @hookimpl
    def register_tools(self, register: Callable[[ToolRegistration], None]) -> None:
        toolbox = LazyToolbox(lambda: self.service)
        degraded = self.degraded()
        tool_sets = "both" if degraded else self.settings.tool_sets
        for spec in tool_definitions(tool_sets, not degraded and self.settings.history_tool):
            register(
                ToolRegistration(
                    name=spec.name,
                    description=spec.description,
                    parameters=spec.parameters(),
                    handler=toolbox.handler(spec.name),
                    async_handler=toolbox.async_handler(spec.name),
                )
            )


plugin = TinmemPlugin()
