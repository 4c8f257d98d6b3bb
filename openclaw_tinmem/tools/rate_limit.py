"""Sliding-window rate limits per key (an agent), shared by every process on the machine.

Calls are recorded in a small SQLite file (beside the capture journal), so the limits hold
across processes: each ``tinmem tool`` run, each MCP server and each host count against the
same windows. SQLite serialises the check-and-record of concurrent callers.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from openclaw_tinmem.directories import private_directory
from openclaw_tinmem.errors import ConfigError, RateLimitError

MINUTE = 60.0
HOUR = 3600.0
SCHEMA = "CREATE TABLE IF NOT EXISTS calls (key TEXT NOT NULL, at REAL NOT NULL)"
INDEX = "CREATE INDEX IF NOT EXISTS calls_by_key ON calls (key, at)"
BUSY_TIMEOUT_SECONDS = 10.0


class RateLimiter:
    """At most ``per_minute`` calls in any 60 s and ``per_hour`` in any 3600 s, per key."""

    def __init__(
        self,
        per_minute: int,
        per_hour: int,
        path: Path,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.limits = ((MINUTE, per_minute), (HOUR, per_hour))
        self.path = path
        self.clock = clock
        private_directory(path.parent, setting="journal_path")
        with self._connection() as connection:
            connection.execute(SCHEMA)
            connection.execute(INDEX)

    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        """A connection to the counts, closed after; a file that cannot be opened or written
        (a read-only journal directory, a full disk) is a ``ConfigError`` naming the setting."""
        connection: sqlite3.Connection | None = None
        try:
            connection = sqlite3.connect(
                self.path, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None
            )
            yield connection
        except sqlite3.Error as error:
            raise ConfigError(
                f"journal_path: the write counts in {str(self.path)!r} cannot be used: {error}",
                field="journal_path",
            ) from None
        finally:
            if connection is not None:
                connection.close()

    def check(self, key: str, tool: str) -> float:
        """Record a call (returning its moment, for ``release``), or raise RateLimitError
        saying when the next one is allowed."""
        with self._connection() as connection:
            connection.execute("BEGIN IMMEDIATE")  # one writer at a time, across processes
            now = self.clock()
            connection.execute("DELETE FROM calls WHERE key = ? AND at <= ?", (key, now - HOUR))
            moments = [
                row[0]
                for row in connection.execute(
                    "SELECT at FROM calls WHERE key = ? ORDER BY at", (key,)
                )
            ]
            for window, limit in self.limits:
                recent = [moment for moment in moments if now - moment < window]
                if len(recent) >= limit:
                    connection.execute("ROLLBACK")
                    retry_after = window - (now - recent[-limit])
                    unit = "minute" if window == MINUTE else "hour"
                    raise RateLimitError(
                        f"{tool} is limited to {limit} calls per {unit}; retry in "
                        f"{retry_after:.0f} s",
                        retry_after_seconds=retry_after,
                    )
            connection.execute("INSERT INTO calls (key, at) VALUES (?, ?)", (key, now))
            connection.execute("COMMIT")
        return now

    def release(self, key: str, moment: float) -> None:
        """Take back a call recorded at ``moment`` that was refused, so it does not count."""
        with self._connection() as connection:
            connection.execute(
                "DELETE FROM calls WHERE rowid = "
                "(SELECT rowid FROM calls WHERE key = ? AND at = ? LIMIT 1)",
                (key, moment),
            )
