"""The LanceDB memories table: safe writes under a cross-process lock, lookups and search."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import pyarrow as pa

from openclaw_tinmem.config import Settings
from openclaw_tinmem.encoders.dense import Matrix, Vector
from openclaw_tinmem.errors import ConfigError
from openclaw_tinmem.models import Category, Memory
from openclaw_tinmem.store.catch_up import SnapshotLoader
from openclaw_tinmem.store.compaction import UpkeepScheduler, optimize_table, upkeep_under_lease
from openclaw_tinmem.store.conditional import timestamp_literal, write_rows
from openclaw_tinmem.store.filters import build_filter
from openclaw_tinmem.store.history import HistoryEvent, HistoryLog
from openclaw_tinmem.store.lance_reader import LanceReader
from openclaw_tinmem.store.lease import Lease
from openclaw_tinmem.store.opening import (
    connect,
    create_table,
    is_writable,
    open_current,
    open_existing,
    open_or_create,
    stored_model,
)
from openclaw_tinmem.store.schema import (
    MEMORY_COLUMNS,
    memories_to_table,
    memory_schema,
    row_to_memory,
)
from openclaw_tinmem.store.snapshot import Snapshot, SnapshotCache
from openclaw_tinmem.store.versions import TableVersions
from openclaw_tinmem.store.write_lock import WriteLock

HISTORY_UPKEEP_FACTOR = 10
# how long a purge on an object store waits for another host's upkeep to end (False after)
PURGE_WAIT_SECONDS = 60.0
logger = logging.getLogger("openclaw_tinmem")


class MemoryStore:
    """One LanceDB table of memories; every write holds a cross-process file lock.

    Rows carry the token vectors they are given for late interaction (encoded by
    ``encoders.late_interaction.LateInteraction``); the store never encodes anything.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        model_name: str,
        dimension: int,
        verify_model: bool = True,
    ) -> None:
        self.settings = settings
        self.model_name = model_name
        self.dimension = dimension
        self.uri = settings.resolved_db_path()
        self.database = connect(settings)
        self.upkeep = UpkeepScheduler()  # the workspace tables' upkeep runs on it too
        # the table is read through ``self.table``, set below and replaced by ``replace_all``
        self.reader = LanceReader(lambda: self.table)
        loader = SnapshotLoader(lambda: self.table, self.reader, dimension)
        self.snapshots = SnapshotCache(loader)
        self.snapshot_loads = loader.loads  # "whole" and "caught up" (tests, benchmarks)
        self.versions = TableVersions(
            lambda: self.table, self.snapshots, lambda: settings.read_consistency_seconds
        )
        self._write_lock = WriteLock(
            self._directory() if settings.is_local_store() else None,
            settings.lock_timeout_seconds,
            on_acquire=self.versions.forget,
        )
        # On an object store, hosts take turns at upkeep under a lease in the bucket.
        self.upkeep_lease = self.lease("upkeep")
        self.conflicts = 0  # memories a conditional write left out: another writer came first
        # a local store this user may read but not write (a read-only mount, another user's
        # files): opened as it is, for reading; a write says so (``write_lock``)
        self.read_only = settings.is_local_store() and not is_writable(self._directory())
        if self.read_only:
            self.table = open_existing(
                self.database,
                settings.table_name,
                self.schema(),
                uri=self.uri,
                verify_model=verify_model,
            )
            self.history = HistoryLog(self.database, read_only=True)
        else:
            opening = (self.database, settings.table_name, self.schema())
            current = open_current(*opening, uri=self.uri, verify_model=verify_model)
            with contextlib.nullcontext() if current is not None else self.write_lock():
                self.table = current or open_or_create(
                    *opening, uri=self.uri, verify_model=verify_model
                )
                self.history = HistoryLog(self.database)

    # ----------------------------------------------------------------- setup

    def lease(self, work: str) -> Lease | None:
        """The lease under which one host at a time does ``work`` on this table, on an object
        store; None for a local store, whose write lock already keeps other writers out."""
        if self.settings.is_local_store():
            return None
        name = f"{work} {self.settings.table_name}"
        return Lease(self.database, name, self.settings.upkeep_lease_seconds)

    def schema(self) -> pa.Schema:
        return memory_schema(self.model_name, self.dimension)

    def replace_all(self, data: pa.Table) -> None:
        """Swap the whole table for ``data`` (same columns, this store's model) in one commit."""
        with self.write_lock():
            name = self.settings.table_name
            self.table = create_table(self.database, name, data, self.schema(), "overwrite")
            self.snapshots.invalidate()
            self.versions.forget()

    def stored_model(self) -> tuple[str, str]:
        return stored_model(self.table.schema)

    def _directory(self) -> Path:
        return Path(self.uri.removeprefix("file://"))

    def write_lock(self) -> contextlib.AbstractContextManager[None]:
        """Serialise writers: threads by an RLock, processes by a lock file beside the data.

        Taking the outermost lock forces a fresh version check, so a read-decide-write sees
        every commit other processes made before it. A read-only store refuses here, before
        anything is written.
        """
        if self.read_only:
            raise ConfigError(
                f"the store at db_path {self.uri!r} is read-only for this user: its memories "
                "can be read, not changed",
                field="db_path",
            )
        return self._write_lock.hold()

    def current_version(self) -> int:
        """The table version, asked of LanceDB at most every ``read_consistency_seconds``."""
        return self.versions.current()

    # ----------------------------------------------------------------- reads

    def count(self, *, scopes: Sequence[str] | None = None) -> int:
        return int(self.table.count_rows(build_filter(scopes=scopes)))

    def snapshot(self) -> Snapshot:
        """The in-process copy of the current table version.

        While another thread of this process holds the write lock, no other process can
        commit to a local store and that thread publishes its own commits when done (upkeep
        commits twice in a row). Readers keep the last published snapshot meanwhile instead of
        loading the whole table for a version about to be published anyway. (A remote store
        has no cross-process lock, so there a read may lag by the duration of the write.)
        """
        if self._write_lock.held_by_another_thread():
            published = self.snapshots.latest()
            if published is not None:
                return published
        return self.snapshots.snapshot(self.current_version())

    def get(self, memory_ids: Sequence[str]) -> dict[str, Memory]:
        rows = self.snapshot().rows(memory_ids)
        return {row["id"]: row_to_memory(row) for row in rows}

    def get_with_vectors(self, memory_ids: Sequence[str]) -> list[tuple[Memory, Vector]]:
        snapshot = self.snapshot()
        rows = snapshot.rows(memory_ids)
        vectors = snapshot.vectors_of([row["id"] for row in rows])
        return [(row_to_memory(row), vector) for row, vector in zip(rows, vectors, strict=True)]

    def token_rows(self, memory_ids: Sequence[str]) -> list[dict[str, Any]]:
        """id, content, context and token_vectors of those of these memories that have them."""
        if not memory_ids:
            return []
        columns = ["id", "content", "context", "token_vectors"]
        where = build_filter(ids=memory_ids)
        rows = self.reader.rows(columns, where, version=self.current_version())
        return [row for row in rows if row["token_vectors"]]

    def find_by_hash(self, scope: str, category: Category, digest: str) -> list[Memory]:
        """The memories in ``scope`` and ``category`` whose content has this hash."""
        memory_ids = self.snapshot().find_hash(scope, Category(category).value, digest)
        return list(self.get(memory_ids).values()) if memory_ids else []

    def list_memories(
        self,
        *,
        scopes: Sequence[str] | None = None,
        categories: Sequence[Category] | None = None,
        limit: int | None = 50,
    ) -> list[Memory]:
        """The most recently updated memories (all of them for ``limit=None``)."""
        return self.page(scopes=scopes, categories=categories, limit=limit)[1]

    def page(
        self,
        *,
        scopes: Sequence[str] | None = None,
        categories: Sequence[Category] | None = None,
        before: datetime | None = None,
        tags: Sequence[str] = (),
        offset: int = 0,
        limit: int | None = 50,
        created_before: datetime | None = None,
    ) -> tuple[int, list[Memory]]:
        """One page of the matching memories (every one for ``limit=None``), most recently
        updated first, and how many match (``Snapshot.page``: only the page is turned into
        memories)."""
        names = [Category(category).value for category in categories] if categories else None
        snapshot = self.snapshot()
        size = snapshot.size if limit is None else limit
        total, rows = snapshot.page(scopes, names, before, tags, offset, size, created_before)
        return total, [row_to_memory(row) for row in rows]

    def tally(
        self, *, scopes: Sequence[str] | None = None
    ) -> tuple[dict[str, int], dict[str, int]]:
        """Counts of memories by category and by ISO week of creation (``Snapshot.tally``)."""
        return self.snapshot().tally(scopes)

    def iterate(self, *, batch_size: int = 1000) -> Iterator[pa.RecordBatch]:
        """Every memory (without vectors), in record batches."""
        query = self.table.search().select(MEMORY_COLUMNS).limit(None)
        yield from query.to_arrow().to_batches(batch_size)

    def vector_search(
        self,
        query: Vector,
        limit: int,
        *,
        scopes: Sequence[str] | None = None,
        categories: Sequence[Category] | None = None,
    ) -> list[tuple[str, float]]:
        names = [Category(category).value for category in categories] if categories else None
        return self.snapshot().search(query, limit, scopes=scopes, categories=names)

    def text_search(
        self,
        text: str,
        limit: int,
        *,
        scopes: Sequence[str] | None = None,
        categories: Sequence[Category] | None = None,
    ) -> list[tuple[str, float]]:
        """(id, BM25 score) of full-text matches; the text is a match query, never parsed."""
        if not text.strip():
            return []
        where = build_filter(scopes=scopes, categories=categories)
        version = self.current_version()
        return self.reader.text_search("search_text", text, limit, where=where, version=version)

    # ----------------------------------------------------------------- writes

    def upsert(
        self,
        memories: Sequence[Memory],
        vectors: Matrix | Sequence[Vector],
        tokens: Sequence[bytes | None] | None = None,
        *,
        expected: Mapping[str, datetime] | None = None,
    ) -> frozenset[str]:
        """Write memories; returns the ids of those not written because of a conflict.

        With ``expected`` the write is conditional (``store.conditional``): a memory whose id
        is in it replaces the stored one only if that still has the given ``updated_at``; any
        other memory is new and is added only if no memory has its id. Without it, memories
        are inserted or replaced by id whatever is stored (administrative rewrites).
        ``tokens`` are the memories' late-interaction token vectors (None: stored without).
        """
        if not memories:
            return frozenset()
        tokens = list(tokens) if tokens is not None else [None] * len(memories)
        data = memories_to_table(memories, vectors, tokens, self.versions.schema())
        matrix = Snapshot.matrix_of(data, self.dimension)  # as stored (float16 rounds)
        with self.write_lock():
            ids = [memory.id for memory in memories]
            stored = self.snapshot().stored(ids)
            exclusive = self.settings.is_local_store()  # under its file lock
            commits, conflicted = write_rows(
                self.table, data, stored, expected, exclusive=exclusive
            )
            self.conflicts += len(conflicted)
            for commit in commits:
                written = data.take(pa.array(commit.rows, type=pa.int64()))
                change = partial(
                    Snapshot.changed,
                    version=commit.version,
                    upserted=written,
                    vectors=matrix[commit.rows],
                    deleted=(),
                )
                self.versions.published(commit.version, change)
            if commits:
                self._after_write()
            return conflicted

    def delete(self, memory_ids: Sequence[str]) -> None:
        if not memory_ids:
            return
        with self.write_lock():
            self.current_version()
            version = int(self.table.delete(build_filter(ids=memory_ids)).version)
            self.versions.published(
                version, lambda old: old.changed(version, None, None, memory_ids)
            )
            self._after_write()

    def rename_scope(self, old: str, new: str) -> int:
        """Move every memory of scope ``old`` into ``new`` in one commit; returns how many."""
        where = build_filter(scopes=[old])
        build_filter(scopes=[new])  # validates the new name
        with self.write_lock():
            moved = int(self.table.count_rows(where))
            if moved:
                self.table.update(where=where, values={"scope": new})
                # Rows were rewritten in the table alone: the next read catches the copy up.
                self.versions.forget()
                self._after_write()
        return moved

    def record_access(
        self, memory_ids: Sequence[str], when: datetime | None = None, times: int = 1
    ) -> None:
        """Add ``times`` to the access count of ``memory_ids`` and set their last access to
        ``when``, in one commit; no other column is touched."""
        if not memory_ids:
            return
        when = when or datetime.now(UTC)
        with self.write_lock():
            self.current_version()
            result = self.table.update(
                where=build_filter(ids=memory_ids),
                values_sql={
                    "access_count": f"access_count + {int(times)}",
                    "last_accessed_at": timestamp_literal(when),
                },
            )
            after = int(result.version)
            self.versions.published(after, lambda old: old.touched(after, memory_ids, when, times))
            self._after_write()

    def record(self, events: Sequence[HistoryEvent]) -> None:
        """Append history events (``history`` on); their table's upkeep runs in the background."""
        if not events or not self.settings.history:
            return
        self.history.append(events)
        self.upkeep.wrote(  # small appends, rarely read: tidied ten times less often
            "history",
            self.settings.optimize_every_writes * HISTORY_UPKEEP_FACTOR,
            lambda: self.history.prune(
                timedelta(days=self.settings.history_retention_days),
                timedelta(seconds=self.settings.version_retention_seconds),
            ),
            "history upkeep failed; retried after further writes",
        )

    def _after_write(self) -> None:
        """Every ``optimize_every_writes`` writes, queue upkeep on the background thread."""
        self.upkeep.wrote(
            "memories",
            self.settings.optimize_every_writes,
            self.optimize,
            "table upkeep failed; retried after further writes",
        )

    def optimize(self) -> bool:
        """Compact files, fold new rows into the indexes and prune old versions, now.

        On an object store only the host holding the upkeep lease does it; False if another
        host holds it (its upkeep covers the same table).
        """
        return self._upkeep(timedelta(seconds=self.settings.version_retention_seconds))

    def purge(self, forgotten: Sequence[str] = ()) -> bool:
        """Upkeep now, keeping no older version: deleted rows leave the files at once, and so
        does the history of the ``forgotten`` memories (which held what they said).

        For privacy requests. A read that started on an older version may fail meanwhile (and
        is retried by the caller, or gives "no memory this turn"): purging is not routine. On
        an object store it waits for another host's upkeep to end, ``PURGE_WAIT_SECONDS`` at
        most; False if it is still running (the deleted rows leave older versions with that
        host's upkeep, within ``version_retention_seconds``).
        """
        if forgotten:
            self.history.erase(forgotten)
        return self._upkeep(timedelta(0), wait_seconds=PURGE_WAIT_SECONDS)

    def _upkeep(self, retention: timedelta, wait_seconds: float = 0.0) -> bool:
        lease = self.upkeep_lease
        if lease is None:  # a local store: the write lock keeps every other writer out
            with self.write_lock():
                before = self.current_version()
                optimize_table(self.table, retention)
                self.versions.compacted(before, int(self.table.version))
            return True
        if not upkeep_under_lease(self.table, lease, retention, self.settings, wait_seconds):
            return False
        # Files rewritten, other hosts' commits between: the next read catches the copy up.
        self.versions.forget()
        return True

    def wait_for_upkeep(self) -> None:
        """Block until queued upkeep has run (tests, benchmarks and shutdown use it)."""
        self.upkeep.wait()

    def close(self) -> None:
        """Finish queued upkeep and history, and release their threads."""
        self.upkeep.close()
        self.history.close()

    def version_count(self) -> int:
        return len(self.table.list_versions())
