"""An in-process copy of the table's vectors for exact, fast nearest-neighbour search.

Memory stores are small (thousands to a few hundred thousand rows), where exact search over a
float32 matrix beats any ANN index in both latency and recall. The copy is keyed by the
table version and reloaded when another writer (or this one) commits a new version.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from openclaw_tinmem.embeddings import Matrix, Vector


@dataclass(frozen=True)
class VectorSnapshot:
    """The vectors of one table version with the columns needed to filter them."""

    version: int
    ids: npt.NDArray[np.object_]
    scopes: npt.NDArray[np.object_]
    categories: npt.NDArray[np.object_]
    matrix: Matrix

    @classmethod
    def from_arrow(cls, version: int, table: pa.Table, dimension: int) -> VectorSnapshot:
        vectors = table.column("vector").combine_chunks()
        if len(vectors):
            values = vectors.flatten().to_numpy(zero_copy_only=False)
            matrix = np.ascontiguousarray(values, dtype=np.float32).reshape(-1, dimension)
        else:
            matrix = np.zeros((0, dimension), dtype=np.float32)
        return cls(
            version=version,
            ids=np.asarray(table.column("id").to_pylist(), dtype=object),
            scopes=np.asarray(table.column("scope").to_pylist(), dtype=object),
            categories=np.asarray(table.column("category").to_pylist(), dtype=object),
            matrix=matrix,
        )

    def search(
        self,
        query: Vector,
        limit: int,
        *,
        scopes: Sequence[str] | None = None,
        categories: Sequence[str] | None = None,
    ) -> list[tuple[str, float]]:
        """(id, cosine similarity) of the ``limit`` closest vectors passing the filters."""
        if len(self.ids) == 0 or limit <= 0:
            return []
        mask = np.ones(len(self.ids), dtype=bool)
        if scopes:
            mask &= np.isin(self.scopes, list(scopes))
        if categories:
            mask &= np.isin(self.categories, list(categories))
        positions = np.flatnonzero(mask)
        if len(positions) == 0:
            return []
        matrix = self.matrix if len(positions) == len(self.ids) else self.matrix[positions]
        similarities = matrix @ query
        count = min(limit, len(similarities))
        top = np.argpartition(-similarities, count - 1)[:count]
        top = top[np.argsort(-similarities[top])]
        return [(str(self.ids[positions[i]]), float(similarities[i])) for i in top]


class VectorIndex:
    """Keeps a VectorSnapshot in step with the table version, reloading on change."""

    def __init__(self, load: Callable[[], tuple[int, pa.Table]], dimension: int) -> None:
        self._load = load
        self._dimension = dimension
        self._snapshot: VectorSnapshot | None = None
        self._lock = threading.Lock()

    def snapshot(self, current_version: int) -> VectorSnapshot:
        snapshot = self._snapshot
        if snapshot is not None and snapshot.version == current_version:
            return snapshot
        with self._lock:
            if self._snapshot is None or self._snapshot.version != current_version:
                version, table = self._load()
                self._snapshot = VectorSnapshot.from_arrow(version, table, self._dimension)
            return self._snapshot

    def invalidate(self) -> None:
        self._snapshot = None
