"""What the OpenClaw bridge adds to a turn: hooks through the bridge against in-process.

    python -m benchmarks.bridge_overhead --memories 2000 --turns 100

One store of ``--memories`` memories (no LLM). First the hooks are called in-process on a
``TinmemPlugin`` — ``before_prompt_build`` (the shipped default profile) and ``agent_end``
(until the turn is journalled) — for ``--turns`` questions. Then the same questions go
through the OpenClaw plugin's bridge: Node runs ``benchmarks/bridge_client.mjs``, which uses
the plugin's own ``BridgeProcess`` to start ``tinmem bridge`` on the same store and times each
request from the moment the hook sends it until its answer is back in Node. Reported: p50/p95
of both paths and the difference (target: at most 20 ms added at p50).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import percentiles, save_results
from benchmarks.recall_latency import OBJECTS, SUBJECTS, fill
from openclaw_tinmem.config import Settings
from openclaw_tinmem.events import AgentEndEvent, HookContext, Message, PromptBuildEvent
from openclaw_tinmem.plugin.hookimpls import TinmemPlugin

CLIENT = Path(__file__).with_name("bridge_client.mjs")


def in_process(settings: Settings, questions: list[str]) -> dict[str, list[float]]:
    plugin = TinmemPlugin(settings)
    ctx = HookContext(agent_id="bench", session_id="bench-session")
    try:
        for question in questions[:5]:
            plugin.before_prompt_build(event=PromptBuildEvent(f"{question} warm"), ctx=ctx)
        timings: dict[str, list[float]] = {"before_prompt_build": [], "agent_end": []}
        for question in questions:
            started = time.perf_counter()
            plugin.before_prompt_build(event=PromptBuildEvent(question), ctx=ctx)
            timings["before_prompt_build"].append((time.perf_counter() - started) * 1000)
            messages = (
                Message("user", f"{question} I really prefer writing things down."),
                Message("assistant", "Noted."),
            )
            started = time.perf_counter()
            plugin.agent_end(event=AgentEndEvent(messages=messages), ctx=ctx)
            timings["agent_end"].append((time.perf_counter() - started) * 1000)
        plugin.flush()
    finally:
        plugin.close()
    return timings


def through_bridge(settings: Settings, questions: list[str], node: str) -> dict[str, list[float]]:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(questions, handle)
    environment = {
        **os.environ,
        "TINMEM_DB_PATH": settings.db_path,
        "TINMEM_JOURNAL_PATH": settings.journal_path,
        "TINMEM_TRACK_ACCESS": "false",
    }
    command = [
        node,
        str(CLIENT),
        handle.name,
        str(Path(sys.executable).with_name("tinmem")),
        "bridge",
    ]
    completed = subprocess.run(
        command, env=environment, capture_output=True, text=True, timeout=1800, check=True
    )
    return dict(json.loads(completed.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--memories", type=int, default=2000)
    parser.add_argument("--turns", type=int, default=100)
    parser.add_argument("--node", default=shutil.which("node") or "node")
    parser.add_argument("--output", type=Path, default=Path("benchmarks/results/bridge.json"))
    arguments = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="tinmem-bridge-bench-"))
    rng = random.Random(5)
    settings = Settings(
        db_path=str(root / "db"), journal_path=str(root / "journal"), track_access=False
    )
    filler = TinmemPlugin(settings)
    fill(filler.service, arguments.memories, arguments.memories, rng)
    filler.close()
    questions = [
        f"What do we know about {rng.choice(OBJECTS)} and {rng.choice(SUBJECTS).lower()}? ({n})"
        for n in range(arguments.turns)
    ]
    local = in_process(settings, [f"{q} (in process)" for q in questions])
    bridged = through_bridge(settings, [f"{q} (bridge)" for q in questions], arguments.node)
    results: dict[str, Any] = {
        "command": " ".join(sys.argv),
        "memories": arguments.memories,
        "turns": arguments.turns,
    }
    for hook in ("before_prompt_build", "agent_end"):
        inside, outside = percentiles(local[hook]), percentiles(bridged[hook])
        results[hook] = {
            "in_process_ms": inside,
            "bridge_ms": outside,
            "added_ms": {key: round(outside[key] - inside[key], 2) for key in inside},
        }
    print(json.dumps(results, indent=2))
    save_results(arguments.output, results)
    shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
