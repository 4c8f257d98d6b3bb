"""A longer soak than the fault suite: turns from several processes, killed at random.

    python -m benchmarks.soak --processes 3 --turns 200 --kills 8

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
        db_path=str(root / "db"), journal_path=str(root / "journal"), track_access=False,
        rerank=False, capture_retry_seconds=0.0,
    )  # fmt: skip
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
        foreign += sum(1 for memory in memories if memory.scope == scope
                       and f"{agent}-" not in memory.content)  # fmt: skip
        duplicates += len(numbers) - len(set(numbers))
        lost += len(acknowledged[agent] - set(numbers))
    return {
        "processes": processes, "turns_per_process": turns, "kills": killed,
        "acknowledged_turns": sum(len(numbers) for numbers in acknowledged.values()),
        "memories": len(memories), "lost": lost, "duplicates": duplicates,
        "foreign": foreign, "seconds": round(time.perf_counter() - started, 1),
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=3, help="Agent processes at once.")
    parser.add_argument("--turns", type=int, default=200, help="Turns per agent.")
    parser.add_argument("--kills", type=int, default=8, help="SIGKILLs in all.")
    parser.add_argument("--output", type=Path, default=Path("benchmarks/results/soak.json"))
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tinmem-soak-") as root:
        results = run(arguments.processes, arguments.turns, arguments.kills, Path(root))
    print(json.dumps(results, indent=2))
    save_results(arguments.output, results)
    if results["lost"] or results["duplicates"] or results["foreign"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
