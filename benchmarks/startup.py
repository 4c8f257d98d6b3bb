"""How fast the CLI answers: ``tinmem --version`` and ``tinmem --help`` beside ``python -c pass``.

Each command runs ``--runs`` times, interleaved, as a fresh process; the median wall time of
each is reported, with its difference from a bare interpreter (what the package itself costs).
Target: both commands answer in at most 0.3 s.

    python -m benchmarks.startup --runs 10
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.common import save_results

TARGET_SECONDS = 0.3


def commands() -> dict[str, list[str]]:
    tinmem = shutil.which("tinmem") or str(Path(sys.executable).with_name("tinmem"))
    return {
        "python -c pass": [sys.executable, "-c", "pass"],
        "tinmem --version": [tinmem, "--version"],
        "tinmem --help": [tinmem, "--help"],
        "python -c 'import openclaw_tinmem'": [sys.executable, "-c", "import openclaw_tinmem"],
    }


def run(runs: int) -> dict[str, dict[str, float]]:
    timings: dict[str, list[float]] = {name: [] for name in commands()}
    for _ in range(runs):
        for name, command in commands().items():
            started = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True)
            timings[name].append(time.perf_counter() - started)
    floor = statistics.median(timings["python -c pass"])
    return {
        name: {
            "median_seconds": round(statistics.median(values), 3),
            "above_bare_python_seconds": round(statistics.median(values) - floor, 3),
        }
        for name, values in timings.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="Runs of each command (default 10).")
    parser.add_argument(
        "--output",
        type=Path,
        default=Path("benchmarks/results/startup.json"),
        help="Where to write the JSON results.",
    )
    arguments = parser.parse_args()
    results = run(arguments.runs)
    print(f"{'command':<38} {'median s':>9} {'above python':>13}")
    for name, figures in results.items():
        print(
            f"{name:<38} {figures['median_seconds']:>9.3f} "
            f"{figures['above_bare_python_seconds']:>13.3f}"
        )
    slowest = max(
        results["tinmem --version"]["median_seconds"], results["tinmem --help"]["median_seconds"]
    )
    verdict = "met" if slowest <= TARGET_SECONDS else "NOT met"
    print(f"target ≤ {TARGET_SECONDS} s for --version and --help: {verdict}")
    save_results(arguments.output, {"runs": arguments.runs, "commands": results})


if __name__ == "__main__":
    main()
