"""Does the first turn of an OpenClaw run get memory? A cold Python side against the budget.

    python -m benchmarks.openclaw_first_turn --runs 5

Two figures, on one store holding a fact for agent ``main``:

- cold start: ``tinmem bridge`` started ``--runs`` times, each asked at once, and again
  until it answers with the fact, to recall for a prompt; the time from spawn to that
  answer, against the plugin's default 3000 ms recall budget. This is what a first turn
  would wait if the Python side started at the turn's recall.
- ``openclaw agent --local``: ``--runs`` one-turn runs of the pinned OpenClaw 2026.9.6
  (integrations/openclaw-test-host) under its default configuration plus the consent setting,
  each a new process with a cold Python side that the plugin starts when OpenClaw loads it;
  how many turns had the fact in their ``<agent-experience>`` block and how many logged a
  recall timeout.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import percentiles, save_results
from openclaw_tinmem.config import Settings
from openclaw_tinmem.models import Category
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.testing import FakeLLM, Reply
from tests.integrations.openclaw_home import OPENCLAW, TINMEM, OpenClaw, user_text

FACT = "The user is allergic to peanuts."
PROMPT = "What food am I allergic to?"
BUDGET_MS = 3000


def cold_start_ms(settings: Settings) -> float:
    """Spawn to the first recall that finds the fact, asking again until one does (a recall
    made while the models are still loading gives up at the plugin's own time box)."""
    environment = {
        **os.environ,
        "TINMEM_DB_PATH": settings.db_path,
        "TINMEM_JOURNAL_PATH": settings.journal_path,
    }
    started = time.perf_counter()
    bridge = subprocess.Popen(
        [str(TINMEM), "bridge"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=environment,
    )
    assert bridge.stdin is not None and bridge.stdout is not None
    try:
        for attempt in range(1, 200):
            request = {
                "id": attempt,
                "method": "hook",
                "params": {
                    "hook": "before_prompt_build",
                    "event": {"prompt": PROMPT},
                    "ctx": {"agentId": "main"},
                },
            }
            bridge.stdin.write(json.dumps(request) + "\n")
            bridge.stdin.flush()
            answer = json.loads(bridge.stdout.readline())
            if "peanuts" in (answer.get("result") or {}).get("prependContext", ""):
                return (time.perf_counter() - started) * 1000
            time.sleep(0.1)
        raise AssertionError("the bridge never recalled the fact")
    finally:
        bridge.stdin.close()
        bridge.wait(60)


def agent_turns(settings: Settings, runs: int, home: Path) -> dict[str, Any]:
    with FakeLLM(default=Reply(raw="Noted.")) as model:
        openclaw = OpenClaw(home, model, settings)
        remembered = timeouts = 0
        walls = []
        for run in range(runs):
            started = time.perf_counter()
            _, logged = openclaw.turn(f"first-turn-{run}", PROMPT)
            walls.append((time.perf_counter() - started) * 1000)
            remembered += "peanuts" in user_text(model.requests[-1])
            timeouts += "took longer" in logged
    return {
        "runs": runs,
        "turns_with_memory": remembered,
        "recall_timeouts": timeouts,
        "process_wall_ms": percentiles(walls),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--output", type=Path, default=Path("benchmarks/results/first_turn.json"))
    arguments = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="tinmem-first-turn-"))
    settings = Settings(db_path=str(root / "db"), journal_path=str(root / "journal"))
    service = MemoryService.from_settings(settings)
    service.remember(FACT, Category.PROFILE, scope="agent:main")
    service.close()
    colds = [cold_start_ms(settings) for _ in range(arguments.runs)]
    cold = {
        **percentiles(colds),
        "max": round(max(colds), 2),
        "runs": arguments.runs,
        "within_budget": sum(c <= BUDGET_MS for c in colds),
    }
    results: dict[str, Any] = {"command": " ".join(sys.argv), "cold_start_to_first_recall_ms": cold}
    if OPENCLAW.exists():
        results["openclaw_agent_local"] = agent_turns(settings, arguments.runs, root / "home")
    print(json.dumps(results, indent=2))
    save_results(arguments.output, results)


if __name__ == "__main__":
    main()
