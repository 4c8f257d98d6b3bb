"""Which version of the memories table this process reads, and its in-process copy.

Asking LanceDB for the table's version is cheap but not free, so it is asked at most every
``read_consistency_seconds`` (and at once after this process takes the write lock, so a
read-decide-write sees every commit made before it). This process's own commits advance the
in-process copy (``SnapshotCache``) without reading the table again; when another process
committed in between, the copy is left for the next read to catch up.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pyarrow as pa

from openclaw_tinmem.store.snapshot import Snapshot, SnapshotCache


class TableVersions:
    """The table version this process knows, when it last asked, and the table's schema."""

    def __init__(
        self,
        table: Callable[[], Any],
        snapshots: SnapshotCache,
        every_seconds: Callable[[], float],
    ) -> None:
        self._table = table
        self.snapshots = snapshots
        self._every_seconds = every_seconds
        self._known = 0
        self._checked_at: float | None = None
        self._schema_of: tuple[Any, pa.Schema] | None = None  # (table, its schema), see below

    def current(self) -> int:
        """The table version, asked of LanceDB at most every ``read_consistency_seconds``."""
        now = time.monotonic()
        checked = self._checked_at
        if checked is None or now - checked > self._every_seconds():
            version = int(self._table().version)
            if version != self._known:  # another process committed (or first check)
                self._schema_of = None
            self._known, self._checked_at = version, now
        return self._known

    def forget(self) -> None:
        """Ask LanceDB again on the next read (the write lock was taken, or rows were rewritten
        in the table alone)."""
        self._checked_at = None

    def schema(self) -> pa.Schema:
        """The stored table's schema. Asking LanceDB takes a millisecond, so it is asked again
        only for a new table object or after another process committed (which may have
        migrated the table): ``current`` and ``published`` forget it then."""
        table = self._table()
        if self._schema_of is None or self._schema_of[0] is not table:
            self._schema_of = (table, table.schema)
        return self._schema_of[1]

    def published(self, version: int, change: Callable[[Snapshot], Snapshot] | None = None) -> None:
        """Apply this process's commit (``version``, made on top of the snapshot's) to the
        in-process copy by ``change`` (None: rows unchanged); when other writers committed
        in between, the copy is left as it is and the next read catches it up."""
        before = self._known
        self._known, self._checked_at = version, time.monotonic()
        if version != before + 1:  # another host's commit came first: the next read catches up
            self._schema_of = None
        else:
            self.snapshots.advance(before, version, change)

    def compacted(self, before: int, after: int) -> None:
        """Upkeep rewrote the files from ``before`` to ``after`` under the write lock: the
        same rows, so the copy moves to ``after`` as it is."""
        self._known = after
        self.snapshots.advance(before, after)
