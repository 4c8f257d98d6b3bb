"""Leave-one-conversation-out check of a sweep, from the retrieval harness's results files.

    python -m benchmarks.leave_one_out RESULTS.json [RESULTS.json …] [--metric frac@10]

For each conversation, the configuration with the best mean on the *other* conversations is
chosen, then scored on the one left out. A setting chosen by a sweep holds when what is chosen
this way scores, on the conversations it did not see, about what the sweep's winner scores
on all of them; when the choice keeps changing, or the held-out figure falls well below the
pooled one, the sweep fitted noise. Several files (one per benchmark) are pooled, each
conversation weighted by its questions.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any


def per_conversation(paths: list[Path], metric: str) -> dict[str, dict[str, tuple[float, int]]]:
    """configuration → conversation → (metric, questions), over every file."""
    table: dict[str, dict[str, tuple[float, int]]] = {}
    for path in paths:
        for result in json.loads(path.read_text())["results"]:
            for sample, figures in result.get("by_conversation", {}).items():
                if figures.get("questions"):
                    table.setdefault(result["name"], {})[f"{path.stem}:{sample}"] = (
                        figures[metric],
                        int(figures["questions"]),
                    )
    return table


def mean(figures: dict[str, tuple[float, int]], samples: list[str]) -> float:
    total = sum(figures[sample][1] for sample in samples)
    return sum(figures[sample][0] * figures[sample][1] for sample in samples) / total


def leave_one_out(table: dict[str, dict[str, tuple[float, int]]]) -> dict[str, Any]:
    names = [name for name, figures in table.items() if not name.startswith("peer")]
    samples = sorted(set.intersection(*(set(table[name]) for name in names)))
    chosen: dict[str, str] = {}
    held_out: dict[str, tuple[float, int]] = {}
    for sample in samples:
        others = [other for other in samples if other != sample]
        best = max(names, key=lambda name: mean(table[name], others))
        chosen[sample] = best
        held_out[sample] = table[best][sample]
    pooled = {name: round(mean(table[name], samples), 1) for name in names}
    return {
        "pooled": pooled,
        "winner": max(pooled, key=lambda name: pooled[name]),
        "chosen": chosen,
        "times_chosen": dict(Counter(chosen.values())),
        "held_out_mean": round(mean(held_out, samples), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("results", nargs="+", type=Path, help="results JSON of benchmarks.locomo")
    parser.add_argument("--metric", default="frac@10", choices=["frac@10", "ndcg@10"])
    arguments = parser.parse_args()
    print(
        json.dumps(leave_one_out(per_conversation(arguments.results, arguments.metric)), indent=2)
    )


if __name__ == "__main__":
    main()
