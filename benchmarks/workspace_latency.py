"""Workspace tools: memory_search over 1,000 documents (about 5 MB of markdown), memory_write.

    python -m benchmarks.workspace_latency --documents 1000 --queries 100

Documents are generated markdown notes (headings, paragraphs, lists) of about 5 KB each,
written through the real memory_write path (so they are chunked, embedded and indexed).
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

from rich.progress import track

from benchmarks.common import percentiles, save_results
from benchmarks.recall_latency import CONTEXT, OBJECTS, SUBJECTS, VERBS
from openclaw_tinmem.config import Settings
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.tools.toolbox import Toolbox
from openclaw_tinmem.tools.workspace import WorkspaceTools


def note(rng: random.Random, number: int) -> str:
    lines = [f"# Project {number}: {rng.choice(OBJECTS)}", ""]
    while sum(len(line) for line in lines) < 5000:
        lines.append(f"## {rng.choice(CONTEXT).capitalize()}")
        lines.append(
            " ".join(
                f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)} {rng.choice(CONTEXT)}."
                for _ in range(4)
            )
        )
        lines.extend(f"- {rng.choice(VERBS)} {rng.choice(OBJECTS)}" for _ in range(3))
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--documents", type=int, default=1000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument(
        "--output", type=Path, default=Path("benchmarks/results/workspace_latency.json")
    )
    arguments = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="tinmem-workspace-bench-"))
    rng = random.Random(11)
    try:
        settings = Settings(
            db_path=str(root / "db"),
            query_cache_size=0,
            workspace_writes_per_minute=10**9,
            workspace_writes_per_hour=10**9,
        )
        service = MemoryService.from_settings(settings)
        tools = Toolbox()
        tools.extend(WorkspaceTools(service).handlers())
        total_bytes = 0
        write_times = []
        for number in track(range(arguments.documents), description="Writing documents"):
            content = note(rng, number)
            total_bytes += len(content.encode())
            started = time.perf_counter()
            result = tools.call(
                "memory_write",
                {"content": content, "target": f"projects/p{number % 50}/note-{number}.md"},
            )
            write_times.append((time.perf_counter() - started) * 1000)
            assert not result.is_error, result.data
        daily_times = []
        for number in range(50):
            started = time.perf_counter()
            tools.call("memory_write", {"content": f"Log entry {number}: {rng.choice(OBJECTS)}"})
            daily_times.append((time.perf_counter() - started) * 1000)
        queries = [
            f"What did {rng.choice(SUBJECTS).lower()} decide about {rng.choice(OBJECTS)}? ({n})"
            for n in range(arguments.queries)
        ]
        for query in queries[:5]:
            tools.call("memory_search", {"query": query + " warm-up"})
        search_times = []
        for query in queries:
            started = time.perf_counter()
            tools.call("memory_search", {"query": query, "limit": 5})
            search_times.append((time.perf_counter() - started) * 1000)
        results: dict[str, Any] = {
            "documents": arguments.documents,
            "markdown_mb": round(total_bytes / 1e6, 2),
            "chunks": int(WorkspaceTools(service).workspace.chunks.count_rows()),
            "memory_search_ms": percentiles(search_times),
            "memory_write_new_document_ms": percentiles(write_times),
            "memory_write_daily_log_append_ms": percentiles(daily_times),
        }
        service.close()
        print(json.dumps(results, indent=2))
        save_results(arguments.output, results)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
