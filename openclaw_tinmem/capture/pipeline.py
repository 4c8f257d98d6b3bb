"""What a finished turn becomes: its cleaned messages, the episode (what happened) and the
facts (what is true) taken from it, each linked to the episode and written through the
service's dedup. ``CapturePipeline`` is idempotent for one turn (ids derive from the turn);
the background worker (``worker.py``) runs it on every journalled turn.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from openclaw_tinmem.access import Identity
from openclaw_tinmem.capture.episodes import (
    Exchange,
    episode_draft,
    is_substantive,
    message_key,
    provenance,
)
from openclaw_tinmem.capture.extraction import Extractor
from openclaw_tinmem.capture.filters import CaptureFilter
from openclaw_tinmem.capture.journal import TurnRecord
from openclaw_tinmem.capture.sanitize import clean, has_content, is_noise
from openclaw_tinmem.capture.trust import mark_turn
from openclaw_tinmem.events import HookContext, Message
from openclaw_tinmem.models import Draft, Source, WriteOutcome

if TYPE_CHECKING:
    from openclaw_tinmem.service import MemoryService

logger = logging.getLogger("openclaw_tinmem")

CAPTURE_NAMESPACE = uuid.UUID("0b7f3c2e-5a4d-4c1b-9e8f-7d6a5b4c3d2e")


def memory_id_for(turn_id: str, index: int) -> str:
    """The id the ``index``-th memory of a turn always gets: replays overwrite, never duplicate."""
    return str(uuid.uuid5(CAPTURE_NAMESPACE, f"{turn_id}:{index}"))


def clean_messages(messages: Sequence[Message]) -> list[Message]:
    """User and assistant messages, cleaned; those left empty by cleaning are dropped."""
    spoken = (message for message in messages if message.role in ("user", "assistant"))
    cleaned = [message.with_content(clean(message.content)) for message in spoken]
    return [message for message in cleaned if message.content]


def turn_start(messages: Sequence[Message], kept: Callable[[Message], bool]) -> int | None:
    """Where the last turn begins: the first of the last run of user messages (those between
    the last reply and the end), among the messages ``kept`` says count; None without one."""
    users = (i for i in range(len(messages) - 1, -1, -1) if messages[i].role == "user")
    last_user = next((i for i in users if kept(messages[i])), None)
    if last_user is None:
        return None
    start = last_user
    for index in range(last_user - 1, -1, -1):
        message = messages[index]
        if kept(message):
            if message.role != "user":
                break
            start = index
    return start


def split_turn(
    messages: Sequence[Message], context_size: int
) -> tuple[list[Message], list[Message]]:
    """(the turn: the last run of user messages and what followed it, earlier context),
    both cleaned."""
    cleaned = clean_messages(messages)
    start = turn_start(cleaned, lambda message: True)
    if start is None:
        start = len(cleaned)
    return cleaned[start:], cleaned[max(0, start - context_size) : start]


def capture_window(messages: Sequence[Message], context_size: int) -> list[Message]:
    """The messages capture reads: the last turn, and the ``context_size`` user and
    assistant messages before it — exactly what ``split_turn`` keeps. ``agent_end`` journals
    only these, so its cost does not grow with the conversation."""

    def kept(message: Message) -> bool:
        return message.role in ("user", "assistant") and has_content(message.content)

    start = turn_start(messages, kept)
    if start is None:
        return list(messages)  # no user message: nothing will be extracted
    counted = 0
    while start > 0 and counted < context_size:
        start -= 1
        counted += kept(messages[start])
    return list(messages[start:])


@dataclass(frozen=True)
class CaptureReport:
    turn_id: str
    outcomes: list[WriteOutcome]
    used_fallback: bool = False


class CapturePipeline:
    """Processes one journalled turn with an extractor; idempotent for the same turn.

    A turn becomes its episode (the exchange itself, ``capture.episodes``) and the facts the
    extractor finds in it, each linked to the episode; all are written in one batch.
    """

    def __init__(
        self,
        service: MemoryService,
        extractor: Extractor,
        capture_filter: CaptureFilter | None = None,
    ) -> None:
        self.service = service
        self.extractor = extractor
        self.filter = capture_filter or CaptureFilter(service.settings)

    def process(self, record: TurnRecord) -> list[WriteOutcome]:
        ctx = record.ctx
        identity = Identity.from_context(ctx, via="capture")
        if not self.service.access(identity).can_write(record.scope):
            logger.warning(
                "%s may not write %s: turn %s is not captured",
                identity.describe(),
                record.scope,
                record.id,
            )
            self.filter.count("skipped_no_write_access")
            return []
        if not self.filter.is_conversation(ctx):
            return []
        if record.kind == "session":
            messages = clean_messages(record.messages)
            candidates = self.extractor.summarize_session(messages, record.created)
            keys = [message_key(message) for message in messages]
            summaries = [
                replace(
                    draft,
                    memory_id=memory_id_for(record.id, index),
                    created_at=record.created,
                    provenance=provenance(ctx, keys, ()),
                )
                for index, draft in enumerate(candidates)
            ]
            return self._write(record, mark_turn(record.messages, messages, summaries), identity)
        turn, context = split_turn(record.messages, self.service.settings.context_messages)
        turn = self.filter.messages(turn)
        if not any(m.role == "user" for m in turn) or not is_substantive(turn):
            return []  # nothing said worth keeping
        said = [m for m in turn if m.role == "user"]
        worth_facts = not all(is_noise(m.content) for m in said)
        found = self.extractor.extract(turn, context, record.created) if worth_facts else None
        exchange = Exchange.of(turn, ctx)
        episode = episode_draft(
            exchange,
            scope=record.scope,
            ctx=ctx,
            source=Source(record.source),
            context="",  # the exchange holds both sides: it is its own context
            fallback_time=record.created,
            levels=(found.episode_headline, found.episode_summary) if found else (None, None),
        )
        facts = found.facts if found else []
        linked = [_linked(fact, episode, ctx, index) for index, fact in enumerate(facts)]
        return self._write(record, mark_turn(record.messages, turn, [episode, *linked]), identity)

    def _write(
        self, record: TurnRecord, drafts: Sequence[Draft], identity: Identity
    ) -> list[WriteOutcome]:
        """The turn's drafts, filtered, written where the turn is captured."""
        captured = [
            # the writer redacts every text it keeps
            replace(draft, scope=record.scope, source=Source(record.source))
            for draft in self.filter.drafts(drafts)
            if draft.content.strip()
        ]
        return self.service.remember_many(captured, identity=identity)


def _linked(fact: Draft, episode: Draft, ctx: HookContext, index: int) -> Draft:
    """A fact of a turn with its id derived from its episode's, its time and its provenance:
    the messages it came from, naming the episode."""
    assert episode.memory_id is not None and episode.created_at is not None
    found = fact.provenance
    keys = found.message_ids or episode.provenance.message_ids
    return replace(
        fact,
        memory_id=str(uuid.uuid5(CAPTURE_NAMESPACE, f"{episode.memory_id}:{index}")),
        created_at=fact.created_at or episode.created_at,
        provenance=provenance(ctx, keys, found.speakers, episode_id=episode.memory_id),
    )
