"""A longer soak than the fault suite: turns from several processes, killed at random.

    python -m benchmarks.soak --processes 3 --turns 200 --kills 8
    python -m benchmarks.soak --mixed 2000

``--mixed N`` is the other soak: one agent doing N mixed operations (turns through the hooks,
memory_recall, memory_store, memory_update, memory_forget) on one store with the default
settings, access statistics on. Every tenth of the way it records the table's versions, the
store's bytes on disk and the recall p50 of that stretch; then it recalls N/4 times alone:
those reads must commit no version and add no byte, and their p50 must hold from the first
half to the second.

Each process runs agent turns through the reference host and the plugin (no-LLM mode), all
on one store and one journal, each turn stating a fact with a unique number. While they run,
processes are killed with SIGKILL at random moments and started again, ``--kills`` times in
all. At the end one plugin drains the journal, and the script checks that every turn whose
``agent_end`` returned was captured exactly once (no turn lost, no duplicate), and that no
memory carries another agent's number.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import save_results

CHILD = """
import sys
from pathlib import Path
from openclaw_tinmem.config import Settings
from openclaw_tinmem.plugin.hookimpls import TinmemPlugin
from openclaw_tinmem.plugin.host import Host, load_plugins

settings = Settings.model_validate_json(sys.argv[1])
agent, start, count, log = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), Path(sys.argv[5])
plugin = TinmemPlugin(settings)
host = Host(load_plugins([plugin], entry_points=False), lambda messages, tools: "Noted.")
session = host.start_session(agent_id=agent)
for number in range(start, start + count):
    host.turn(session, f"We decided that ticket {agent}-{number} goes to the network team.")
    with log.open("a") as stream:  # the turn is journalled once agent_end has returned
        stream.write(f"{number}\\n")
plugin.close()
"""


def run(processes: int, turns: int, kills: int, root: Path) -> dict[str, object]:
    from openclaw_tinmem.config import Settings
    from openclaw_tinmem.plugin.hookimpls import TinmemPlugin

    settings = Settings(
        db_path=str(root / "db"),
        journal_path=str(root / "journal"),
        track_access=False,
        rerank=False,
        capture_retry_seconds=0.0,
    )
    agents = [f"agent{index}" for index in range(processes)]
    logs = {agent: root / f"{agent}.log" for agent in agents}
    rng = random.Random(11)
    started = time.perf_counter()

    def spawn(agent: str) -> subprocess.Popen[bytes]:
        done = len(logs[agent].read_text().split()) if logs[agent].exists() else 0
        arguments = [
            settings.model_dump_json(),
            agent,
            str(done),
            str(turns - done),
            str(logs[agent]),
        ]
        return subprocess.Popen([sys.executable, "-c", CHILD, *arguments])

    running = {agent: spawn(agent) for agent in agents}
    killed = 0
    while any(child.poll() is None for child in running.values()):
        time.sleep(rng.uniform(0.5, 2.0))
        alive = [agent for agent, child in running.items() if child.poll() is None]
        if killed < kills and alive:
            victim = rng.choice(alive)
            os.kill(running[victim].pid, signal.SIGKILL)
            running[victim].wait()
            killed += 1
            running[victim] = spawn(victim)
    plugin = TinmemPlugin(settings)
    plugin.worker.flush(600)
    memories = plugin.service.store.list_memories(limit=None)
    plugin.close()
    acknowledged = {
        agent: {int(line) for line in logs[agent].read_text().split()} for agent in agents
    }
    lost, duplicates, foreign = 0, 0, 0
    for agent in agents:
        scope = f"agent:{agent}"
        numbers = [
            int(memory.content.split(f"{agent}-")[1].split()[0])
            for memory in memories
            if memory.scope == scope and f"{agent}-" in memory.content
        ]
        foreign += sum(
            1 for memory in memories if memory.scope == scope and f"{agent}-" not in memory.content
        )
        duplicates += len(numbers) - len(set(numbers))
        lost += len(acknowledged[agent] - set(numbers))
    return {
        "processes": processes,
        "turns_per_process": turns,
        "kills": killed,
        "acknowledged_turns": sum(len(numbers) for numbers in acknowledged.values()),
        "memories": len(memories),
        "lost": lost,
        "duplicates": duplicates,
        "foreign": foreign,
        "seconds": round(time.perf_counter() - started, 1),
    }


TOPICS = (
    "backup server",
    "release train",
    "staging cluster",
    "on-call rota",
    "VPN gateway",
    "billing job",
    "design review",
    "data warehouse",
    "load balancer",
    "office move",
)


def directory_bytes(root: Path) -> int:
    return sum(path.stat().st_size for path in root.rglob("*") if path.is_file())


def mixed(operations: int, root: Path, access_write_seconds: float | None) -> dict[str, object]:
    """``operations`` mixed operations by one agent; the store's growth and recall over time."""
    from openclaw_tinmem.config import Settings
    from openclaw_tinmem.plugin.hookimpls import TinmemPlugin
    from openclaw_tinmem.plugin.host import Host, load_plugins

    overrides: dict[str, object] = {"db_path": str(root / "db"), "journal_path": str(root / "j")}
    if access_write_seconds is not None:
        overrides["access_write_seconds"] = access_write_seconds
    settings = Settings(**overrides)  # type: ignore[arg-type]
    plugin = TinmemPlugin(settings)
    host = Host(load_plugins([plugin], entry_points=False), lambda messages, tools: "Noted.")
    session = host.start_session(agent_id="soak")
    rng = random.Random(7)
    stored: list[str] = []
    window = max(1, operations // 10)
    recall_times: list[float] = []
    rows: list[dict[str, object]] = []
    started = time.perf_counter()
    for step in range(1, operations + 1):
        topic = rng.choice(TOPICS)
        kind = rng.choices(("turn", "recall", "store", "update", "forget"), (3, 3, 2, 1, 1))[0]
        if kind == "turn":
            host.turn(session, f"We decided the {topic} moves to rack {step} next week.")
        elif kind == "recall":
            began = time.perf_counter()
            host.call_tool("memory_recall", {"query": f"where is the {topic}?"}, session)
            recall_times.append(time.perf_counter() - began)
        elif kind == "store":
            result = host.call_tool(
                "memory_store",
                {
                    "content": f"The {topic} owner for item {step} is team {step % 7}.",
                    "category": "entities",
                },
                session,
            )
            stored.append(result.data["id"])
        elif stored and kind == "update":
            memory_id = rng.choice(stored)
            host.call_tool("memory_update", {"id": memory_id, "importance": rng.random()}, session)
        elif stored and kind == "forget":
            host.call_tool("memory_forget", {"id": stored.pop(rng.randrange(len(stored)))}, session)
        if step % window == 0:
            plugin.worker.flush(600)
            table = plugin.service.store.table
            rows.append(
                {
                    "operations": step,
                    "versions": len(table.list_versions()),
                    "megabytes": round(directory_bytes(root / "db") / 1e6, 2),
                    "memories": int(table.count_rows()),
                    "recall_p50_ms": round(1000 * statistics.median(recall_times), 1)
                    if recall_times
                    else None,
                }
            )
            print(json.dumps(rows[-1]), flush=True)
            recall_times = []
    # then reads alone, at a fixed size: they must commit nothing and hold their speed
    plugin.worker.flush(600)
    table = plugin.service.store.table
    before = (len(table.list_versions()), directory_bytes(root / "db"))
    reads: list[float] = []
    for _ in range(max(1, operations // 4)):
        began = time.perf_counter()
        host.call_tool("memory_recall", {"query": f"where is the {rng.choice(TOPICS)}?"}, session)
        reads.append(time.perf_counter() - began)
    after = (len(table.list_versions()), directory_bytes(root / "db"))
    plugin.close()
    half = len(reads) // 2
    return {
        "operations": operations,
        "access_write_seconds": settings.access_write_seconds,
        "seconds": round(time.perf_counter() - started, 1),
        "over_time": rows,
        "reads_only": {
            "recalls": len(reads),
            "versions": [before[0], after[0]],
            "megabytes": [round(before[1] / 1e6, 2), round(after[1] / 1e6, 2)],
            "recall_p50_ms_first_half": round(1000 * statistics.median(reads[:half]), 1),
            "recall_p50_ms_second_half": round(1000 * statistics.median(reads[half:]), 1),
        },
        "megabytes_after_close": round(directory_bytes(root / "db") / 1e6, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=3, help="Agent processes at once.")
    parser.add_argument("--turns", type=int, default=200, help="Turns per agent.")
    parser.add_argument("--kills", type=int, default=8, help="SIGKILLs in all.")
    parser.add_argument(
        "--mixed",
        type=int,
        default=0,
        help="Mixed operations by one agent instead: the store's growth and recall p50 over time.",
    )
    parser.add_argument(
        "--access-write-seconds",
        type=float,
        default=None,
        help="With --mixed: this access_write_seconds instead of the default "
        "(0: access statistics written after every recall).",
    )
    parser.add_argument("--output", type=Path, default=None)
    arguments = parser.parse_args()
    if arguments.mixed:
        with tempfile.TemporaryDirectory(prefix="tinmem-soak-") as root:
            report = mixed(arguments.mixed, Path(root), arguments.access_write_seconds)
        print(json.dumps(report, indent=2))
        save_results(arguments.output or Path("benchmarks/results/soak_mixed.json"), report)
        return
    arguments.output = arguments.output or Path("benchmarks/results/soak.json")
    with tempfile.TemporaryDirectory(prefix="tinmem-soak-") as root:
        results = run(arguments.processes, arguments.turns, arguments.kills, Path(root))
    print(json.dumps(results, indent=2))
    save_results(arguments.output, results)
    if results["lost"] or results["duplicates"] or results["foreign"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
