"""Retrieval metrics for the LoCoMo protocol: pure functions over ranked dia_ids.

Evidence ids look like "D<session>:<turn>". A few in the public data are malformed
("D:11:26", "D30:05" with a leading zero is accepted); ``parse_evidence`` separates them so
they are counted instead of crashing or silently matching.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

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
    return QuestionScore(category, {
        "frac@5": fraction_at(ranked, evidence, 5),
        "frac@10": fraction_at(ranked, evidence, 10),
        "all@10": all_at(ranked, evidence, 10),
        "any@5": any_at(ranked, evidence, 5),
        "ndcg@10": ndcg_at(ranked, evidence, 10),
        "mrr": reciprocal_rank(ranked, evidence),
        "session_any@5": session_any_at(ranked, evidence, 5),
    })  # fmt: skip


def aggregate(scores: Sequence[QuestionScore]) -> dict[str, float]:
    """Mean of each metric, as a percentage, plus the question count."""
    if not scores:
        return {"questions": 0}
    result: dict[str, float] = {"questions": len(scores)}
    for metric in METRICS:
        result[metric] = round(100 * sum(s.values[metric] for s in scores) / len(scores), 1)
    return result
