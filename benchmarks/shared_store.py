"""Recall on a store that another process writes to: what a commit by someone else costs the
next recall.

Two services open one store of ``--memories`` memories, each with its own LanceDB connection
and in-process snapshot, as two agents' processes (or hosts) sharing a memory have. Round
after round, the writer stores one memory through ``MemoryService.remember`` (embedding,
dedup, one commit; its upkeep every ``optimize_every_writes`` writes as shipped), then the
reader recalls twice with the fast profile: the first recall finds the writer's commit and
must bring its snapshot up to date, the second finds nothing new. The figures are both
recalls' latencies, and how the reader's snapshot followed (whole loads or catch-ups, where
the store counts them).

    python -m benchmarks.shared_store --memories 10000 --rounds 100
    python -m benchmarks.shared_store --memories 2000 --rounds 50 --s3   # moto's S3 server
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import percentiles, save_results
from benchmarks.recall_latency import QUESTIONS, SUBJECTS, fill, synthetic_text
from benchmarks.s3_server import create_bucket, start_moto, storage_options
from openclaw_tinmem.config import Settings
from openclaw_tinmem.encoders.dense import FastEmbedEmbedder
from openclaw_tinmem.models import Category
from openclaw_tinmem.service import MemoryService, open_store


def _timed_recall(service: MemoryService, query: str) -> float:
    start = time.perf_counter()
    service.recall(query, limit=10)
    return (time.perf_counter() - start) * 1000


def run(
    base: Settings, memories: int, rounds: int, root: Path, location: str | None = None
) -> dict[str, Any]:
    """``location``: the store's URI with its storage options in ``base`` (None: a local
    directory under ``root``)."""
    settings = base.model_copy(
        update={
            "db_path": location or str(root / "db"),
            "journal_path": str(root / "journal"),
            "query_cache_size": 0,
            "track_access": False,
            "late_interaction": False,
            "rerank": False,
            "read_consistency_seconds": 0.0,  # the reader sees each commit at once
        }
    )
    embedder = FastEmbedEmbedder(settings)
    writer = MemoryService(settings, open_store(settings, embedder), embedder)
    fill(writer, memories, min(memories, 2000), random.Random(0))
    reader = MemoryService(settings, open_store(settings, embedder), embedder)
    rng = random.Random(1)
    questions = [
        rng.choice(QUESTIONS).format(s=rng.choice(SUBJECTS).lower(), o="the build", c="today")
        for _ in range(rounds)
    ]
    reader.recall(questions[0])  # the reader's first, whole load
    after_commit, unchanged = [], []
    for number in range(rounds):
        writer.remember(synthetic_text(rng, memories + number), Category.EVENTS)
        after_commit.append(_timed_recall(reader, questions[number]))
        unchanged.append(_timed_recall(reader, questions[number]))
    loads = dict(getattr(reader.store, "snapshot_loads", {}))
    writer.close()
    reader.close()
    return {
        "store": "local" if location is None else location.split("://")[0],
        "memories": memories,
        "rounds": rounds,
        "recall_after_a_foreign_commit_ms": percentiles(after_commit),
        "recall_with_nothing_new_ms": percentiles(unchanged),
        "reader_snapshot_loads": loads,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--s3", action="store_true", help="a bucket on moto's server on 127.0.0.1")
    parser.add_argument("--output", type=Path, default=Path("benchmarks/results/shared_store.json"))
    arguments = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="tinmem-bench-"))
    server = None
    try:
        base, location = Settings(), None
        if arguments.s3:
            server, endpoint = start_moto()
            create_bucket(endpoint, "shared")
            base = base.model_copy(update={"storage_options": storage_options(endpoint)})
            location = "s3://shared/memory"
        result = run(base, arguments.memories, arguments.rounds, root, location)
        print(json.dumps(result, indent=2))
        save_results(arguments.output, result)
    finally:
        if server is not None:
            server.terminate()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
