"""Table upkeep: what one optimise costs (compaction, index update, pruning) as the store
grows, and what it adds to the writes around it.

``upkeep``: two stores of the same size are filled alike. Round after round, each takes 50
writes through ``MemoryService.remember`` (half of them preferences, which merge) and then
one upkeep: the store's own ``MemoryStore.optimize`` in one, LanceDB's ``Table.optimize``
(what the store called before) in the other. Rounds alternate between the stores so both
see the same machine noise. Upkeep runs under the write lock, so its duration is how long a
concurrent write may wait.

``writes``: two stores filled alike take the same paced writes (``--gap`` seconds apart, as
an agent's tool calls are), alternating. One runs upkeep as shipped, on its background
thread once every ``optimize_every_writes`` writes; the other as the store did before, on
the thread of the write that made it due, which waits for it. The figures are the writes'
latencies, and those of the writes that made upkeep due.

``recall``: one store takes rounds of 50 writes; after each, 20 recalls (fast profile) while
nothing else runs, then recalls back to back for as long as upkeep runs on another thread.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import tempfile
import threading
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from benchmarks.common import save_results
from benchmarks.recall_latency import fill, synthetic_text
from openclaw_tinmem.config import Settings
from openclaw_tinmem.encoders.dense import FastEmbedEmbedder
from openclaw_tinmem.models import Category
from openclaw_tinmem.service import MemoryService, open_store

WRITES_PER_ROUND = 50


def lancedb_optimize(service: MemoryService) -> None:
    retention = timedelta(seconds=service.settings.version_retention_seconds)
    with service.store.write_lock():
        service.store.table.optimize(cleanup_older_than=retention)


def ours(service: MemoryService) -> None:
    service.store.optimize()


def _write(service: MemoryService, rng: random.Random, number: int) -> None:
    text = synthetic_text(rng, number)
    if number % 2:
        service.remember(text + " I prefer green tea.", Category.PREFERENCES)
    else:
        service.remember(text, Category.EVENTS)


def measure_size(
    embedder: FastEmbedEmbedder, base: Settings, size: int, rounds: int, root: Path
) -> dict[str, Any]:
    upkeeps = {"tinmem": ours, "lancedb": lancedb_optimize}
    services: dict[str, MemoryService] = {}
    for name in upkeeps:
        settings = base.model_copy(update={"db_path": str(root / f"{name}-{size}")})
        services[name] = MemoryService(settings, open_store(settings, embedder), embedder)
        fill(services[name], size, 2000, random.Random(size))
    timings: dict[str, list[float]] = {name: [] for name in upkeeps}
    rng = random.Random(5)
    for number in range(rounds):
        for name, upkeep in upkeeps.items():
            service = services[name]
            for write in range(WRITES_PER_ROUND):
                _write(service, rng, size + number * WRITES_PER_ROUND + write)
            started = time.perf_counter()
            upkeep(service)
            timings[name].append((time.perf_counter() - started) * 1000)
    result: dict[str, Any] = {"size": size, "rounds": rounds}
    for name, values in timings.items():
        fragments = services[name].store.table.to_lance().get_fragments()
        result[name] = {
            "p50_ms": round(statistics.median(values), 1),
            "max_ms": round(max(values), 1),
            "fragments_after": len(fragments),
        }
        services[name].close()
    result["lancedb_over_tinmem_p50"] = round(
        result["lancedb"]["p50_ms"] / result["tinmem"]["p50_ms"], 2
    )
    return result


def _spread(values: list[float]) -> dict[str, float]:
    """p50, p95 (nearest rank below) and max of timings in milliseconds."""
    ordered = sorted(values)
    return {
        "p50_ms": round(statistics.median(ordered), 1),
        "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))], 1),
        "max_ms": round(ordered[-1], 1),
    }


def _latencies(values: list[float], due: list[float]) -> dict[str, float]:
    return {
        **_spread(values),
        "due_writes": len(due),
        "due_mean_ms": round(statistics.mean(due), 1) if due else 0.0,
        "due_max_ms": round(max(due), 1) if due else 0.0,
    }


def measure_writes(
    embedder: FastEmbedEmbedder,
    base: Settings,
    size: int,
    writes: int,
    gap: float,
    root: Path,
    every: int = WRITES_PER_ROUND,
) -> dict[str, Any]:
    """Paced writes into a store whose upkeep runs in the background and into one whose
    write that makes upkeep due runs it (the behaviour before), alternating."""
    services: dict[str, MemoryService] = {}
    for name, setting in (("background", every), ("inline", 10**9)):
        settings = base.model_copy(
            update={
                "db_path": str(root / f"writes-{name}-{size}"),
                "optimize_every_writes": setting,
            }
        )
        services[name] = MemoryService(settings, open_store(settings, embedder), embedder)
        fill(services[name], size, 2000, random.Random(size))
        services[name].store.optimize()  # both start from a freshly compacted table
    timings: dict[str, list[float]] = {name: [] for name in services}
    due: dict[str, list[float]] = {name: [] for name in services}
    rngs = {name: random.Random(7) for name in services}
    for number in range(1, writes + 1):
        for name, service in services.items():
            started = time.perf_counter()
            _write(service, rngs[name], size + number)
            if name == "inline" and number % every == 0:
                service.store.optimize()
            elapsed = (time.perf_counter() - started) * 1000
            timings[name].append(elapsed)
            if number % every == 0:
                due[name].append(elapsed)
            time.sleep(gap)
    services["background"].store.wait_for_upkeep()
    result: dict[str, Any] = {"size": size, "writes": writes, "gap_seconds": gap}
    for name, service in services.items():
        result[name] = _latencies(timings[name], due[name])
        service.close()
    return result


def measure_recall(
    embedder: FastEmbedEmbedder, base: Settings, size: int, rounds: int, root: Path
) -> dict[str, Any]:
    """Fast-profile recall latency while nothing else runs and while upkeep runs."""
    settings = base.model_copy(
        update={"db_path": str(root / f"recall-{size}"), "late_interaction": False, "rerank": False}
    )
    service = MemoryService(settings, open_store(settings, embedder), embedder)
    fill(service, size, 2000, random.Random(size))
    store = service.store
    rng = random.Random(9)
    timings: dict[str, list[float]] = {"quiet": [], "during_upkeep": []}

    def recall(kind: str) -> None:
        started = time.perf_counter()
        service.recall(synthetic_text(rng, rng.randrange(size)))
        timings[kind].append((time.perf_counter() - started) * 1000)

    for number in range(rounds):
        for write in range(WRITES_PER_ROUND):
            _write(service, rng, size + number * WRITES_PER_ROUND + write)
        for _ in range(20):
            recall("quiet")
        upkeep = threading.Thread(target=store.optimize)  # as the upkeep thread runs it
        upkeep.start()
        while upkeep.is_alive():
            recall("during_upkeep")
        upkeep.join()
    service.close()
    result: dict[str, Any] = {"size": size, "rounds": rounds}
    for kind, values in timings.items():
        result[kind] = {"recalls": len(values), **_spread(values)}
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 40_000])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument(
        "--measure",
        nargs="+",
        choices=["upkeep", "writes", "recall"],
        default=["upkeep", "writes", "recall"],
    )
    parser.add_argument("--writes", type=int, default=200, help="paced writes per store")
    parser.add_argument("--gap", type=float, default=0.25, help="seconds between writes")
    parser.add_argument("--output", type=Path, default=Path("benchmarks/results/store_upkeep.json"))
    arguments = parser.parse_args()
    base = Settings(query_cache_size=0, track_access=False, optimize_every_writes=10**9)
    embedder = FastEmbedEmbedder(base)
    root = Path(tempfile.mkdtemp(prefix="tinmem-upkeep-"))
    try:
        results: dict[str, Any] = {"sizes": [], "writes": [], "recall": []}
        for size in arguments.sizes:
            if "upkeep" in arguments.measure:
                results["sizes"].append(measure_size(embedder, base, size, arguments.rounds, root))
                print(json.dumps(results["sizes"][-1]), flush=True)
            if "writes" in arguments.measure:
                results["writes"].append(
                    measure_writes(embedder, base, size, arguments.writes, arguments.gap, root)
                )
                print(json.dumps(results["writes"][-1]), flush=True)
            if "recall" in arguments.measure:
                results["recall"].append(
                    measure_recall(embedder, base, size, arguments.rounds, root)
                )
                print(json.dumps(results["recall"][-1]), flush=True)
        save_results(arguments.output, results)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
