"""Table upkeep: compact small files, fold new rows into the indexes, prune old versions.

LanceDB's ``Table.optimize`` does all three, but it compacts towards fragments of about a
million rows. Every smaller fragment is a candidate, so in a memory store (far fewer rows)
each call rewrote the whole table, token vectors included, while holding the write lock:
0.4–0.9 s at 10,000 memories and 1.6–2.8 s at 40,000, once every ``optimize_every_writes``
writes. Lance's own API (``pylance``, the library LanceDB is built on) takes the target as
a parameter: fragments that have reached ``TARGET_ROWS_PER_FRAGMENT`` rows are left alone,
and a call rewrites only what was written since they filled.

Upkeep still takes a few hundred milliseconds (more as a store grows), so it runs on a
background thread (``UpkeepScheduler``): the write that makes it due returns at once instead
of carrying it, and a failed upkeep is logged and tried again after further writes.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import timedelta
from typing import Any

from lancedb.table import LanceTable

from openclaw_tinmem.config import Settings
from openclaw_tinmem.store.conditional import lost_a_race
from openclaw_tinmem.store.lease import Lease

logger = logging.getLogger("openclaw_tinmem")

# Small enough that the fragment still filling is cheap to rewrite, large enough that a store
# of 100,000 memories has a dozen fragments rather than hundreds.
TARGET_ROWS_PER_FRAGMENT = 8192
# how often a purge waiting for another host's upkeep asks for the lease again (each ask is
# a commit to the lease table)
LEASE_POLL_SECONDS = 2.0


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


def upkeep_under_lease(
    table: Any, lease: Lease, retention: timedelta, settings: Settings, wait_seconds: float = 0.0
) -> bool:
    """Upkeep of a table on an object store, if this host gets the lease within
    ``wait_seconds``; False if another host holds it (and tidies the same table). Other hosts
    go on writing meanwhile: Lance retries a commit that meets the compaction's, and versions
    younger than the retention (which readers on other hosts may still be reading) are kept."""
    deadline = time.monotonic() + wait_seconds
    while not lease.acquire():
        if time.monotonic() >= deadline:
            logger.info("upkeep skipped: another host holds the lease %s", lease.holder_now())
            return False
        time.sleep(LEASE_POLL_SECONDS)
    try:
        optimize_table(table, retention)
        lease.tidy(max(retention.total_seconds(), settings.version_retention_seconds))
    finally:
        lease.release()
    return True


class UpkeepScheduler:
    """Runs upkeep jobs on one background thread, one job per name at a time.

    A job whose name is already queued or running is not queued again. ``wrote`` counts a
    table's writes and queues its upkeep every so many; while one is still pending the count
    goes on, and the next write asks again.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._executor: ThreadPoolExecutor | None = None
        self._pending: dict[str, Future[None]] = {}
        self._writes: dict[str, int] = {}

    def wrote(self, name: str, every: int, job: Callable[[], object], failure_message: str) -> bool:
        """Count one write to ``name``'s table; from the ``every``-th on, queue ``job`` unless
        one named ``name`` is pending. True if it was queued."""
        with self._lock:
            self._writes[name] = self._writes.get(name, 0) + 1
            if self._writes[name] < every or not self._queue(name, job, failure_message):
                return False
            self._writes[name] = 0
            return True

    def _queue(self, name: str, job: Callable[[], object], failure_message: str) -> bool:
        pending = self._pending.get(name)
        if pending is not None and not pending.done():
            return False
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tinmem-upkeep")
        self._pending[name] = self._executor.submit(self._run, job, failure_message)
        return True

    @staticmethod
    def _run(job: Callable[[], object], failure_message: str) -> None:
        try:
            job()
        except Exception as error:  # the writes are committed; upkeep is retried later
            if lost_a_race(error):  # another host's write came first
                logger.info("%s: %s", failure_message, str(error).split(",")[0])
            else:
                logger.warning(failure_message, exc_info=True)

    def wait(self) -> None:
        """Block until every queued job has finished. Never call it holding a write lock."""
        with self._lock:
            pending = list(self._pending.values())
        for future in pending:
            future.result()

    def close(self) -> None:
        """Finish queued jobs and release the thread (a later job starts a new one)."""
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True)
