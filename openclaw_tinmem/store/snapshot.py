"""An in-process copy of the memories table for exact vector search and instant lookups.

Memory stores are small (thousands to a few hundred thousand rows), where exact search over a
float32 matrix beats any ANN index in both latency and recall. The copy is keyed by the table
version: a commit made by this process (under the write lock, so nothing else can interleave)
is applied to the copy directly; another process's commit is read from the table, only what
changed where Lance can tell (``store.catch_up``), the whole table otherwise.

Applying a commit is append-only, so its cost does not grow with the table: new and rewritten
rows are appended, a rewritten or deleted row's old position is marked dead. Vectors live in a
buffer with spare capacity that successive snapshots share; each snapshot sees only its own
first ``size`` rows.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from openclaw_tinmem.encoders.dense import Matrix, Vector
from openclaw_tinmem.process.blas import matrix_vector

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
MAX_CHUNKS = 64  # records are re-packed when appends have split them into more chunks
MAX_DEAD_ROWS = 256  # below this many dead rows a snapshot is never reloaded for them
FEW_ROWS = 16  # up to this many rows are read by single-row slices, more by one take


def _codes(values: Sequence[str], vocabulary: dict[str, int]) -> IntArray:
    """Integer codes of ``values``; new values are added to ``vocabulary`` (append-only)."""
    return np.fromiter(
        (vocabulary.setdefault(value, len(vocabulary)) for value in values),
        dtype=np.int64,
        count=len(values),
    )


class VectorBuffer:
    """A float32 matrix with spare rows; snapshots share it and each reads its own prefix."""

    def __init__(self, initial: Matrix) -> None:
        capacity = max(1024, int(len(initial) * 1.5))
        self.data = np.zeros((capacity, initial.shape[1]), dtype=np.float32)
        self.data[: len(initial)] = initial
        self.size = len(initial)

    def append(self, rows: Matrix) -> VectorBuffer:
        """Append after ``size``; returns the buffer holding the result (self, or a larger copy)."""
        needed = self.size + len(rows)
        target = self
        if needed > len(self.data):
            target = VectorBuffer(self.data[: self.size])
            target.data = np.zeros(
                (max(needed, 2 * len(self.data)), self.data.shape[1]), dtype=np.float32
            )
            target.data[: self.size] = self.data[: self.size]
        target.data[self.size : needed] = rows
        target.size = needed
        return target


@dataclass(frozen=True)
class FragmentState:
    """One Lance fragment's data files and deletion file, as text to compare versions by."""

    files: str
    deletions: str


@dataclass(frozen=True)
class Snapshot:
    """The rows of one table version: records (no vectors), vectors and filter codes.

    ``addresses`` are the rows' Lance row addresses (-1 for rows this process appended by
    ``changed``, whose address it does not learn) and ``fragments`` the fragments they were
    read from (None: rows that came another way, which a catch-up cannot start from).
    """

    version: int
    records: pa.Table
    buffer: VectorBuffer
    size: int
    alive: BoolArray
    scope_codes: IntArray
    category_codes: IntArray
    vocabulary: dict[str, int]
    positions: dict[str, int]
    addresses: IntArray
    fragments: dict[int, FragmentState] | None = None

    @classmethod
    def from_arrow(
        cls,
        version: int,
        table: pa.Table,
        dimension: int,
        *,
        addresses: IntArray | None = None,
        fragments: dict[int, FragmentState] | None = None,
    ) -> Snapshot:
        matrix = cls.matrix_of(table, dimension)
        records = table.drop_columns(["vector"]).combine_chunks()
        vocabulary: dict[str, int] = {}
        ids = records.column("id").to_pylist()
        return cls(
            version=version,
            records=records,
            buffer=VectorBuffer(matrix),
            size=len(ids),
            alive=np.ones(len(ids), dtype=bool),
            scope_codes=_codes(records.column("scope").to_pylist(), vocabulary),
            category_codes=_codes(records.column("category").to_pylist(), vocabulary),
            vocabulary=vocabulary,
            positions={memory_id: position for position, memory_id in enumerate(ids)},
            addresses=addresses if addresses is not None else np.full(len(ids), -1, np.int64),
            fragments=fragments,
        )

    @staticmethod
    def matrix_of(table: pa.Table, dimension: int) -> Matrix:
        """The ``vector`` column as a float32 matrix."""
        vectors = table.column("vector").combine_chunks()
        if not len(vectors):
            return np.zeros((0, dimension), dtype=np.float32)
        values = vectors.flatten().to_numpy(zero_copy_only=False)
        return np.ascontiguousarray(values, dtype=np.float32).reshape(-1, dimension)

    @property
    def matrix(self) -> Matrix:
        return self.buffer.data[: self.size]

    def _position(self, memory_id: str) -> int | None:
        position = self.positions.get(memory_id)
        # Positions are shared with later snapshots: ignore rows this snapshot cannot see.
        return position if position is not None and position < self.size else None

    def _positions(self, memory_ids: Sequence[str]) -> list[int]:
        """The positions of those of these ids this snapshot holds, in the given order."""
        return [p for p in (self._position(i) for i in memory_ids) if p is not None]

    def rows(self, memory_ids: Sequence[str]) -> list[dict[str, Any]]:
        """The records of the given ids that exist, in the given order."""
        found = self._positions(memory_ids)
        if len(found) > FEW_ROWS:  # a recall's candidates: one take
            rows: list[dict[str, Any]] = self.records.take(found).to_pylist()
            return rows
        # One zero-copy slice per row: ``take`` over records that appends split into many
        # chunks costs half a millisecond or more even for one row, a slice a few µs (a
        # slice per row passes a take at about 20 rows).
        return [self.records.slice(position, 1).to_pylist()[0] for position in found]

    def stored(self, memory_ids: Sequence[str]) -> set[str]:
        """Which of these ids this snapshot holds."""
        return {i for i in memory_ids if self._position(i) is not None}

    def vectors_of(self, memory_ids: Sequence[str]) -> list[Vector]:
        found = self._positions(memory_ids)
        return [self.buffer.data[position] for position in found]

    def live_records(self) -> pa.Table:
        """The records (no vectors) of the memories this snapshot holds."""
        records = self.records.slice(0, self.size)
        return records.filter(pa.array(self.alive[: self.size]))

    def page(
        self,
        scopes: Sequence[str] | None,
        categories: Sequence[str] | None,
        before: datetime | None,
        tags: Sequence[str],
        offset: int,
        limit: int,
        created_before: datetime | None = None,
    ) -> tuple[int, list[dict[str, Any]]]:
        """The records matching every filter, most recently updated first: how many, and the
        ``limit`` from ``offset`` on (filtered and sorted as arrays). ``before`` is on the
        time of the last change, ``created_before`` on when the words were said."""
        records = self.live_records()
        mask = pa.array(np.ones(len(records), dtype=bool))
        if created_before is not None:
            moment = pa.scalar(created_before, records["created_at"].type)
            mask = pc.and_(mask, pc.less(records["created_at"], moment))
        if scopes is not None:
            mask = pc.and_(mask, pc.is_in(records["scope"], pa.array(list(scopes), pa.string())))
        if categories:
            mask = pc.and_(mask, pc.is_in(records["category"], pa.array(list(categories))))
        if before is not None:
            moment = pa.scalar(before, records["updated_at"].type)
            mask = pc.and_(mask, pc.less(records["updated_at"], moment))
        records = records.filter(mask)
        if tags:
            wanted = set(tags)
            keep = [wanted <= set(row or []) for row in records["tags"].to_pylist()]
            records = records.filter(pa.array(keep, pa.bool_()))
        order = pc.sort_indices(records, sort_keys=[("updated_at", "descending")])
        return len(records), records.take(order[offset : offset + limit]).to_pylist()

    def tally(self, scopes: Sequence[str] | None) -> tuple[dict[str, int], dict[str, int]]:
        """How many live memories in ``scopes`` (None: every scope) there are of each category,
        and how many were created in each ISO week (``2026-W49``), counted as arrays."""
        records = self.live_records()
        if scopes is not None:
            wanted = pa.array(list(scopes), pa.string())
            records = records.filter(pc.is_in(records["scope"], wanted))
        weeks = pc.strftime(records["created_at"], format="%G-W%V")
        return _counts(records["category"]), _counts(weeks)

    def ids_starting(self, prefix: str) -> list[str]:
        """The ids of live memories that start with ``prefix``."""
        return [
            memory_id
            for memory_id, position in self.positions.items()
            if memory_id.startswith(prefix) and position < self.size and self.alive[position]
        ]

    def find_hash(self, scope: str, category: str, digest: str) -> list[str]:
        """The ids of the live memories in ``scope`` and ``category`` with this content hash."""
        matches = pc.equal(self.records.column("content_hash"), digest).to_numpy(
            zero_copy_only=False
        )
        found = []
        for position in np.flatnonzero(matches[: self.size] & self.alive):
            row = self.records.slice(int(position), 1).to_pylist()[0]
            if row["scope"] == scope and row["category"] == category:
                found.append(str(row["id"]))
        return found

    def _mask(self, codes: IntArray, values: Sequence[str] | None) -> BoolArray | None:
        if not values:
            return None
        wanted = [self.vocabulary[value] for value in values if value in self.vocabulary]
        if len(wanted) == 1:  # the usual case (one scope, one category): a plain comparison
            equal: BoolArray = codes == wanted[0]
            return equal
        return np.isin(codes, wanted) if wanted else np.zeros(len(codes), dtype=bool)

    def search(
        self,
        query: Vector,
        limit: int,
        *,
        scopes: Sequence[str] | None = None,
        categories: Sequence[str] | None = None,
    ) -> list[tuple[str, float]]:
        """(id, cosine similarity) of the ``limit`` closest live vectors passing the filters."""
        limit = min(limit, self.size)
        if limit <= 0:
            return []
        # all rows (cheaper than copying a filtered matrix), on this thread (encoders.blas)
        similarities = matrix_vector(self.matrix, query)
        allowed = self.alive
        for mask in (
            self._mask(self.scope_codes, scopes),
            self._mask(self.category_codes, categories),
        ):
            if mask is not None:
                allowed = allowed & mask
        if not allowed.all():
            similarities = np.where(allowed, similarities, -np.inf)
            limit = min(limit, int(allowed.sum()))
            if limit == 0:
                return []
        top = np.argpartition(-similarities, limit - 1)[:limit]
        top = top[np.argsort(-similarities[top])]
        identifiers = self.records.column("id")
        return [(identifiers[int(row)].as_py(), float(similarities[row])) for row in top]

    def changed(
        self,
        version: int,
        upserted: pa.Table | None,
        vectors: Matrix | None,
        deleted: Sequence[str],
        *,
        addresses: IntArray | None = None,
    ) -> Snapshot:
        """This snapshot after a commit that upserted ``upserted`` rows and deleted ``deleted``
        (``addresses``: the upserted rows' row addresses, when read from the table)."""
        new_ids = upserted.column("id").to_pylist() if upserted is not None else []
        stale = self._positions([*deleted, *new_ids])
        alive = self.alive.copy()
        alive[stale] = False
        positions = self.positions if not stale else dict(self.positions)  # shared when append-only
        for memory_id in deleted:
            positions.pop(memory_id, None)
        records, buffer = self.records, self.buffer
        scope_codes, category_codes = self.scope_codes, self.category_codes
        row_addresses = self.addresses
        if upserted is not None and vectors is not None and len(new_ids):
            rows = upserted.select(records.column_names).cast(records.schema)
            records = pa.concat_tables([records, rows])
            if records.column(0).num_chunks > MAX_CHUNKS:
                records = records.combine_chunks()
            if buffer.size != self.size:  # another snapshot already appended here: branch off
                buffer = VectorBuffer(self.matrix)
            buffer = buffer.append(np.asarray(vectors, dtype=np.float32))
            alive = np.concatenate([alive, np.ones(len(new_ids), dtype=bool)])
            appended = addresses if addresses is not None else np.full(len(new_ids), -1)
            row_addresses = np.concatenate([row_addresses, appended.astype(np.int64)])
            scope_codes = np.concatenate(
                [scope_codes, _codes(rows.column("scope").to_pylist(), self.vocabulary)]
            )
            category_codes = np.concatenate(
                [category_codes, _codes(rows.column("category").to_pylist(), self.vocabulary)]
            )
            for offset, memory_id in enumerate(new_ids):
                positions[memory_id] = self.size + offset
        return Snapshot(
            version,
            records,
            buffer,
            self.size + len(new_ids),
            alive,
            scope_codes,
            category_codes,
            self.vocabulary,
            positions,
            row_addresses,
            self.fragments,
        )

    def touched(
        self, version: int, memory_ids: Sequence[str], when: datetime, times: int = 1
    ) -> Snapshot:
        """This snapshot with the access statistics of ``memory_ids`` bumped, as the table was."""
        rows = self._positions(memory_ids)
        counts = self.records.column("access_count").to_numpy(zero_copy_only=False).copy()
        counts[rows] += times
        accessed = self.records.column("last_accessed_at").to_pylist()
        for row in rows:
            accessed[row] = when
        schema = self.records.schema
        records = self.records.set_column(
            schema.get_field_index("access_count"), schema.field("access_count"), pa.array(counts)
        )
        index = schema.get_field_index("last_accessed_at")
        records = records.set_column(
            index, schema.field(index), pa.array(accessed, schema.field(index).type)
        )
        return replace(self, version=version, records=records)


class SnapshotCache:
    """Keeps a Snapshot in step with the table version.

    ``load(previous, version)`` gives the snapshot of ``version``, from ``previous`` (the one
    held, possibly None) when it can (``store.catch_up``).
    """

    def __init__(self, load: Callable[[Snapshot | None, int], Snapshot]) -> None:
        self._load = load
        self._snapshot: Snapshot | None = None
        self._lock = threading.Lock()

    def snapshot(self, current_version: int) -> Snapshot:
        snapshot = self._snapshot
        if snapshot is not None and snapshot.version == current_version:
            return snapshot
        with self._lock:
            if self._snapshot is None or self._snapshot.version != current_version:
                loaded = self._load(self._snapshot, current_version)
                self._snapshot = loaded if not _sparse(loaded) else self._load(None, loaded.version)
            return self._snapshot

    def latest(self) -> Snapshot | None:
        """The snapshot last loaded or advanced, whatever its version (None if dropped)."""
        return self._snapshot

    def invalidate(self) -> None:
        self._snapshot = None

    def advance(
        self, before: int, after: int, change: Callable[[Snapshot], Snapshot] | None = None
    ) -> None:
        """Apply the commit ``before`` -> ``after`` this process just made (None: rows unchanged).

        A snapshot of any other version is kept as it is: the next read brings it up to date.
        """
        with self._lock:
            snapshot = self._snapshot
            if snapshot is None or snapshot.version != before:
                return
            changed = change(snapshot) if change else replace(snapshot, version=after)
            # Rewritten rows leave dead positions behind; past a quarter, reload compactly.
            self._snapshot = None if _sparse(changed) else changed


def _counts(values: pa.ChunkedArray | pa.Array) -> dict[str, int]:
    """Each distinct value and how many times it occurs."""
    return {str(row["values"]): int(row["counts"]) for row in pc.value_counts(values).to_pylist()}


def _sparse(snapshot: Snapshot) -> bool:
    dead = snapshot.size - int(snapshot.alive.sum())
    return dead > max(MAX_DEAD_ROWS, snapshot.size // 4)
