"""Backfill: past conversations put through the capture pipeline, as if they happened now.

``tinmem ingest`` reads transcripts (``capture.transcripts``), cuts each session into turns
where a live host would have called ``agent_end`` — at every run of user messages — and
hands each turn, with the messages before it as context, to the same ``CapturePipeline``
the background worker uses: the same filters, extractor, dedup, scopes and redaction. Each
memory keeps the time its words were said and the source ``ingest``.

Ingesting is idempotent: an episode's id derives from its scope and its messages' roles,
times and words, and a fact's from its episode's, so a conversation ingested twice — or
ingested after it was captured live — creates nothing new.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from openclaw_tinmem.access import Identity, resolve_scope_setting
from openclaw_tinmem.capture.episodes import message_identity
from openclaw_tinmem.capture.extraction import RuleExtractor, default_extractor
from openclaw_tinmem.capture.filters import CaptureCounts, CaptureFilter
from openclaw_tinmem.capture.journal import TurnRecord
from openclaw_tinmem.capture.pipeline import CapturePipeline
from openclaw_tinmem.capture.transcripts import Transcript
from openclaw_tinmem.config import Settings
from openclaw_tinmem.errors import LLMError
from openclaw_tinmem.events import Message
from openclaw_tinmem.models import Action, utc_now

if TYPE_CHECKING:
    from openclaw_tinmem.service import MemoryService

logger = logging.getLogger("openclaw_tinmem")

INGEST_NAMESPACE = uuid.UUID("9b7e2d41-5c3a-4f8e-a1d6-2e4c8b0f7a39")
INGEST_SOURCE = "ingest"


@dataclass
class IngestReport:
    """What an ingest kept and passed over."""

    sessions: int = 0
    turns: int = 0
    created: int = 0
    merged: int = 0
    unchanged: int = 0  # already stored: ingested or captured before
    turns_without_memory: int = 0  # small talk, filtered, or not a conversation
    llm_fallbacks: int = 0  # turns the LLM failed on, captured by the rules instead

    def to_dict(self) -> dict[str, int]:
        return {
            "sessions": self.sessions,
            "turns": self.turns,
            "created": self.created,
            "merged": self.merged,
            "unchanged": self.unchanged,
            "turns_without_memory": self.turns_without_memory,
            "llm_fallbacks": self.llm_fallbacks,
        }


def turns_of(transcript: Transcript, settings: Settings) -> list[TurnRecord]:
    """A session's turns as the journal would hold them: each run of user messages and the
    replies after it (tool results among them), with up to ``context_messages`` user and
    assistant messages before it, dated by its last message (else now)."""
    scope = resolve_scope_setting(settings.capture_scope, Identity.from_context(transcript.ctx))
    messages = transcript.messages
    starts = [
        index
        for index, message in enumerate(messages)
        if message.role == "user" and (index == 0 or messages[index - 1].role != "user")
    ]
    records = []
    for position, start in enumerate(starts):
        end = starts[position + 1] if position + 1 < len(starts) else len(messages)
        # context: what was said before (an earlier turn's tool output is not this turn's)
        said = [message for message in messages[:start] if message.role != "tool"]
        context = said[len(said) - settings.context_messages :] if settings.context_messages else []
        records.append(
            TurnRecord(
                messages=[*context, *messages[start:end]],
                scope=scope,
                ctx=transcript.ctx,
                id=_turn_id(scope, messages[start:end]),
                created_at=(_last_time(messages[start:end]) or utc_now()).isoformat(),
                source=INGEST_SOURCE,
            )
        )
    return records


def _turn_id(scope: str, turn: Sequence[Message]) -> str:
    # what was said makes the turn; tool output read along the way does not change its id
    identities = "\n".join(message_identity(m) for m in turn if m.role != "tool")
    return str(uuid.uuid5(INGEST_NAMESPACE, f"{scope}\n{identities}"))


def _last_time(turn: Sequence[Message]) -> datetime | None:
    return next((m.timestamp for m in reversed(turn) if m.timestamp is not None), None)


def ingest(
    transcripts: Sequence[Transcript],
    settings: Settings,
    pipeline: CapturePipeline,
    fallback: CapturePipeline | None = None,
    progress: Callable[[int], None] = lambda _: None,
    counted: Callable[[int], None] = lambda _: None,
) -> IngestReport:
    """Put every turn of ``transcripts`` through ``pipeline`` (``fallback`` — the no-LLM
    rules — takes a turn the LLM fails on); ``counted`` is told how many turns there are
    before the first is processed, ``progress`` of each turn done."""
    report = IngestReport(sessions=len(transcripts))
    sessions = [(transcript, turns_of(transcript, settings)) for transcript in transcripts]
    counted(sum(len(turns) for _, turns in sessions))
    for transcript, turns in sessions:
        for record in turns:
            report.turns += 1
            try:
                outcomes = pipeline.process(record)
            except LLMError as error:
                if fallback is None:
                    raise
                logger.warning("turn of %s: %s; captured by the rules", transcript.origin, error)
                report.llm_fallbacks += 1
                outcomes = fallback.process(record)
            if not outcomes:
                report.turns_without_memory += 1
            for outcome in outcomes:
                if outcome.action is Action.CREATED:
                    report.created += 1
                elif outcome.action is Action.MERGED:
                    report.merged += 1
                else:
                    report.unchanged += 1
            progress(1)
    return report


def pipelines(
    service: MemoryService, settings: Settings
) -> tuple[CapturePipeline, CapturePipeline]:
    """(the capture pipeline with the configured extractor, the no-LLM rules' pipeline), with
    what the filters leave out counted beside the journal, as live capture counts it."""
    capture_filter = CaptureFilter(settings, CaptureCounts(settings.resolved_journal_path()))
    return (
        CapturePipeline(service, default_extractor(settings), capture_filter),
        CapturePipeline(service, RuleExtractor(), capture_filter),
    )
