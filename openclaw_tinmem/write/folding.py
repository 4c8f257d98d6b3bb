"""Folding: a session's expired episodes kept as one memory of what happened in it.

Episode retention (``retention.py``) bounds the store by forgetting the exchanges automatic
capture kept once they are older than ``episode_retention_days``. Forgotten alone, what
happened in an old conversation would be gone from recall (the facts taken from it stay, the
history keeps the words). Folded first, each session's day leaves one ``events`` memory tagged
``folded-session``: an exchange a line, dated, in the order said — each line the episode's
summary (the user's words and the start of the reply) — with the speakers and the ids of the
messages it was taken from (the first ``MAX_MESSAGE_IDS``). Its importance is below an
episode's, so a live exchange that answers as well comes first.

Episodes are folded together only when they share their scope, agent, user, trust and day
and their session (its id, else its key): a folded memory never mixes what two users said,
nor an untrusted exchange with trusted ones, so what automatic recall may inject of it is
what it could inject of each episode. Its id derives from all of these, so the episodes of
one day that expire in different upkeep runs end up in the same memory, and folding again
after an interrupted run (the folded memory written, the episodes not yet forgotten) adds
nothing twice. An episode whose line no longer fits in the memory (``MAX_CONTENT_CHARACTERS``)
is not folded and so not forgotten: nothing is lost to the bound.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from openclaw_tinmem.access import Identity
from openclaw_tinmem.models import (
    FOLDED_TAG,
    MAX_CONTENT_CHARACTERS,
    Category,
    Memory,
    Provenance,
    content_hash,
)
from openclaw_tinmem.store.history import FOLDED_INTO, HistoryAction
from openclaw_tinmem.store.table import MemoryStore
from openclaw_tinmem.text import clip_words

if TYPE_CHECKING:
    from openclaw_tinmem.write.writer import MemoryWriter

SESSION_IMPORTANCE = 0.3  # below an episode's 0.4: older, so kept at a lower weight
SESSION_NAMESPACE = uuid.UUID("8f4e2b71-5c3a-4d9e-b0a6-2e7d1c9f3a58")
HEADLINE_WORDS = 20
SUMMARY_WORDS = 60
LINE_TIME_FORMAT = "%Y-%m-%d %H:%M"
# who folds and forgets expired episodes, in their history (retention.py uses it too)
RETENTION = Identity.administrator(via="episode retention")


def fold_key(episode: Memory) -> tuple[str, ...]:
    """What episodes folded together share: scope, agent, user, trust, session and day."""
    provenance = episode.provenance
    return (
        episode.scope,
        provenance.agent_id or "",
        provenance.user_id or "",
        "untrusted" if provenance.untrusted else "trusted",
        provenance.session_id or provenance.session_key or "",
        f"{episode.created_at:%Y-%m-%d}",
    )


def folded_id(key: tuple[str, ...]) -> str:
    return str(uuid.uuid5(SESSION_NAMESPACE, "\n".join(key)))


def line_of(episode: Memory) -> str:
    """An episode as one line of its session's memory: when, then its summary."""
    return f"[{episode.created_at:{LINE_TIME_FORMAT}}] {' '.join(episode.summary.split())}"


def _fitting(lines: Sequence[str]) -> list[str]:
    """The first lines that fit in a memory's content, one per line."""
    kept: list[str] = []
    size = 0
    for line in lines:
        size += len(line) + (1 if kept else 0)
        if size > MAX_CONTENT_CHARACTERS:
            break
        kept.append(line)
    return kept


def fold(episodes: Sequence[Memory], existing: Memory | None, now: datetime) -> Memory:
    """The memory of ``episodes`` (one ``fold_key``), added to ``existing`` if some of that
    key were folded before; the lines past the content bound are left out."""
    ordered = sorted(episodes, key=lambda episode: episode.created_at)
    first = ordered[0]
    earlier = existing.content.split("\n") if existing else []
    # in the order said: by the minute, and within a minute as they came (a stable sort)
    unique = dict.fromkeys([*earlier, *(line_of(episode) for episode in ordered)])
    lines = _fitting(sorted(unique, key=lambda line: line.split("]", 1)[0]))
    kept = set(lines)
    folded = [episode for episode in ordered if line_of(episode) in kept]
    provenances = ([existing.provenance] if existing else []) + [e.provenance for e in folded]
    provenance = Provenance(
        agent_id=first.provenance.agent_id,
        user_id=first.provenance.user_id,
        speakers=tuple(speaker for p in provenances for speaker in p.speakers),
        session_id=first.provenance.session_id,
        session_key=first.provenance.session_key,
        channel=first.provenance.channel,
        message_ids=tuple(key for p in provenances for key in p.message_ids),
        untrusted=first.provenance.untrusted,
    )
    started = min(first.created_at, existing.created_at) if existing else first.created_at
    speakers = ", ".join(provenance.speakers) or "the user and the agent"
    said = [line.split("] ", 1)[-1] for line in lines]
    opened = f"Conversation on {started:%Y-%m-%d} with {speakers}"
    content = "\n".join(lines)
    return Memory(
        id=folded_id(fold_key(first)),
        scope=first.scope,
        category=Category.EVENTS,
        headline=clip_words(f"{opened}: {said[0]}", HEADLINE_WORDS),
        summary=clip_words(
            f"{opened}, {len(lines)} exchanges: {'; '.join(said[:3])}", SUMMARY_WORDS
        ),
        content=content,
        importance=SESSION_IMPORTANCE,
        tags=[FOLDED_TAG],
        created_at=started,
        updated_at=now,
        source=first.source,
        content_hash=content_hash(content),
        provenance=provenance,
    )


def folded_note(episode: Memory) -> str:
    """What the history of a folded episode says of where its words went: a purge of that
    memory erases the episode's history too (``HistoryLog.erase``)."""
    return f"{FOLDED_INTO}{folded_id(fold_key(episode))}"


def fold_sessions(
    store: MemoryStore, writer: MemoryWriter, episodes: Sequence[Memory], now: datetime
) -> list[Memory]:
    """Fold ``episodes`` into one memory per ``fold_key`` (written before any episode is
    forgotten, so an interruption loses nothing); the episodes whose lines the memories now
    hold, which may be forgotten."""
    groups: dict[tuple[str, ...], list[Memory]] = {}
    for episode in episodes:
        groups.setdefault(fold_key(episode), []).append(episode)
    stored = store.get([folded_id(key) for key in groups])
    created: list[Memory] = []
    merged: list[Memory] = []
    folded: list[Memory] = []
    for key, members in groups.items():
        existing = stored.get(folded_id(key))
        memory = fold(members, existing, now)
        lines = set(memory.content.split("\n"))
        folded += [episode for episode in members if line_of(episode) in lines]
        if existing is None:
            created.append(memory)
        elif memory.content != existing.content:
            merged.append(memory)
    for memories, action in ((created, HistoryAction.CREATED), (merged, HistoryAction.MERGED)):
        if memories:
            writer.put(
                memories,
                action=action,
                actor=RETENTION.describe(),
                source=f"folding ({RETENTION.via})",
            )
    return folded
