"""Leases: work that one host at a time should do on a shared store (upkeep).

A lease is a row of a small LanceDB table beside the memories — ``name``, ``holder`` and
``expires_at`` — taken with the same conditional write the memories use: the row is claimed
only if it has expired or is already ours, and LanceDB's commit lets one claimant win. No
lock service and no second client library: whatever store the memories are on, so are the
leases. A holder that dies without releasing blocks the work only until the lease expires.
Expiry is wall-clock time, so hosts' clocks must agree to well within ``seconds`` (NTP).
"""

from __future__ import annotations

import logging
import os
import socket
import time
import uuid
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pyarrow as pa

logger = logging.getLogger("openclaw_tinmem")

LEASE_TABLE_NAME = "tinmem_leases"
LEASE_SCHEMA = pa.schema(
    [
        pa.field("name", pa.string(), nullable=False),
        pa.field("holder", pa.string(), nullable=False),
        pa.field("expires_at", pa.int64(), nullable=False),  # milliseconds since the epoch
    ]
)


def new_holder() -> str:
    """Who holds a lease, readable in the table: host, process and a random suffix."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


class Lease:
    """A named lease on ``database``: ``acquire`` it, do the work, ``release`` it."""

    def __init__(
        self,
        database: Any,
        name: str,
        seconds: float,
        *,
        holder: str | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.database = database
        self.name = name
        self.seconds = seconds
        self.holder = holder or new_holder()
        self.clock = clock
        self._table: Any = None

    def _row(self, holder: str, expires_at: int) -> pa.Table:
        row = {"name": self.name, "holder": holder, "expires_at": expires_at}
        return pa.Table.from_pylist([row], schema=LEASE_SCHEMA)

    def _open(self) -> Any:
        if self._table is None:
            table = self.database.create_table(LEASE_TABLE_NAME, schema=LEASE_SCHEMA, exist_ok=True)
            # The lease's row, if no host made it yet (a second maker's insert matches, no-op).
            table.merge_insert("name").when_not_matched_insert_all().execute(self._row("", 0))
            self._table = table
        return self._table

    def acquire(self) -> bool:
        """Claim the lease for ``seconds`` if it is free, expired or ours; True if we hold it."""
        table = self._open()
        now = int(self.clock() * 1000)
        claim = self._row(self.holder, now + int(self.seconds * 1000))
        free = f"target.expires_at < {now} OR target.holder = {_quoted(self.holder)}"
        result = table.merge_insert("name").when_matched_update_all(where=free).execute(claim)
        return int(result.num_updated_rows) == 1

    def release(self) -> None:
        """Give the lease up early (only if we still hold it)."""
        table = self._open()
        ours = f"target.holder = {_quoted(self.holder)}"
        table.merge_insert("name").when_matched_update_all(where=ours).execute(self._row("", 0))

    def holder_now(self) -> tuple[str, int]:
        """(holder, expires_at in ms) as the table says now."""
        rows = self._open().search().where(f"name = {_quoted(self.name)}").limit(1).to_list()
        return (rows[0]["holder"], int(rows[0]["expires_at"])) if rows else ("", 0)

    def tidy(self, retention_seconds: float) -> None:
        """Prune the lease table's old versions (each claim commits one)."""
        self._open().optimize(cleanup_older_than=timedelta(seconds=retention_seconds))
