"""The history of every memory: one event per change, in a table beside the memories.

Created, merged (with the statement merged in), updated, forgotten, imported, re-embedded
and restored memories each append an event: the memory's id, the action, its state before
and after (the fields a restore needs), who acted (the identity, and through which front
end), where the change came from (a tool, a captured turn, an import) and when. The table
outlives version pruning; events older than ``history_retention_days`` are removed by its
upkeep.

A memory written anew (created, imported or restored where nothing was stored) is not copied
into its event: the event keeps only its scope, ``updated_at`` and ``content_hash``, and the
rest is the memory's row until it changes again, then the next event's state before. That is
most events (each captured exchange is one), and the copy was a sixth of the store.
``with_states`` fills such an event's state back in when history is read — only from a state
with the same ``updated_at`` and ``content_hash`` (a change made with history off, or whose
event was lost, does not pass for the state written); where none matches, the event says its
state is not kept.

Events are appended in batches by a background thread, at most ``FLUSH_SECONDS`` after the
write they record (and at once when history is read or the store closes): a LanceDB commit
per write would have made each write a fifth slower. A process killed in that window loses
those events, never the memories they describe.
"""

from __future__ import annotations

import atexit
import json
import logging
import re
import threading
import uuid
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from functools import partial
from typing import Any

import pyarrow as pa
from lancedb.index import BTree

from openclaw_tinmem.models import Memory, utc_now
from openclaw_tinmem.store.compaction import optimize_table
from openclaw_tinmem.store.conditional import timestamp_literal
from openclaw_tinmem.store.filters import quote
from openclaw_tinmem.store.opening import ensure_indexes
from openclaw_tinmem.store.schema import HISTORY_TABLE

logger = logging.getLogger("openclaw_tinmem")
FLUSH_SECONDS = 0.5
FLUSH_EVENTS = 256
# what a restore rebuilds a memory from; access statistics and vectors are not history
STATE_FIELDS = (
    "id",
    "scope",
    "category",
    "headline",
    "summary",
    "content",
    "importance",
    "tags",
    "created_at",
    "updated_at",
    "source",
    "source_ref",
    "content_hash",
    "context",
    "provenance",
)


class HistoryAction(StrEnum):
    CREATED = "created"
    MERGED = "merged"
    UPDATED = "updated"
    FORGOTTEN = "forgotten"
    IMPORTED = "imported"
    RESTORED = "restored"
    REEMBEDDED = "reembedded"


def state_of(memory: Memory | None) -> dict[str, Any] | None:
    if memory is None:
        return None
    record = memory.model_dump(mode="json")
    return {name: record[name] for name in STATE_FIELDS}


@dataclass(frozen=True)
class HistoryEvent:
    """One change of one memory."""

    memory_id: str
    action: HistoryAction
    before: dict[str, Any] | None = None
    after: dict[str, Any] | None = None
    actor: str = ""
    source: str = ""
    note: str = ""
    at: datetime = field(default_factory=utc_now)
    event_id: str = field(default_factory=lambda: str(uuid.uuid4()))

    def to_dict(self) -> dict[str, Any]:
        return {
            "event_id": self.event_id,
            "memory_id": self.memory_id,
            "action": self.action.value,
            "at": self.at.isoformat(),
            "actor": self.actor,
            "source": self.source,
            "note": self.note,
            "before": self.before,
            "after": self.after,
        }


SCHEMA = pa.schema(
    [
        pa.field("event_id", pa.string()),
        pa.field("memory_id", pa.string()),
        pa.field("action", pa.string()),
        pa.field("at", pa.timestamp("us", tz="UTC")),
        pa.field("actor", pa.string()),
        pa.field("source", pa.string()),
        pa.field("note", pa.string()),
        pa.field("before", pa.string()),
        pa.field("after", pa.string()),
    ]
)


class HistoryLog:
    """The history table of one database, with its batching writer thread."""

    def __init__(self, database: Any, *, read_only: bool = False) -> None:
        if read_only:  # a store opened for reading (``open_existing`` checked the table)
            self.table = database.open_table(HISTORY_TABLE)
        else:
            # exist_ok and ensure_indexes: another host may create the table at the same moment
            self.table = database.create_table(HISTORY_TABLE, schema=SCHEMA, exist_ok=True)
            ensure_indexes(self.table, {"memory_id": BTree()})
        self._pending: list[HistoryEvent] = []
        self._lock = threading.Lock()  # guards _pending
        self._flushing = threading.Lock()  # one commit at a time
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        # A host that exits without closing still gets its queued events written, and no
        # commit is left running while the interpreter tears down. Registered when the store
        # opens, before any capture worker starts, it runs after the worker has stopped.
        self._exit_handler = partial(_close_at_exit, weakref.ref(self))
        atexit.register(self._exit_handler)

    def append(self, events: Sequence[HistoryEvent]) -> None:
        """Queue events; the writer thread commits them within ``FLUSH_SECONDS``."""
        if not events:
            return
        with self._lock:
            self._pending.extend(events)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._loop, name="tinmem-history", daemon=True
                )
                self._thread.start()
        if len(self._pending) >= FLUSH_EVENTS:
            self._wake.set()

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(FLUSH_SECONDS)
            self._wake.clear()
            try:
                self.flush()
            except Exception:  # kept queued and tried again; history never fails a write
                logger.warning("could not write memory history; will retry", exc_info=True)

    def flush(self) -> None:
        """Commit every queued event now, in one append."""
        with self._flushing:
            with self._lock:
                events, self._pending = self._pending, []
            try:
                self._write(events)
            except Exception:
                with self._lock:
                    self._pending = events + self._pending
                raise

    def close(self) -> None:
        atexit.unregister(self._exit_handler)
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
            if self._thread.is_alive():  # its commit hangs (a store out of reach): not twice
                logger.warning("memory history: %d queued events not written", len(self._pending))
                return
        self.flush()

    def _write(self, events: Sequence[HistoryEvent]) -> None:
        if not events:
            return
        rows = [
            {
                "event_id": event.event_id,
                "memory_id": event.memory_id,
                "action": event.action.value,
                "at": event.at,
                "actor": event.actor,
                "source": event.source,
                "note": event.note,
                "before": _json(event.before),
                "after": _json(stored_after(event)),
            }
            for event in events
        ]
        self.table.add(pa.Table.from_pylist(rows, schema=SCHEMA))

    def events(self, memory_id: str) -> list[HistoryEvent]:
        """Every event of one memory, oldest first, as stored: a memory written anew has no
        state in its event (``with_states`` fills it in)."""
        self.flush()
        rows = self.table.search().where(f"memory_id = {quote(memory_id)}").limit(None).to_list()
        events = [
            HistoryEvent(
                memory_id=row["memory_id"],
                action=HistoryAction(row["action"]),
                before=json.loads(row["before"]) if row["before"] else None,
                after=json.loads(row["after"]) if row["after"] else None,
                actor=row["actor"] or "",
                source=row["source"] or "",
                note=row["note"] or "",
                at=row["at"],
                event_id=row["event_id"],
            )
            for row in rows
        ]
        return sorted(events, key=lambda event: event.at)

    def memory_ids_starting(self, prefix: str) -> list[str]:
        """The ids with history that start with ``prefix`` (hex digits and dashes only)."""
        if not re.fullmatch(r"[0-9a-f\-]{1,36}", prefix):
            return []
        self.flush()
        rows = (
            self.table.search()
            .where(f"memory_id LIKE '{prefix}%'")
            .select(["memory_id"])
            .limit(None)
            .to_list()
        )
        return sorted({row["memory_id"] for row in rows})

    def erase(self, memory_ids: Sequence[str]) -> None:
        """Drop every event of these memories and of the episodes folded into them (their
        states say what was said), then compact the table keeping no older version: for a
        purge, which leaves no trace."""
        self.flush()
        if memory_ids:
            folded = ", ".join(quote(f"{FOLDED_INTO}{memory_id}") for memory_id in memory_ids)
            rows = self.table.search().where(f"note IN ({folded})").select(["memory_id"])
            episodes = [row["memory_id"] for row in rows.limit(None).to_list()]
            listed = ", ".join(quote(memory_id) for memory_id in [*memory_ids, *episodes])
            self.table.delete(f"memory_id IN ({listed})")
        optimize_table(self.table, timedelta(0))

    def prune(self, retention: timedelta, version_retention: timedelta) -> None:
        """Drop events older than ``retention``, then compact the table."""
        self.flush()
        self.table.delete(f"at < {timestamp_literal(utc_now() - retention)}")
        optimize_table(self.table, version_retention)


# the note episode retention gives the last event of an episode it folded, before the id of
# the memory it went into (``write.folding.folded_note``)
FOLDED_INTO = "folded into "
WRITTEN_ANEW = frozenset({HistoryAction.CREATED, HistoryAction.IMPORTED, HistoryAction.RESTORED})
# what an event of a memory written anew keeps of it: enough to recognise its state later
# (only a change recorded with an event moves updated_at and content_hash; a scope rename
# moves neither, so the scope is kept as it was)
MARK_FIELDS = ("scope", "updated_at", "content_hash")
NOT_KEPT = "its state is not kept: the memory changed without an event"


def stored_after(event: HistoryEvent) -> dict[str, Any] | None:
    """The state after an event as the table keeps it: a mark for a memory written anew."""
    if event.after is not None and event.before is None and event.action in WRITTEN_ANEW:
        return {name: event.after.get(name) for name in MARK_FIELDS}
    return event.after


def with_states(
    events: Sequence[HistoryEvent], current: dict[str, Any] | None
) -> list[HistoryEvent]:
    """Events (oldest first) with the state of each memory written anew filled in from the
    state that followed it — the next event's state before (or, for an event that changed
    nothing, such as a re-embedding, its state after), else ``current``, the memory's stored
    state — when that has the same ``updated_at`` and ``content_hash``, keeping the scope the
    event recorded. Otherwise its state is None and its note says so."""
    filled = list(events)
    for index, event in enumerate(filled):
        mark = event.after
        if mark is None or "content" in mark:
            continue  # a full state (or none: forgotten)
        following = filled[index + 1] if index + 1 < len(filled) else None
        state = current if following is None else (following.before or following.after)
        if (
            state is not None
            and "content" in state
            and state.get("content_hash") == mark.get("content_hash")
            and _instant(state.get("updated_at")) == _instant(mark.get("updated_at"))
        ):
            filled[index] = replace(event, after={**state, "scope": mark.get("scope")})
        else:
            note = f"{event.note}; {NOT_KEPT}" if event.note else NOT_KEPT
            filled[index] = replace(event, after=None, note=note)
    return filled


def _instant(value: Any) -> datetime | None:
    """A time as a state records it, in UTC (an imported one may carry another offset, or
    none, where the store reads it back in UTC)."""
    try:
        moment = datetime.fromisoformat(str(value))
    except ValueError:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def last_scope(events: Sequence[HistoryEvent]) -> str:
    """The scope a memory was in at its last event, as stored (a mark keeps it too)."""
    last = (events[-1].after or events[-1].before or {}) if events else {}
    return str(last.get("scope", ""))


def _json(state: dict[str, Any] | None) -> str | None:
    return None if state is None else json.dumps(state)


def _close_at_exit(reference: weakref.ref[HistoryLog]) -> None:
    history = reference()
    if history is not None:
        try:
            history.close()
        except Exception:  # the process is ending: say so, do not raise
            logger.warning("memory history: queued events not written at exit", exc_info=True)
