"""The LoCoMo harness's results: the scores of one configuration's run, and their summary
as written to the results JSON."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from benchmarks.locomo_report import CATEGORY_NAMES
from benchmarks.metrics import QuestionScore, aggregate, compare, interval


@dataclass
class RunResult:
    name: str
    scores: list[QuestionScore] = field(default_factory=list)
    conversation_of: list[str] = field(default_factory=list)  # beside scores, one per question
    adversarial: list[QuestionScore] = field(default_factory=list)
    latencies_ms: list[float] = field(default_factory=list)
    tokens: dict[str, list[int]] = field(default_factory=dict)
    ability_of: list[str] = field(default_factory=list)  # beside scores
    deep: list[float] = field(default_factory=list)  # frac@k of a run deeper than 10
    # each evidence turn of a category 1-4 question: (its length in words, found in the top 10)
    evidence_found: list[tuple[int, bool]] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        latencies = sorted(self.latencies_ms)
        result: dict[str, Any] = {
            "name": self.name,
            "overall": aggregate(self.scores),
            "intervals": {
                metric: list(interval([score.values[metric] for score in self.scores]))
                for metric in ("frac@10", "ndcg@10")
            }
            if self.scores
            else {},
            "by_category": {
                CATEGORY_NAMES[c]: aggregate([s for s in self.scores if s.category == c])
                for c in (1, 2, 3, 4)
            },
            "by_conversation": self._grouped(self.conversation_of),
            "by_ability": self._grouped(self.ability_of, order=True),
            "evidence_by_length": evidence_by_length(self.evidence_found),
            "adversarial": aggregate(self.adversarial),
            "latency_p50_ms": round(statistics.median(latencies), 1) if latencies else None,
            "latency_p95_ms": round(latencies[int(0.95 * (len(latencies) - 1))], 1)
            if latencies
            else None,
        }
        if self.deep:
            result["frac_at_depth"] = round(100 * statistics.mean(self.deep), 1)
        if self.tokens:
            result["tokens_per_query"] = {
                level: round(statistics.mean(values), 1) for level, values in self.tokens.items()
            }
        return result

    def _grouped(self, labels: Sequence[str], order: bool = False) -> dict[str, dict[str, float]]:
        """The scores aggregated per label (``labels`` runs beside ``scores``), in the order
        the labels first appear, or sorted (``order``); questions without a label ("") are
        left out."""
        distinct = sorted(set(labels)) if order else list(dict.fromkeys(labels))
        return {
            label: aggregate(
                [score for score, of in zip(self.scores, labels, strict=True) if of == label]
            )
            for label in distinct
            if label
        }

    def against(self, baseline: RunResult) -> dict[str, Any]:
        """Paired differences from ``baseline`` (asked the same questions) with intervals."""
        return {
            "baseline": baseline.name,
            **{
                metric: compare(self.scores, baseline.scores, metric)
                for metric in ("frac@10", "ndcg@10")
            },
        }


LENGTH_BUCKETS = ((0, 50), (51, 150), (151, 400), (401, 10**9))


def evidence_by_length(found: Sequence[tuple[int, bool]]) -> dict[str, dict[str, float]]:
    """Share of evidence turns found in the top 10, by the turn's length in words: where a
    long turn's detail is lost, it shows here."""
    table: dict[str, dict[str, float]] = {}
    for low, high in LENGTH_BUCKETS:
        hits = [hit for words, hit in found if low <= words <= high]
        label = f"{low}-{high}" if high < 10**9 else f">{low - 1}"
        table[label] = {
            "turns": len(hits),
            "found@10": round(100 * sum(hits) / len(hits), 1) if hits else 0.0,
        }
    return table


def add_comparisons(results: list[dict[str, Any]], runs: Sequence[RunResult]) -> None:
    """Set each summary's paired difference from the default (or the first run without it)."""
    if len(runs) < 2:
        return
    baseline = next((run for run in runs if run.name == "default"), runs[0])
    by_name = {result["name"]: result for result in results}
    for run in runs:
        if run is not baseline:
            by_name[run.name]["against"] = run.against(baseline)
