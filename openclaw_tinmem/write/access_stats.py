"""Access statistics gathered in memory and written now and then, not on every read.

Recall must not commit: a table version per recall costs disk, slows object stores and
contends with writers. ``AccessTally`` counts the memories recalled in this process and says
when the counts are due to be written — ``every_seconds`` after the last write, or when
``max_pending`` memories are waiting — so a busy agent writes its access statistics in a few
commits every few minutes, whatever its number of recalls. Counts not yet written when a
process dies are lost: they are statistics, nothing reads them to decide what to keep.
``AccessRecorder`` is the write: the store's ``record_access``, on a thread of its own.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime

from openclaw_tinmem.store.table import MemoryStore

logger = logging.getLogger("openclaw_tinmem")

# Memories waiting at most: past this many the counts are written whatever the time.
MAX_PENDING_MEMORIES = 1000


@dataclass(frozen=True)
class AccessCount:
    """How many times a memory was recalled since the last write, and when last."""

    times: int
    last: datetime


class AccessTally:
    """Counts recalls per memory until they are taken to be written."""

    def __init__(
        self,
        every_seconds: float,
        *,
        max_pending: int = MAX_PENDING_MEMORIES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.every_seconds = every_seconds
        self.max_pending = max_pending
        self._clock = clock
        self._lock = threading.Lock()
        self._pending: dict[str, AccessCount] = {}
        self._last_taken = clock()
        self._announced = False  # "due" was said once and nobody has taken the counts yet

    def note(self, memory_ids: Iterable[str], when: datetime) -> bool:
        """Count one recall of each of ``memory_ids``; True when the counts are due."""
        with self._lock:
            for memory_id in memory_ids:
                known = self._pending.get(memory_id)
                times = known.times + 1 if known else 1
                last = max(known.last, when) if known else when
                self._pending[memory_id] = AccessCount(times, last)
            if self._announced or not self._due():
                return False
            self._announced = True
            return True

    def _due(self) -> bool:
        if not self._pending:
            return False
        waited = self._clock() - self._last_taken
        return waited >= self.every_seconds or len(self._pending) >= self.max_pending

    def take(self) -> dict[str, AccessCount]:
        """The counts gathered so far, and start again from none."""
        with self._lock:
            pending, self._pending = self._pending, {}
            self._last_taken = self._clock()
            self._announced = False
            return pending

    def __len__(self) -> int:
        with self._lock:
            return len(self._pending)


def by_times(counts: dict[str, AccessCount]) -> list[tuple[int, list[str], datetime]]:
    """``counts`` as one write each per number of recalls: (times, memory ids, last access).

    The store adds one number to every row of a write, so memories recalled the same number
    of times go together (a handful of groups); their last access is the group's latest."""
    groups: dict[int, list[str]] = {}
    for memory_id, count in counts.items():
        groups.setdefault(count.times, []).append(memory_id)
    return [
        (times, memory_ids, max(counts[memory_id].last for memory_id in memory_ids))
        for times, memory_ids in sorted(groups.items())
    ]


class AccessRecorder:
    """Counts the memories recall returns and writes the counts when due, in the background."""

    def __init__(self, store: MemoryStore, every_seconds: float) -> None:
        self.store = store
        self.tally = AccessTally(every_seconds)
        self._background = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tinmem-access")

    def recalled(self, memory_ids: Iterable[str], when: datetime) -> None:
        """Count one recall of each memory; queue the write when the counts are due."""
        if self.tally.note(memory_ids, when):
            self._background.submit(self.write)

    def write(self) -> None:
        """Write the counts gathered since the last time (a commit per number of recalls)."""
        for times, memory_ids, last in by_times(self.tally.take()):
            try:
                self.store.record_access(memory_ids, last, times)
            except Exception:  # access statistics are best-effort and must never break recall
                logger.warning("could not record memory access", exc_info=True)

    def close(self) -> None:
        """Write what is still counted and wait for it."""
        if len(self.tally):
            self._background.submit(self.write)
        self._background.shutdown(wait=True)
