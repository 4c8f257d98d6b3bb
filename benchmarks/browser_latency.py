"""The memory browser over a large store: how fast its first page and a search answer.

    python -m benchmarks.browser_latency --memories 10000 --requests 50

A store of ``--memories`` synthetic memories (as ``recall_latency`` makes them); the
browser's app is called in-process through Starlette's test client (HTTP semantics, no
socket). Reported: p50/p95 of the first page of the list (50 memories, most recently
updated first) and of a search. Target: the first page in ≤ 300 ms p95.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

from benchmarks.common import percentiles, save_results
from benchmarks.recall_latency import fill, synthetic_text
from openclaw_tinmem.access import Identity
from openclaw_tinmem.config import Settings
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.ui.app import build_app


def main() -> None:
    from starlette.testclient import TestClient

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000, help="Memories in the store.")
    parser.add_argument("--requests", type=int, default=50, help="Requests of each kind.")
    parser.add_argument("--output", type=Path, default=Path("benchmarks/results/browser.json"))
    arguments = parser.parse_args()
    rng = random.Random(9)
    with tempfile.TemporaryDirectory(prefix="tinmem-browser-") as root:
        settings = Settings(db_path=str(Path(root) / "db"), track_access=False)
        service = MemoryService.from_settings(settings)
        fill(service, arguments.memories, min(arguments.memories, 2000), rng)
        client = TestClient(build_app(service, Identity.administrator(), token="t"))
        timings: dict[str, list[float]] = {"first_page": [], "search": []}
        for number in range(arguments.requests):
            for kind, path in (
                ("first_page", "/api/memories?token=t"),
                ("search", f"/api/memories?token=t&q={synthetic_text(rng, number)}"),
            ):
                started = time.perf_counter()
                answer = client.get(path)
                timings[kind].append((time.perf_counter() - started) * 1000)
                assert answer.status_code == 200, answer.text
        total = client.get("/api/memories?token=t").json()["total"]
        service.close()
    results = {
        "memories": total,
        **{f"{kind}_ms": percentiles(values) for kind, values in timings.items()},
    }
    print(json.dumps(results, indent=2))
    save_results(arguments.output, results)


if __name__ == "__main__":
    main()
