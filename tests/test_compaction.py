from datetime import timedelta
from pathlib import Path
from typing import Any

import lancedb
import pyarrow as pa
from lancedb.index import FTS

from openclaw_tinmem.compaction import optimize_table


def _rows(start: int, count: int) -> pa.Table:
    return pa.table(
        {
            "id": [f"row-{number}" for number in range(start, start + count)],
            "text": [f"note {number} about item{number}" for number in range(start, start + count)],
        }
    )


def _fragments(table: Any) -> dict[int, int]:
    return {
        fragment.fragment_id: fragment.count_rows() for fragment in table.to_lance().get_fragments()
    }


def test_optimize_leaves_full_fragments_alone_and_compacts_the_rest(tmp_path: Path) -> None:
    table = lancedb.connect(tmp_path, read_consistency_interval=timedelta(0)).create_table(
        "notes", data=_rows(0, 100)
    )
    table.create_index("text", config=FTS(with_position=False))
    (full,) = _fragments(table)
    written = 100
    for _ in range(2):  # two rounds of small writes, each followed by upkeep
        for _ in range(4):
            table.add(_rows(written, 3))
            written += 3
        optimize_table(table, timedelta(0), target_rows=50)

    fragments = _fragments(table)
    # The fragment that had reached the target is never rewritten (LanceDB's own optimize
    # would fold it into one fragment with the rest); the small writes are compacted.
    assert fragments[full] == 100
    assert len(fragments) <= 3 and sum(fragments.values()) == written
    text_index = table.index_stats("text_idx")
    assert text_index.num_unindexed_rows == 0
    assert text_index.num_indices == 1  # new rows merged in, not left as delta indexes
    assert len(table.list_versions()) == 1  # retention 0: older versions pruned
    hits = table.search("item123", query_type="fts").limit(1).to_list()
    assert hits[0]["id"] == "row-123"
