"""Folding: a session's expired episodes kept as one memory of what happened in it.

Episode retention (``retention.py``) bounds the store by forgetting the exchanges automatic
capture kept once they are older than ``episode_retention_days``. Forgotten alone, what
happened in an old conversation would be gone from recall (the facts taken from it stay, the
history keeps the words). Folded first, each session leaves one ``events`` memory tagged
``session``: an exchange a line, dated, in the order said — each line the episode's summary
(the user's words and the start of the reply) — with the session's speakers and the ids of
the messages it was taken from (the first ``MAX_MESSAGE_IDS``). Its importance is below an
episode's, so a live exchange that answers as well comes first.

A session is the episodes' ``session_key`` (else ``session_id``; else the day they were
said) within one scope, never across scopes. The folded memory's id derives from the scope
and the session, so episodes of one session that expire in different upkeep runs end up in
the same memory, and folding again after an interrupted run (the folded memory written, the
episodes not yet forgotten) adds nothing twice.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Protocol

from openclaw_tinmem.access import Identity
from openclaw_tinmem.models import (
    MAX_CONTENT_CHARACTERS,
    SESSION_TAG,
    Category,
    Memory,
    Provenance,
    content_hash,
)
from openclaw_tinmem.store.history import HistoryAction
from openclaw_tinmem.store.table import MemoryStore

SESSION_IMPORTANCE = 0.3  # below an episode's 0.4: older, so kept at a lower weight
SESSION_NAMESPACE = uuid.UUID("8f4e2b71-5c3a-4d9e-b0a6-2e7d1c9f3a58")
HEADLINE_WORDS = 20
SUMMARY_WORDS = 60
LINE_TIME_FORMAT = "%Y-%m-%d %H:%M"
FOLDER = Identity.administrator(via="episode retention")


class Putter(Protocol):
    """What folding writes through (``MemoryWriter.put``): memories as they are, embedded
    and encoded, with a history event each."""

    def put(
        self,
        memories: Sequence[Memory],
        before: Mapping[str, Memory],
        *,
        action: HistoryAction,
        actor: str,
        source: str,
    ) -> None: ...


def session_of(episode: Memory) -> str:
    """Which session an episode belongs to: the host's session key or id, else its day."""
    provenance = episode.provenance
    return provenance.session_key or provenance.session_id or f"{episode.created_at:%Y-%m-%d}"


def folded_id(scope: str, session: str) -> str:
    return str(uuid.uuid5(SESSION_NAMESPACE, f"{scope}\n{session}"))


def line_of(episode: Memory) -> str:
    """An episode as one line of its session's memory: when, then its summary."""
    return f"[{episode.created_at:{LINE_TIME_FORMAT}}] {' '.join(episode.summary.split())}"


def _clip(text: str, words: int) -> str:
    parts = text.split()
    return " ".join(parts) if len(parts) <= words else " ".join(parts[:words]) + "…"


def _bounded(lines: Sequence[str]) -> list[str]:
    """The first lines that fit in a memory's content, with a last line saying how many did
    not."""
    kept: list[str] = []
    size = 0
    for index, line in enumerate(lines):
        rest = len(lines) - index
        tail = len(f"\n(and {rest} more exchanges)")
        if size + len(line) + 1 + (tail if rest > 1 else 0) > MAX_CONTENT_CHARACTERS:
            return [*kept, f"(and {rest} more exchanges)"]
        kept.append(line)
        size += len(line) + 1
    return kept


def _provenance(episodes: Sequence[Memory], earlier: Provenance | None) -> Provenance:
    first = earlier or episodes[0].provenance
    provenances = ([earlier] if earlier else []) + [episode.provenance for episode in episodes]
    untrusted = next((p.untrusted for p in provenances if p.untrusted), None)
    return Provenance(
        agent_id=first.agent_id,
        user_id=first.user_id,
        speakers=tuple(speaker for p in provenances for speaker in p.speakers),
        session_id=first.session_id,
        session_key=first.session_key,
        channel=first.channel,
        message_ids=tuple(key for p in provenances for key in p.message_ids),
        untrusted=untrusted,
    )


def fold(episodes: Sequence[Memory], existing: Memory | None, now: datetime) -> Memory:
    """The memory of one session's ``episodes`` (one scope), added to ``existing`` if the
    session was folded before."""
    ordered = sorted(episodes, key=lambda episode: episode.created_at)
    first = ordered[0]
    earlier = existing.content.splitlines() if existing else []
    lines = [line for line in earlier if line.startswith("[")]  # a count line is made anew
    # in the order said: by the minute, and within a minute as they came (a stable sort)
    unique = dict.fromkeys([*lines, *(line_of(episode) for episode in ordered)])
    lines = sorted(unique, key=lambda line: line.split("]", 1)[0])
    provenance = _provenance(ordered, existing.provenance if existing else None)
    started = min(first.created_at, existing.created_at) if existing else first.created_at
    speakers = ", ".join(provenance.speakers) or "the user and the agent"
    said = [line.split("] ", 1)[-1] for line in lines]
    opened = f"Conversation on {started:%Y-%m-%d} with {speakers}"
    content = "\n".join(_bounded(lines))
    return Memory(
        id=folded_id(first.scope, session_of(first)),
        scope=first.scope,
        category=Category.EVENTS,
        headline=_clip(f"{opened}: {said[0]}", HEADLINE_WORDS),
        summary=_clip(f"{opened}, {len(lines)} exchanges: {'; '.join(said[:3])}", SUMMARY_WORDS),
        content=content,
        importance=SESSION_IMPORTANCE,
        tags=[SESSION_TAG],
        created_at=started,
        updated_at=now,
        source=first.source,
        content_hash=content_hash(content),
        provenance=provenance,
    )


def _not_yet_folded(episodes: Iterable[Memory], existing: Memory | None) -> list[Memory]:
    """The episodes whose messages the session's memory does not name yet."""
    if existing is None:
        return list(episodes)
    named = set(existing.provenance.message_ids)
    return [e for e in episodes if not set(e.provenance.message_ids) <= named]


def fold_sessions(
    store: MemoryStore, writer: Putter, episodes: Sequence[Memory], now: datetime
) -> list[Memory]:
    """Fold ``episodes`` into one memory per scope and session (written before the episodes
    are forgotten, so an interruption loses nothing); the memories written."""
    sessions: dict[tuple[str, str], list[Memory]] = {}
    for episode in episodes:
        sessions.setdefault((episode.scope, session_of(episode)), []).append(episode)
    ids = [folded_id(scope, session) for scope, session in sessions]
    stored = store.get(ids)
    created: list[Memory] = []
    merged: list[Memory] = []
    for (scope, session), members in sessions.items():
        existing = stored.get(folded_id(scope, session))
        fresh = _not_yet_folded(members, existing)
        if fresh:
            (merged if existing else created).append(fold(fresh, existing, now))
    for memories, action in ((created, HistoryAction.CREATED), (merged, HistoryAction.MERGED)):
        if memories:
            writer.put(
                memories,
                stored,
                action=action,
                actor=FOLDER.describe(),
                source=f"folding ({FOLDER.via})",
            )
    return created + merged
