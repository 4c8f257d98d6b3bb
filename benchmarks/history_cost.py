"""What the history costs a write: ``memory_store`` with and without its history event.

    python -m benchmarks.history_cost --memories 2000 --writes 200

One store of ``--memories`` imported memories; then ``--writes`` tool calls each with the
history on and off, alternating call by call in the same run (so both see the same store
size and the same machine load). Target: with history, p50 at most 10 % above without.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.common import percentiles, save_results
from benchmarks.recall_latency import synthetic_text
from openclaw_tinmem.config import Settings
from openclaw_tinmem.maintenance import import_memories
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.tools.toolbox import build_toolbox


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=2000, help="Memories in the store.")
    parser.add_argument("--writes", type=int, default=200, help="Writes with and without.")
    parser.add_argument("--output", type=Path, default=Path("benchmarks/results/history.json"))
    arguments = parser.parse_args()
    rng = random.Random(5)
    with tempfile.TemporaryDirectory(prefix="tinmem-history-") as root:
        settings = Settings(db_path=str(Path(root) / "db"), track_access=False)
        service = MemoryService.from_settings(settings)
        lines = [
            json.dumps({"content": synthetic_text(rng, n), "category": "events"})
            for n in range(arguments.memories)
        ]
        import_memories(service, lines)
        tools = build_toolbox(service)
        off = settings.model_copy(update={"history": False})
        timings: dict[bool, list[float]] = {True: [], False: []}
        for number in range(arguments.writes * 2):
            with_history = number % 2 == 0
            service.store.settings = settings if with_history else off
            text = synthetic_text(rng, 100_000 + number) + f" Write {number}."
            started = time.perf_counter()
            result = tools.call("memory_store", {"content": text, "category": "events"})
            timings[with_history].append((time.perf_counter() - started) * 1000)
            assert not result.is_error, result.text
        service.store.settings = settings
        service.store.history.flush()
        events = service.store.history.table.count_rows()
        service.close()
    on, without = percentiles(timings[True]), percentiles(timings[False])
    results = {
        "memories": arguments.memories,
        "writes_each": arguments.writes,
        "with_history_ms": on,
        "without_history_ms": without,
        "ratio_p50": round(statistics.median(timings[True]) / statistics.median(timings[False]), 3),
        "history_events": events,
    }
    print(json.dumps(results, indent=2))
    save_results(arguments.output, results)


if __name__ == "__main__":
    main()
