"""Reads of a LanceDB table asked of Lance itself, where the table has a Lance dataset.

LanceDB's synchronous query API runs each query on its own event-loop thread and converts
the result row by row; for a short query that wrapping costs more than the query. At 10,000
memories a full-text search took 4.6 ms p50 through it and 1.7 ms asked of the dataset, and
reading the token vectors of 200 candidates 15 against 12 ms (docs/benchmarks.md). A local or
object-store table keeps one Lance dataset here, moved to the version the store reads (a
cheap checkout of a manifest), and asks it directly: the same indexes, the same rows and
scores, rows not yet in an index scanned as before. A remote table has no dataset, and a
dataset that cannot be opened is no reason to fail a read: both are asked through LanceDB.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any

from lance.query import MatchQuery as LanceMatchQuery
from lancedb.query import MatchQuery
from lancedb.table import LanceTable

logger = logging.getLogger("openclaw_tinmem")


class LanceReader:
    """Reads of the table ``table()`` returns (it may be replaced; its path stays)."""

    def __init__(self, table: Callable[[], Any]) -> None:
        self._table = table
        self._lock = threading.Lock()
        self._dataset: Any = None  # the Lance dataset last read

    def text_search(
        self, column: str, text: str, limit: int, *, where: str | None, version: int
    ) -> list[tuple[str, float]]:
        """(id, BM25 score) of the best ``limit`` matches of ``text`` in ``column`` at table
        ``version``. ``text`` is a match query (any of its words), never parsed as syntax."""
        table = self._table()
        dataset = self._dataset_at(table, version)
        if dataset is None:
            match = MatchQuery(text, column)  # type: ignore[call-arg]
            query = table.search(match, query_type="fts")
            if where:
                query = query.where(where, prefilter=True)
            rows = query.select(["id", "_score"]).limit(limit).to_list()
            return [(row["id"], float(row["_score"])) for row in rows]
        result = dataset.to_table(
            full_text_query=LanceMatchQuery(text, column),
            columns=["id", "_score"],
            filter=where or None,
            prefilter=True,
            limit=limit,
        )
        ids = result.column("id").to_pylist()
        scores = result.column("_score").to_pylist()
        return [(row_id, float(score)) for row_id, score in zip(ids, scores, strict=True)]

    def rows(
        self, columns: Sequence[str], where: str | None, *, version: int
    ) -> list[dict[str, Any]]:
        """``columns`` of every row ``where`` selects (None: every row), at table ``version``."""
        table = self._table()
        dataset = self._dataset_at(table, version)
        rows: list[dict[str, Any]]
        if dataset is None:
            query = table.search().where(where) if where else table.search()
            rows = query.select(list(columns)).limit(None).to_list()
        else:
            rows = dataset.to_table(columns=list(columns), filter=where).to_pylist()
        return rows

    def dataset(self, version: int) -> Any:
        """The Lance dataset at ``version`` (the latest if that one is gone); None when the
        table has none or it cannot be opened now."""
        return self._dataset_at(self._table(), version)

    def _dataset_at(self, table: Any, version: int) -> Any:
        """The dataset at ``version`` (the latest if that one is gone); None: ask LanceDB."""
        if not isinstance(table, LanceTable):
            return None
        with self._lock:
            try:
                dataset = self._dataset if self._dataset is not None else table.to_lance()
                if dataset.version != version:
                    try:
                        dataset = dataset.checkout_version(version)
                    except OSError:  # that version is gone (pruned): read the latest
                        dataset = table.to_lance()
            except (OSError, ValueError):  # cannot be opened now (Lance raises ValueError
                # for some I/O errors of an object store): LanceDB may still answer
                logger.debug("reading through LanceDB: no Lance dataset", exc_info=True)
                return None
            self._dataset = dataset
            return dataset
