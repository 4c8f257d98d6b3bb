import threading
from datetime import timedelta
from pathlib import Path
from typing import Any

import lancedb
import pyarrow as pa
import pytest
from lancedb.index import FTS

from openclaw_tinmem.store.compaction import UpkeepScheduler, optimize_table


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


def test_scheduler_runs_one_job_per_name_at_a_time_off_the_caller_thread() -> None:
    scheduler = UpkeepScheduler()
    release = threading.Event()
    ran: list[tuple[str, str]] = []

    def job(name: str) -> None:
        assert release.wait(10)
        ran.append((name, threading.current_thread().name))

    assert scheduler.wrote("memories", 1, lambda: job("memories"), "failed")
    assert not scheduler.wrote("memories", 1, lambda: job("again"), "failed")  # still pending
    assert scheduler.wrote("workspace", 1, lambda: job("workspace"), "failed")
    assert ran == []  # both wait for the release: wrote() returned without running them
    release.set()
    scheduler.wait()
    assert [name for name, _ in ran] == ["memories", "workspace"]
    assert all(thread.startswith("tinmem-upkeep") for _, thread in ran)
    assert scheduler.wrote("memories", 1, lambda: job("next"), "failed")  # done: may run again
    scheduler.close()
    assert [name for name, _ in ran][-1] == "next"  # close() finishes what was queued


def test_scheduler_logs_a_failed_job_and_keeps_working(caplog: pytest.LogCaptureFixture) -> None:
    scheduler = UpkeepScheduler()

    def broken() -> None:
        raise OSError("no space left on device")

    scheduler.wrote("memories", 1, broken, "table upkeep failed")
    scheduler.wait()
    assert "table upkeep failed" in caplog.text and "no space left" in caplog.text
    done = threading.Event()
    scheduler.wrote("memories", 1, done.set, "table upkeep failed")
    scheduler.close()
    assert done.is_set()


def test_scheduler_queues_a_tables_upkeep_every_so_many_writes() -> None:
    scheduler = UpkeepScheduler()
    runs: list[int] = []
    queued = []
    for _ in range(7):
        queued.append(scheduler.wrote("memories", 3, lambda: runs.append(1), "failed"))
        scheduler.wait()  # each job done before the next write: only the count decides
    scheduler.close()
    assert queued == [False, False, True, False, False, True, False]
    assert len(runs) == 2
