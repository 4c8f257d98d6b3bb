"""Sliding-window rate limits per key (an agent), with an injectable clock."""

from __future__ import annotations

import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable

from openclaw_tinmem.errors import RateLimitError

MINUTE = 60.0
HOUR = 3600.0


class RateLimiter:
    """At most ``per_minute`` calls in any 60 s and ``per_hour`` in any 3600 s, per key."""

    def __init__(
        self, per_minute: int, per_hour: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limits = ((MINUTE, per_minute), (HOUR, per_hour))
        self.clock = clock
        self._calls: dict[str, deque[float]] = defaultdict(deque)
        self._lock = threading.Lock()

    def check(self, key: str, tool: str) -> None:
        """Record a call, or raise RateLimitError saying when the next one is allowed."""
        with self._lock:
            now = self.clock()
            calls = self._calls[key]
            while calls and now - calls[0] >= HOUR:
                calls.popleft()
            for window, limit in self.limits:
                recent = [moment for moment in calls if now - moment < window]
                if len(recent) >= limit:
                    retry_after = window - (now - recent[-limit])
                    unit = "minute" if window == MINUTE else "hour"
                    raise RateLimitError(
                        f"{tool} is limited to {limit} calls per {unit}; retry in "
                        f"{retry_after:.0f} s",
                        retry_after_seconds=retry_after,
                    )
            calls.append(now)
