"""Retrieval metrics for the LoCoMo protocol: pure functions over ranked dia_ids.

Evidence ids look like "D<session>:<turn>". A few in the public data are malformed
("D:11:26", "D30:05" with a leading zero is accepted); ``parse_evidence`` separates them so
they are counted instead of crashing or silently matching.

A pooled figure from a few hundred questions carries sampling error, so ``interval`` gives a
bootstrap interval for a mean and ``compare`` the paired difference of two systems asked the
same questions: a change whose interval spans zero is not distinguishable from noise.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

_DIA_ID = re.compile(r"^D(\d+):(\d+)$")


def normalise_dia_id(raw: str) -> str | None:
    """Canonical "D<session>:<turn>" (leading zeros dropped), or None if malformed."""
    match = _DIA_ID.match(str(raw).strip())
    return f"D{int(match.group(1))}:{int(match.group(2))}" if match else None


def parse_evidence(evidence: Sequence[str]) -> tuple[list[str], int]:
    """(unique well-formed evidence ids in order, number of malformed ids)."""
    valid: list[str] = []
    malformed = 0
    for raw in evidence:
        normalised = normalise_dia_id(raw)
        if normalised is None:
            malformed += 1
        elif normalised not in valid:
            valid.append(normalised)
    return valid, malformed


def session_of(dia_id: str) -> str:
    return dia_id.split(":")[0]


def fraction_at(ranked: Sequence[str], evidence: Sequence[str], k: int) -> float:
    """Share of the evidence turns found in the top k (LoCoMo's recall)."""
    top = set(ranked[:k])
    return sum(1 for item in evidence if item in top) / len(evidence)


def all_at(ranked: Sequence[str], evidence: Sequence[str], k: int) -> float:
    return 1.0 if set(evidence) <= set(ranked[:k]) else 0.0


def any_at(ranked: Sequence[str], evidence: Sequence[str], k: int) -> float:
    return 1.0 if set(evidence) & set(ranked[:k]) else 0.0


def ndcg_at(ranked: Sequence[str], evidence: Sequence[str], k: int) -> float:
    """Binary-relevance nDCG@k."""
    relevant = set(evidence)
    gain = sum(
        1.0 / math.log2(rank + 2) for rank, item in enumerate(ranked[:k]) if item in relevant
    )
    ideal = sum(1.0 / math.log2(rank + 2) for rank in range(min(len(relevant), k)))
    return gain / ideal if ideal else 0.0


def reciprocal_rank(ranked: Sequence[str], evidence: Sequence[str]) -> float:
    relevant = set(evidence)
    return next((1.0 / (rank + 1) for rank, item in enumerate(ranked) if item in relevant), 0.0)


def session_any_at(ranked: Sequence[str], evidence: Sequence[str], k: int) -> float:
    sessions = {session_of(item) for item in evidence}
    return 1.0 if any(session_of(item) in sessions for item in ranked[:k]) else 0.0


METRICS = ("frac@5", "frac@10", "all@10", "any@5", "ndcg@10", "mrr", "session_any@5")


@dataclass(frozen=True)
class QuestionScore:
    category: int
    values: dict[str, float]


def score_question(ranked: Sequence[str], evidence: Sequence[str], category: int) -> QuestionScore:
    return QuestionScore(
        category,
        {
            "frac@5": fraction_at(ranked, evidence, 5),
            "frac@10": fraction_at(ranked, evidence, 10),
            "all@10": all_at(ranked, evidence, 10),
            "any@5": any_at(ranked, evidence, 5),
            "ndcg@10": ndcg_at(ranked, evidence, 10),
            "mrr": reciprocal_rank(ranked, evidence),
            "session_any@5": session_any_at(ranked, evidence, 5),
        },
    )


def aggregate(scores: Sequence[QuestionScore]) -> dict[str, float]:
    """Mean of each metric, as a percentage, plus the question count."""
    if not scores:
        return {"questions": 0}
    result: dict[str, float] = {"questions": len(scores)}
    for metric in METRICS:
        result[metric] = round(100 * sum(s.values[metric] for s in scores) / len(scores), 1)
    return result


def interval(
    values: Sequence[float], *, resamples: int = 2000, confidence: float = 0.95, seed: int = 0
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``values`` (resampled with replacement), as
    percentages. Seeded, so the same scores always give the same interval."""
    if not values:
        raise ValueError("values: at least one value is needed for an interval")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence: must lie between 0 and 1, got {confidence}")
    array = np.asarray(values, dtype=np.float64)
    generator = np.random.default_rng(seed)
    means = array[generator.integers(0, len(array), size=(resamples, len(array)))].mean(axis=1)
    tail = (1 - confidence) / 2
    low, high = np.quantile(means, [tail, 1 - tail])
    return round(100 * float(low), 1), round(100 * float(high), 1)


def compare(
    scores: Sequence[QuestionScore], baseline: Sequence[QuestionScore], metric: str
) -> dict[str, float | list[float]]:
    """Mean per-question difference ``scores − baseline`` in ``metric`` (percentage points),
    with its paired bootstrap interval. Both must score the same questions in the same order."""
    if not scores:
        raise ValueError("scores: at least one question is needed for a comparison")
    if len(scores) != len(baseline):
        raise ValueError(
            f"scores: {len(scores)} questions against {len(baseline)} in the baseline; "
            "a paired comparison needs the same questions"
        )
    if any(a.category != b.category for a, b in zip(scores, baseline, strict=True)):
        raise ValueError("scores: the questions differ in category from the baseline's")
    differences = [
        a.values[metric] - b.values[metric] for a, b in zip(scores, baseline, strict=True)
    ]
    return {
        "difference": round(100 * sum(differences) / len(differences), 1),
        "interval": list(interval(differences)),
    }
