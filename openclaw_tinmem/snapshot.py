"""An in-process copy of the memories table for exact vector search and instant lookups.

Memory stores are small (thousands to a few hundred thousand rows), where exact search over a
float32 matrix beats any ANN index in both latency and recall. The copy is keyed by the table
version: a commit made by this process (under the write lock, so nothing else can interleave)
is applied to the copy directly; any other change makes the next read reload it.
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

from openclaw_tinmem.embeddings import Matrix, Vector

IntArray = npt.NDArray[np.int64]


def _codes(values: Sequence[str], vocabulary: dict[str, int]) -> IntArray:
    """Integer codes of ``values``; new values are added to ``vocabulary``."""
    return np.fromiter(
        (vocabulary.setdefault(value, len(vocabulary)) for value in values),
        dtype=np.int64,
        count=len(values),
    )


@dataclass(frozen=True)
class Snapshot:
    """The rows of one table version: records (no vectors), vectors and filter codes."""

    version: int
    records: pa.Table
    matrix: Matrix
    scope_codes: IntArray
    category_codes: IntArray
    vocabulary: dict[str, int]
    positions: dict[str, int]

    @classmethod
    def from_arrow(
        cls, version: int, table: pa.Table, dimension: int, vocabulary: dict[str, int] | None = None
    ) -> Snapshot:
        vocabulary = dict(vocabulary or {})
        vectors = table.column("vector").combine_chunks()
        if len(vectors):
            values = vectors.flatten().to_numpy(zero_copy_only=False)
            matrix = np.ascontiguousarray(values, dtype=np.float32).reshape(-1, dimension)
        else:
            matrix = np.zeros((0, dimension), dtype=np.float32)
        records = table.drop_columns(["vector"]).combine_chunks()
        ids = records.column("id").to_pylist()
        return cls(
            version=version,
            records=records,
            matrix=matrix,
            scope_codes=_codes(records.column("scope").to_pylist(), vocabulary),
            category_codes=_codes(records.column("category").to_pylist(), vocabulary),
            vocabulary=vocabulary,
            positions={memory_id: position for position, memory_id in enumerate(ids)},
        )

    def rows(self, memory_ids: Sequence[str]) -> list[dict[str, Any]]:
        """The records of the given ids that exist, in the given order."""
        found = [self.positions[i] for i in memory_ids if i in self.positions]
        return self.records.take(found).to_pylist() if found else []

    def vectors_of(self, memory_ids: Sequence[str]) -> list[Vector]:
        return [self.matrix[self.positions[i]] for i in memory_ids if i in self.positions]

    def _mask(self, codes: IntArray, values: Sequence[str] | None) -> npt.NDArray[np.bool_] | None:
        if not values:
            return None
        wanted = [self.vocabulary[value] for value in values if value in self.vocabulary]
        return np.isin(codes, wanted) if wanted else np.zeros(len(codes), dtype=bool)

    def search(
        self,
        query: Vector,
        limit: int,
        *,
        scopes: Sequence[str] | None = None,
        categories: Sequence[str] | None = None,
    ) -> list[tuple[str, float]]:
        """(id, cosine similarity) of the ``limit`` closest vectors passing the filters."""
        if len(self.matrix) == 0 or limit <= 0:
            return []
        similarities = self.matrix @ query  # all rows: cheaper than copying a filtered matrix
        masks = [
            mask
            for mask in (
                self._mask(self.scope_codes, scopes),
                self._mask(self.category_codes, categories),
            )
            if mask is not None
        ]
        if masks:
            allowed = np.logical_and.reduce(masks)
            if not allowed.any():
                return []
            similarities = np.where(allowed, similarities, -np.inf)
            limit = min(limit, int(allowed.sum()))
        count = min(limit, len(similarities))
        top = np.argpartition(-similarities, count - 1)[:count]
        top = top[np.argsort(-similarities[top])]
        identifiers = self.records.column("id")
        return [(identifiers[int(row)].as_py(), float(similarities[row])) for row in top]

    def changed(
        self,
        version: int,
        upserted: pa.Table | None,
        vectors: Matrix | None,
        deleted: Sequence[str],
    ) -> Snapshot:
        """A snapshot with ``deleted`` and re-written ids removed and ``upserted`` appended."""
        removed = set(deleted)
        if upserted is not None:
            removed.update(upserted.column("id").to_pylist())
        keep = np.ones(len(self.matrix), dtype=bool)
        for memory_id in removed:
            if memory_id in self.positions:
                keep[self.positions[memory_id]] = False
        records = self.records.filter(pa.array(keep))
        matrix = self.matrix[keep]
        if upserted is not None and vectors is not None:
            records = pa.concat_tables(
                [records, upserted.select(records.column_names).cast(records.schema)]
            )
            matrix = np.concatenate([matrix, np.asarray(vectors, dtype=np.float32)])
        table = records.append_column("vector", pa.FixedSizeListArray.from_arrays(
            pa.array(matrix.ravel(), pa.float32()), matrix.shape[1]))  # fmt: skip
        return Snapshot.from_arrow(version, table, matrix.shape[1], self.vocabulary)

    def touched(self, version: int, memory_ids: Sequence[str], when: datetime) -> Snapshot:
        """A snapshot with the access statistics of ``memory_ids`` bumped, as the table was."""
        rows = [self.positions[i] for i in memory_ids if i in self.positions]
        counts = self.records.column("access_count").to_numpy(zero_copy_only=False).copy()
        counts[rows] += 1
        accessed = self.records.column("last_accessed_at").to_pylist()
        for row in rows:
            accessed[row] = when
        records = self.records.set_column(
            self.records.schema.get_field_index("access_count"), "access_count", pa.array(counts)
        )
        index = records.schema.get_field_index("last_accessed_at")
        records = records.set_column(
            index, records.schema.field(index), pa.array(accessed, records.schema.field(index).type)
        )
        return replace(self, version=version, records=records)


class SnapshotCache:
    """Keeps a Snapshot in step with the table version."""

    def __init__(self, load: Callable[[], tuple[int, pa.Table]], dimension: int) -> None:
        self._load = load
        self._dimension = dimension
        self._snapshot: Snapshot | None = None
        self._lock = threading.Lock()

    def snapshot(self, current_version: int) -> Snapshot:
        snapshot = self._snapshot
        if snapshot is not None and snapshot.version == current_version:
            return snapshot
        with self._lock:
            if self._snapshot is None or self._snapshot.version != current_version:
                version, table = self._load()
                self._snapshot = Snapshot.from_arrow(version, table, self._dimension)
            return self._snapshot

    def invalidate(self) -> None:
        self._snapshot = None

    def advance(
        self, before: int, after: int, change: Callable[[Snapshot], Snapshot] | None = None
    ) -> None:
        """Apply the commit ``before`` -> ``after`` this process just made (None: rows unchanged).

        A snapshot of any other version is dropped and reloaded on the next read.
        """
        with self._lock:
            snapshot = self._snapshot
            if snapshot is None or snapshot.version != before:
                self._snapshot = None
                return
            self._snapshot = change(snapshot) if change else replace(snapshot, version=after)
