"""Load the in-process snapshot from a Lance dataset, or bring it up to a later version by
reading only what changed there.

A merge-insert, update or delete leaves the table's data files as they are: the rows it
removes or rewrites are marked in a deletion file of their fragment (a fragment left with no
row is dropped), and the rows it writes go to new fragments. So from one version to a later
one, what changed is read fragment by fragment:

- a fragment that is new, or whose data files changed (compaction, a new column), is read
  whole, and whatever the snapshot held from a fragment of that id is dropped;
- a fragment that is gone takes its rows with it;
- of a fragment whose deletion file changed, only the addresses of the surviving rows are
  read;
- a fragment unchanged holds the same rows.

When the fragments to read whole hold more than half the table's rows (a compaction of the
whole table, an overwrite), the snapshot is loaded whole instead, as on first use. This is
what keeps a reader cheap while other processes or hosts write to the same table: the commit
of one captured turn costs the readers a few rows, not the table.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

import numpy as np
import pyarrow as pa

from openclaw_tinmem.store.lance_reader import LanceReader
from openclaw_tinmem.store.schema import MEMORY_COLUMNS
from openclaw_tinmem.store.snapshot import FragmentState, IntArray, Snapshot

logger = logging.getLogger("openclaw_tinmem")
ADDRESS = "_rowaddr"  # Lance's row address: fragment id << 32 | row offset
SNAPSHOT_COLUMNS = [*MEMORY_COLUMNS, "vector"]
# New fragments holding more than this share of the snapshot's rows: a whole load is as cheap
CATCH_UP_MAX_SHARE = 0.5


class SnapshotLoader:
    """Gives ``SnapshotCache`` the snapshot of a version: the previous one caught up where
    Lance tells what changed, else the whole table (through LanceDB for a table without a
    Lance dataset). ``loads`` counts both ("whole", "caught up")."""

    def __init__(self, table: Callable[[], Any], reader: LanceReader, dimension: int) -> None:
        self._table = table
        self._reader = reader
        self._dimension = dimension
        self.loads: Counter[str] = Counter()

    def __call__(self, previous: Snapshot | None, version: int) -> Snapshot:
        dataset = self._reader.dataset(version)
        if dataset is None:
            self.loads["whole"] += 1
            table = self._table()
            rows = table.search().select(SNAPSHOT_COLUMNS).limit(None).to_arrow()
            return Snapshot.from_arrow(table.version, rows, self._dimension)
        if previous is not None:
            try:
                caught_up = catch_up(previous, dataset)
            except (OSError, ValueError):  # a file the catch-up read is gone or unreadable
                logger.info("could not catch the snapshot up; loading it whole", exc_info=True)
                caught_up = None
            if caught_up is not None:
                self.loads["caught up"] += 1
                return caught_up
        self.loads["whole"] += 1
        return load_whole(dataset, self._dimension)


def fragment_states(fragments: Iterable[Any]) -> dict[int, FragmentState]:
    """Each fragment's data files and deletion file, as comparable text, by fragment id."""
    states = {}
    for fragment in fragments:
        metadata = fragment.metadata.to_json()
        states[int(metadata["id"])] = FragmentState(
            files=json.dumps(metadata["files"], sort_keys=True),
            deletions=json.dumps(metadata["deletion_file"], sort_keys=True),
        )
    return states


def load_whole(dataset: Any, dimension: int) -> Snapshot:
    """Every row of the dataset's version, with the row addresses a later catch-up needs."""
    table = dataset.to_table(columns=SNAPSHOT_COLUMNS, with_row_address=True)
    addresses = _addresses(table)
    return Snapshot.from_arrow(
        int(dataset.version),
        table.drop_columns([ADDRESS]),
        dimension,
        addresses=addresses,
        fragments=fragment_states(dataset.get_fragments()),
    )


def catch_up(snapshot: Snapshot, dataset: Any) -> Snapshot | None:
    """``snapshot`` moved to the dataset's version by what changed, or None when only a whole
    load can tell (see the module's docstring)."""
    before = snapshot.fragments
    if before is None:
        return None
    fragments = {fragment.fragment_id: fragment for fragment in dataset.get_fragments()}
    after = fragment_states(fragments.values())
    dropped = {i for i in before if i not in after or after[i].files != before[i].files}
    new = [fragments[i] for i in after if i not in before or i in dropped]
    thinned = [
        fragments[i]
        for i in after
        if i in before and i not in dropped and after[i].deletions != before[i].deletions
    ]
    live = int(snapshot.alive[: snapshot.size].sum())
    if sum(fragment.metadata.num_rows for fragment in new) > max(1, live) * CATCH_UP_MAX_SHARE:
        return None
    gone = _gone(snapshot, thinned, dropped)
    version = int(dataset.version)
    if not new:
        return replace(snapshot.changed(version, None, None, gone), fragments=after)
    scanner = dataset.scanner(columns=SNAPSHOT_COLUMNS, fragments=new, with_row_address=True)
    table = scanner.to_table()
    vectors = Snapshot.matrix_of(table, snapshot.matrix.shape[1])
    records = table.drop_columns(["vector", ADDRESS])
    changed = snapshot.changed(version, records, vectors, gone, addresses=_addresses(table))
    return replace(changed, fragments=after)


def _addresses(table: pa.Table) -> IntArray:
    addresses: IntArray = table.column(ADDRESS).to_numpy().astype(np.int64)
    return addresses


def _gone(snapshot: Snapshot, thinned: list[Any], dropped: set[int]) -> list[str]:
    """Ids of live rows that left: rows of dropped fragments (gone or rewritten), rows of
    thinned fragments whose address no longer reads, and rows this process appended itself
    (address unknown; new fragments hold them if they are still there)."""
    alive = snapshot.alive[: snapshot.size]
    addresses = snapshot.addresses[: snapshot.size]
    fragment_ids = addresses >> 32
    leaving = alive & (addresses < 0)
    if dropped:
        leaving |= alive & (addresses >= 0) & np.isin(fragment_ids, list(dropped))
    if thinned:
        surviving = np.concatenate(
            [
                fragment.to_table(columns=[], with_row_address=True)
                .column(ADDRESS)
                .to_numpy()
                .astype(np.int64)
                for fragment in thinned
            ]
        )
        in_thinned = np.isin(fragment_ids, [fragment.fragment_id for fragment in thinned])
        leaving |= alive & in_thinned & ~np.isin(addresses, surviving)
    identifiers = snapshot.records.column("id")
    return [identifiers[int(position)].as_py() for position in np.flatnonzero(leaving)]
