"""Conditional writes: change a memory only if nobody changed it since it was read.

Hosts that share a store on object storage cannot lock it, so a read-decide-write (a merge,
an update) is made safe the optimistic way: the write names the ``updated_at`` each memory had
when it was read and applies only where the stored row still has it. LanceDB evaluates the
condition inside its commit — a commit that finds a newer version re-runs the merge against it
— so of two hosts changing one memory at once exactly one succeeds; the other is told which
memories it did not write, reads them again and decides again (``write.writer``).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

import pyarrow as pa
import pyarrow.compute as pc

from openclaw_tinmem.errors import StoreError
from openclaw_tinmem.models import validate_memory_id


@dataclass(frozen=True)
class CommitResult:
    version: int  # the table version this commit produced (0: nothing was committed)
    conflicted: frozenset[str]  # ids not written: changed, deleted or created meanwhile
    attempts: int = 1  # LanceDB's commit attempts (more than one: it met a newer version)


def timestamp_literal(moment: datetime) -> str:
    """``moment`` as a SQL timestamp literal, to the microsecond the table keeps, in UTC.

    A plain literal with its offset, not ``arrow_cast`` to the column's type: LanceDB 0.41
    no longer simplifies ``arrow_cast`` inside a merge's condition and fails every such write
    ("arrow_cast should have been simplified to cast")."""
    text = moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
    return f"timestamp '{text}+00:00'"


def unchanged_condition(expected: Mapping[str, datetime]) -> str:
    """A merge condition true for a stored row whose ``updated_at`` is still the expected one
    and whose scope is the written row's: a scope rename (``MemoryStore.rename_scope``) leaves
    ``updated_at`` as it was, and a row read before it must not move the memory back."""
    clauses = [
        f"(target.id = '{validate_memory_id(memory_id)}' "
        f"AND target.updated_at = {timestamp_literal(moment)} AND target.scope = source.scope)"
        for memory_id, moment in expected.items()
    ]
    return " OR ".join(clauses)


def merge_on_id(table: Any) -> Any:
    """A merge-insert into ``table`` keyed on ``id`` that scans the ids rather than using
    their index. A turn's write is a handful of rows, and with the index each merge reads
    every small fragment written since the last upkeep separately: at 10,000 memories a
    one-row merge took 18 ms after upkeep and 52 ms some 50 writes later, against 15 and
    25 ms by scanning (docs/benchmarks.md, "A cheaper turn")."""
    return table.merge_insert("id").use_index(False)


def update_unchanged(table: Any, data: pa.Table, expected: Mapping[str, datetime]) -> CommitResult:
    """Replace the rows of ``data`` whose stored ``updated_at`` is still ``expected[id]``.

    Rows that were changed or deleted meanwhile are left as they are and reported conflicted;
    a deleted row is never written back.
    """
    merge = merge_on_id(table).when_matched_update_all(where=unchanged_condition(expected))
    result = merge.execute(data)
    ids = data.column("id").to_pylist()
    if result.num_updated_rows == len(ids):
        return CommitResult(int(result.version), frozenset(), int(result.num_attempts))
    if result.num_updated_rows == 0:
        return CommitResult(int(result.version), frozenset(ids), int(result.num_attempts))
    # Some applied: read this commit's version to tell which (later commits may change them).
    written = data.select(["id", "updated_at"])
    dataset = table.to_lance().checkout_version(int(result.version))
    stored = dataset.to_table(columns=["id", "updated_at"], filter=pc.field("id").isin(ids))
    ours = {(row["id"], row["updated_at"]) for row in written.to_pylist()}
    applied = {row["id"] for row in stored.to_pylist() if (row["id"], row["updated_at"]) in ours}
    return CommitResult(
        int(result.version), frozenset(set(ids) - applied), int(result.num_attempts)
    )


@dataclass(frozen=True)
class Commit:
    version: int
    rows: list[int]  # positions in the written data of the rows this commit wrote


def write_rows(
    table: Any,
    data: pa.Table,
    stored: set[str],
    expected: Mapping[str, datetime] | None,
    *,
    exclusive: bool = False,
) -> tuple[list[Commit], frozenset[str]]:
    """Write ``data`` (memory rows) to ``table``; returns the commits made and the ids of the
    rows left out because of a conflict. ``stored``: which of the ids are stored now.

    With ``expected``, a row whose id is in it is a conditional update (``update_unchanged``)
    and any other row is new, added only if its id is not stored. Without, rows are inserted
    or replaced by id, unconditionally (administrative rewrites), in one commit.

    ``exclusive``: no other writer can commit meanwhile (a local store under its file lock),
    so ``stored`` is exact and updates and new rows go in one commit. Otherwise they take two:
    one merge that inserts nothing (a row deleted meanwhile must not come back), one append.
    """
    ids = data.column("id").to_pylist()
    everything = list(range(len(ids)))
    if expected is None:
        if stored:
            merge = merge_on_id(table).when_matched_update_all().when_not_matched_insert_all()
            return [Commit(int(merge.execute(data).version), everything)], frozenset()
        return [Commit(int(table.add(data).version), everything)], frozenset()
    commits: list[Commit] = []
    updates = [i for i in everything if ids[i] in expected]
    new = [i for i in everything if ids[i] not in expected]
    conflicted = {ids[i] for i in new if ids[i] in stored}
    new = [i for i in new if ids[i] not in stored]
    if exclusive and updates and new:
        return [_update_and_add(table, data, ids, updates, new, expected)], frozenset(conflicted)
    if updates:
        wanted = {ids[i]: expected[ids[i]] for i in updates}
        result = update_unchanged(table, data.take(pa.array(updates, type=pa.int64())), wanted)
        conflicted |= result.conflicted
        commits.append(Commit(result.version, [i for i in updates if ids[i] not in conflicted]))
    if new:
        added = table.add(data.take(pa.array(new, type=pa.int64())))
        commits.append(Commit(int(added.version), new))
    return commits, frozenset(conflicted)


def _update_and_add(
    table: Any,
    data: pa.Table,
    ids: list[str],
    updates: list[int],
    new: list[int],
    expected: Mapping[str, datetime],
) -> Commit:
    """Updates and new rows in one conditional merge, for a writer no one else can race."""
    rows = [*updates, *new]
    wanted = {ids[i]: expected[ids[i]] for i in updates}
    merge = merge_on_id(table).when_matched_update_all(where=unchanged_condition(wanted))
    result = merge.when_not_matched_insert_all().execute(data.take(pa.array(rows, pa.int64())))
    if (result.num_updated_rows, result.num_inserted_rows) != (len(updates), len(new)):
        raise StoreError(  # the store changed under an exclusive lock: never silently
            f"an exclusive write updated {result.num_updated_rows} of {len(updates)} and "
            f"inserted {result.num_inserted_rows} of {len(new)} memories"
        )
    return Commit(int(result.version), rows)


# Rounds of re-reading and re-deciding when other writers keep changing what a write changes.
COMMIT_ATTEMPTS = 8


def lost_a_race(error: Exception) -> bool:
    """Whether LanceDB refused a commit because another writer's came first (a commit
    conflict, an incompatible concurrent transaction, a table created meanwhile)."""
    text = str(error).lower()
    return any(word in text for word in ("conflict", "incompatible", "already exists"))


Landed = TypeVar("Landed")


def commit_until_it_lands(
    lock: Callable[[], AbstractContextManager[None]],
    attempt: Callable[[], Landed | None],
    gave_up: str,
) -> Landed:
    """The one loop of every conditional write: ``attempt`` reads what it changes, decides and
    commits conditionally, all under ``lock`` (the store's write lock), and returns what it
    wrote — or None when another writer came first, to be read and decided again after a
    back-off. After ``COMMIT_ATTEMPTS`` refusals, a ``StoreError`` saying ``gave_up``."""
    for _ in attempts():
        with lock():
            landed = attempt()
        if landed is not None:
            return landed
    raise StoreError(gave_up)


def attempts() -> Iterator[int]:
    """The attempts of a conditional write that may be refused: ``COMMIT_ATTEMPTS`` of them,
    each after the first preceded by ``back_off``. Break out once a write lands."""
    for attempt in range(COMMIT_ATTEMPTS):
        if attempt:
            back_off(attempt)
        yield attempt


def back_off(attempt: int) -> None:
    """Sleep before attempt ``attempt + 1`` of a refused conditional write: a random time up
    to 50 ms, doubling each attempt up to 1.6 s, so that two hosts that keep meeting on the
    same memory stop meeting (the one that lost is otherwise always a step behind)."""
    time.sleep(random.uniform(0, min(0.05 * 2**attempt, 1.6)))
