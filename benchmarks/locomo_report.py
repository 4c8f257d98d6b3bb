"""The LoCoMo harness's markdown tables, built from the summaries in its results JSON."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

CATEGORY_NAMES = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}


def markdown_table(results: Sequence[dict[str, Any]]) -> str:
    header = "| system | frac@5 | frac@10 | all@10 | any@5 | nDCG@10 | MRR | session any@5 | p50 ms | p95 ms |"
    lines = [header, "|---|---|---|---|---|---|---|---|---|---|"]
    for result in results:
        if "skipped" in result:
            lines.append(f"| {result['name']} | skipped: {result['skipped']} |")
            continue
        o = result["overall"]
        lines.append(
            f"| {result['name']} | {o['frac@5']} | {o['frac@10']} | {o['all@10']} | {o['any@5']} | "
            f"{o['ndcg@10']} | {o['mrr']} | {o['session_any@5']} | {result['latency_p50_ms']} | {result['latency_p95_ms']} |"
        )
    return "\n".join(lines)


def category_table(results: Sequence[dict[str, Any]]) -> str:
    """frac@10 / nDCG@10 of each system by question category (5, adversarial, apart)."""
    names = [CATEGORY_NAMES[category] for category in (1, 2, 3, 4, 5)]
    lines = ["| system | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for result in results:
        if "skipped" in result:
            continue
        cells = [*(result["by_category"][name] for name in names[:4]), result["adversarial"]]
        figures = " | ".join(
            f"{cell['frac@10']} / {cell['ndcg@10']}" if cell["questions"] else "–" for cell in cells
        )
        lines.append(f"| {result['name']} | {figures} |")
    return "\n".join(lines)


def breakdown_table(results: Sequence[dict[str, Any]], key: str) -> str:
    """frac@10 / nDCG@10 of each system on each group of its summary's ``key`` (the groups of
    the first system that has them, in its order); empty when no system has any."""
    scored = [result for result in results if result.get(key)]
    if not scored:
        return ""
    groups = list(scored[0][key])
    lines = ["| system | " + " | ".join(groups) + " |", "|---|" + "---|" * len(groups)]
    for result in scored:
        cells = [result[key].get(group, {"questions": 0}) for group in groups]
        figures = " | ".join(
            f"{cell['frac@10']} / {cell['ndcg@10']}" if cell["questions"] else "–" for cell in cells
        )
        lines.append(f"| {result['name']} | {figures} |")
    return "\n".join(lines)


def conversation_table(results: Sequence[dict[str, Any]]) -> str:
    """By conversation (categories 1–4): the spread shows how far one unseen conversation
    may land from the pooled figure."""
    return breakdown_table(results, "by_conversation")


def ability_table(results: Sequence[dict[str, Any]]) -> str:
    """By BEAM ability (empty for data without abilities)."""
    return breakdown_table(results, "by_ability")


def comparison_table(results: Sequence[dict[str, Any]]) -> str:
    """The baseline's frac@10 and nDCG@10 with their 95 % bootstrap intervals, then each other
    system's paired difference from it, likewise: where an interval spans zero, the two
    systems are not told apart on these questions."""
    compared = [result for result in results if "against" in result]
    if not compared:
        return ""
    name = compared[0]["against"]["baseline"]
    baseline = next(result for result in results if result["name"] == name)
    lines = [
        "| system | frac@10 (95 % interval) | nDCG@10 (95 % interval) |",
        "|---|---|---|",
        f"| {name} | "
        + " | ".join(
            f"{baseline['overall'][metric]} ({low} to {high})"
            for metric, (low, high) in baseline["intervals"].items()
        )
        + " |",
    ]
    for result in compared:
        cells = []
        for metric in ("frac@10", "ndcg@10"):
            figure = result["against"][metric]
            low, high = figure["interval"]
            cells.append(f"{figure['difference']:+.1f} ({low:+.1f} to {high:+.1f})")
        lines.append(f"| {result['name']} − {name} | {' | '.join(cells)} |")
    return "\n".join(lines)


def length_table(results: Sequence[dict[str, Any]]) -> str:
    """Share of evidence turns in the top 10 by the turn's length in words."""
    scored = [result for result in results if result.get("evidence_by_length")]
    if not scored:
        return ""
    buckets = list(scored[0]["evidence_by_length"])
    counts = scored[0]["evidence_by_length"]
    header = " | ".join(f"{bucket} words ({counts[bucket]['turns']})" for bucket in buckets)
    lines = [f"| system | {header} |", "|---|" + "---|" * len(buckets)]
    for result in scored:
        cells = [result["evidence_by_length"][bucket]["found@10"] for bucket in buckets]
        lines.append(f"| {result['name']} | " + " | ".join(str(cell) for cell in cells) + " |")
    return "\n".join(lines)
