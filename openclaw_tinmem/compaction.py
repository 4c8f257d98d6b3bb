"""Table upkeep: compact small files, fold new rows into the indexes, prune old versions.

LanceDB's ``Table.optimize`` does all three, but it compacts towards fragments of about a
million rows. Every smaller fragment is a candidate, so in a memory store (far fewer rows)
each call rewrote the whole table, token vectors included, while holding the write lock:
0.4–0.9 s at 10,000 memories and 1.6–2.8 s at 40,000, once every ``optimize_every_writes``
writes. Lance's own API (``pylance``, the library LanceDB is built on) takes the target as
a parameter: fragments that have reached ``TARGET_ROWS_PER_FRAGMENT`` rows are left alone,
and a call rewrites only what was written since they filled.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from lancedb.table import LanceTable

# Small enough that the fragment still filling is cheap to rewrite, large enough that a store
# of 100,000 memories has a dozen fragments rather than hundreds.
TARGET_ROWS_PER_FRAGMENT = 8192


def optimize_table(
    table: Any, retention: timedelta, target_rows: int = TARGET_ROWS_PER_FRAGMENT
) -> None:
    """Compact ``table`` (a LanceDB table) towards fragments of ``target_rows`` rows, add new
    rows to its indexes and delete the files of versions older than ``retention``."""
    # Only a local or object-store table has a Lance dataset: every lancedb Table declares
    # to_lance, but a remote one raises NotImplementedError, and optimises itself.
    if not isinstance(table, LanceTable):
        table.optimize(cleanup_older_than=retention)
        return
    dataset = table.to_lance()  # each step below moves it to the version it commits
    dataset.optimize.compact_files(target_rows_per_fragment=target_rows)
    dataset.optimize.optimize_indices()
    dataset.cleanup_old_versions(older_than=retention)
