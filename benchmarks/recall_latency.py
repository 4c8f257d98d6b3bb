"""Recall latency, write cost, import throughput, disk size and peak memory of the store.

    python -m benchmarks.recall_latency --sizes 1000 10000 100000 --queries 100

For each size the store is filled with synthetic memories, then timed queries run through the
real recall path (query embedding with the cache disabled, full-text + vector search, fusion,
fetching the memories, scoring) in three configurations: the fast profile (the first stage
alone: no late interaction, no cross-encoder), late interaction without the cross-encoder,
and the shipped default (late interaction, then the cross-encoder). The floor measured in
the same run is what no first stage can beat: embedding the query plus a numpy brute-force
top-k over the same vectors.

Up to ``--real-embeddings`` memories are embedded by the real model; beyond that, vectors are
real embeddings reused with small noise (re-normalised), which keeps the search cost honest
while keeping the 100k fill under a few minutes.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import statistics
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.common import save_results
from openclaw_tinmem.config import Settings
from openclaw_tinmem.encoders.dense import FastEmbedEmbedder
from openclaw_tinmem.maintenance import import_memories
from openclaw_tinmem.models import Category, Memory
from openclaw_tinmem.service import MemoryService, open_store
from openclaw_tinmem.store.compaction import optimize_table

SUBJECTS = [
    "The user",
    "Our team",
    "Dana",
    "The backend service",
    "The mobile app",
    "Marco",
    "The data pipeline",
    "My manager",
    "The client",
    "The staging cluster",
]
VERBS = [
    "prefers",
    "switched to",
    "decided on",
    "had trouble with",
    "is migrating to",
    "wrote a guide about",
    "benchmarked",
    "deprecated",
    "scheduled a review of",
    "loves",
]
OBJECTS = [
    "PostgreSQL 16",
    "dark mode",
    "Rust for CLI tools",
    "weekly retrospectives",
    "Kafka",
    "hiking in the Alps",
    "TypeScript strict mode",
    "on-call rotations",
    "Grafana dashboards",
    "GraphQL federation",
    "vegan recipes",
    "the Berlin office",
    "Kubernetes autoscaling",
    "sourdough baking",
    "Terraform modules",
    "jazz piano",
    "feature flags",
    "Redis caching",
]
CONTEXT = [
    "after the outage in March",
    "because latency matters",
    "for the Q3 roadmap",
    "since moving to Lisbon",
    "to cut cloud costs",
    "on the advice of a mentor",
    "during the hackathon",
    "before the product launch",
    "for better onboarding",
]
QUESTIONS = [
    "What does {s} think about {o}?",
    "Who decided on {o}?",
    "When did we talk about {o}?",
    "Any problems with {o}?",
    "What is the plan for {o} {c}?",
]


def synthetic_text(rng: random.Random, number: int) -> str:
    return (
        f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)} "
        f"{rng.choice(CONTEXT)}. Note {number}: {rng.choice(OBJECTS)} came up too."
    )


def percentile(values: list[float], fraction: float) -> float:
    return float(np.percentile(np.asarray(values), fraction * 100))


def timed(function: Any, *arguments: Any, **options: Any) -> float:
    start = time.perf_counter()
    function(*arguments, **options)
    return (time.perf_counter() - start) * 1000


def fill(service: MemoryService, size: int, real_limit: int, rng: random.Random) -> None:
    texts = [synthetic_text(rng, number) for number in range(size)]
    real = service.embedder.embed_documents(texts[: min(size, real_limit)])
    vectors = real
    if size > len(real):
        noise_rng = np.random.default_rng(0)
        extra = real[noise_rng.integers(0, len(real), size - len(real))]
        extra = extra + noise_rng.normal(0, 0.02, extra.shape).astype(np.float32)
        extra /= np.linalg.norm(extra, axis=1, keepdims=True)
        vectors = np.concatenate([real, extra])
    categories = list(Category)
    memories = [
        Memory(
            category=categories[n % 6],
            headline=texts[n][:80],
            summary=texts[n],
            content=texts[n],
            scope="global" if n % 4 else "agent:bench",
        )
        for n in range(size)
    ]
    tokens: list[bytes | None] = service.late_interaction.encode(memories[: len(real)])
    tokens += [tokens[n % len(real)] for n in range(size - len(real))]  # reused, like the vectors
    for start in range(0, size, 5000):
        batch = memories[start : start + 5000]
        end = start + len(batch)
        service.store.upsert(batch, vectors[start:end], tokens[start:end])
    service.store.optimize()


def measure_size(
    embedder: FastEmbedEmbedder,
    base: Settings,
    size: int,
    queries: list[str],
    real_limit: int,
    root: Path,
) -> dict[str, Any]:
    settings = base.model_copy(update={"db_path": str(root / f"db-{size}")})
    store = open_store(settings, embedder)
    service = MemoryService(settings, store, embedder)
    first_stage = MemoryService(
        settings.model_copy(update={"late_interaction": False}), store, embedder
    )
    rng = random.Random(size)
    started = time.perf_counter()
    fill(service, size, real_limit, rng)
    fill_seconds = time.perf_counter() - started
    for query in queries[:5]:  # warm the snapshot, the index caches and the reranker
        service.recall(query + " warm-up", rerank=True)
    matrix = service.store.snapshot().matrix

    def floor(query: str) -> None:
        vector = embedder.embed_query(query)
        scores = matrix @ vector
        np.argpartition(-scores, 50)[:50]

    # The fast profile and its floor alternate query by query, so both see the same machine
    # noise, and nothing else runs between them: another model run in between (late
    # interaction's encoder) would push the embedding model's weights out of the CPU cache
    # before one of the two and not the other.
    plain, floors = [], []
    for query in queries:
        plain.append(timed(first_stage.recall, query, rerank=False))
        floors.append(timed(floor, query + " floor"))
    late = [timed(service.recall, query + " now", rerank=False) for query in queries]
    reranked = [timed(service.recall, query + " please", rerank=True) for query in queries]
    # Steady state on disk: old versions pruned (the store does this itself after its retention).
    optimize_table(service.store.table, timedelta(0))
    disk = sum(file.stat().st_size for file in Path(settings.db_path).rglob("*") if file.is_file())
    result = {
        "size": size,
        "fill_seconds": round(fill_seconds, 1),
        "recall_p50_ms": round(percentile(plain, 0.5), 2),
        "recall_p95_ms": round(percentile(plain, 0.95), 2),
        "late_only_p50_ms": round(percentile(late, 0.5), 2),
        "late_only_p95_ms": round(percentile(late, 0.95), 2),
        "default_p50_ms": round(percentile(reranked, 0.5), 2),
        "default_p95_ms": round(percentile(reranked, 0.95), 2),
        "floor_p50_ms": round(percentile(floors, 0.5), 2),
        "ratio_to_floor_p50": round(percentile(plain, 0.5) / percentile(floors, 0.5), 2),
        "disk_mb": round(disk / 1e6, 1),
    }
    if size == 10_000:
        result["store_p50_ms"] = round(
            statistics.median(
                timed(
                    service.remember,
                    synthetic_text(rng, size + n) + f" unique {n}",
                    Category.EVENTS,
                )
                for n in range(50)
            ),
            2,
        )
    service.close()
    first_stage.close()
    return result


def measure_import(
    embedder: FastEmbedEmbedder, base: Settings, count: int, root: Path
) -> dict[str, Any]:
    rng = random.Random(7)
    texts = [synthetic_text(rng, number) + f" import {number}" for number in range(count)]
    settings = base.model_copy(update={"db_path": str(root / "db-import")})
    service = MemoryService(settings, open_store(settings, embedder), embedder)
    encoder = service.late_interaction.encoder
    started = time.perf_counter()
    embedder.embed_documents(texts)
    if encoder is not None:  # the raw work of the models: embedding and tokens
        encoder.encode_documents(texts)
    raw_seconds = time.perf_counter() - started
    lines = [json.dumps({"content": text, "category": "events"}) for text in texts]
    started = time.perf_counter()
    import_memories(service, lines)
    import_seconds = time.perf_counter() - started
    started = time.perf_counter()
    again = import_memories(service, lines)  # the same file: every line is unchanged
    reimport_seconds = time.perf_counter() - started
    service.close()
    return {
        "memories": count,
        "raw_embedding_per_second": round(count / raw_seconds, 1),
        "import_per_second": round(count / import_seconds, 1),
        "import_fraction_of_raw": round(raw_seconds / import_seconds, 3),
        "reimport_unchanged": again.unchanged,
        "reimport_seconds": round(reimport_seconds, 3),
        "reimport_speedup": round(import_seconds / max(reimport_seconds, 1e-9), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--real-embeddings", type=int, default=10_000)
    parser.add_argument("--import-count", type=int, default=2000)
    parser.add_argument(
        "--output", type=Path, default=Path("benchmarks/results/recall_latency.json")
    )
    arguments = parser.parse_args()
    base = Settings(query_cache_size=0, track_access=False)
    embedder = FastEmbedEmbedder(base)
    rng = random.Random(1)
    queries = [
        rng.choice(QUESTIONS).format(
            s=rng.choice(SUBJECTS).lower(), o=rng.choice(OBJECTS), c=rng.choice(CONTEXT)
        )
        + f" #{number}"
        for number in range(arguments.queries)
    ]
    root = Path(tempfile.mkdtemp(prefix="tinmem-bench-"))
    try:
        results: dict[str, Any] = {"sizes": []}
        for size in arguments.sizes:
            results["sizes"].append(
                measure_size(embedder, base, size, queries, arguments.real_embeddings, root)
            )
            print(json.dumps(results["sizes"][-1]), flush=True)
        results["import"] = measure_import(embedder, base, arguments.import_count, root)
        print(json.dumps(results["import"]), flush=True)
        results["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
        print(json.dumps({"peak_rss_mb": results["peak_rss_mb"]}))
        save_results(arguments.output, results)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
