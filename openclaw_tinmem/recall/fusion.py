"""Weighted reciprocal-rank fusion of the retrievers, and re-ordering after a re-scoring stage."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from openclaw_tinmem.models import MatchKind


@dataclass(frozen=True)
class Candidate:
    """A memory id with its fused relevance, how it matched and its cosine similarity."""

    id: str
    relevance: float
    match: MatchKind
    similarity: float | None = None


def fuse(
    vector_ranked: Sequence[tuple[str, float]],
    text_ranked: Sequence[tuple[str, float]],
    *,
    rrf_k: float,
    vector_weight: float = 1.0,
    text_weight: float = 1.0,
) -> list[Candidate]:
    """Weighted reciprocal-rank fusion, normalised so that first in both lists scores 1.0."""
    scores: dict[str, float] = {}
    similarity: dict[str, float] = {}
    in_vector: set[str] = set()
    in_text: set[str] = set()
    for rank, (memory_id, cosine) in enumerate(vector_ranked):
        scores[memory_id] = scores.get(memory_id, 0.0) + vector_weight / (rrf_k + rank + 1)
        similarity[memory_id] = cosine
        in_vector.add(memory_id)
    for rank, (memory_id, _) in enumerate(text_ranked):
        scores[memory_id] = scores.get(memory_id, 0.0) + text_weight / (rrf_k + rank + 1)
        in_text.add(memory_id)
    ceiling = (vector_weight + text_weight) / (rrf_k + 1) or 1.0
    candidates = [
        Candidate(
            id=memory_id,
            relevance=score / ceiling,
            match=_match_kind(memory_id in in_vector, memory_id in in_text),
            similarity=similarity.get(memory_id),
        )
        for memory_id, score in scores.items()
    ]
    return sorted(candidates, key=lambda candidate: candidate.relevance, reverse=True)


def _match_kind(vector: bool, text: bool) -> MatchKind:
    if vector and text:
        return MatchKind.BOTH
    return MatchKind.VECTOR if vector else MatchKind.FULL_TEXT


def apply_rerank(candidates: Sequence[Candidate], relevances: Sequence[float]) -> list[Candidate]:
    """Order the first ``len(relevances)`` candidates by their new relevance; the rest follow.

    Candidates that were not re-scored keep their order below the lowest re-scored one.
    """
    rescored = [
        replace(candidate, relevance=relevance)
        for candidate, relevance in zip(candidates, relevances, strict=False)
    ]
    rescored.sort(key=lambda candidate: candidate.relevance, reverse=True)
    floor = min((candidate.relevance for candidate in rescored), default=1.0)
    rest = [
        replace(candidate, relevance=candidate.relevance * floor)
        for candidate in candidates[len(relevances) :]
    ]
    return rescored + rest
