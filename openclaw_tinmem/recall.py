"""Pure ranking functions: rank fusion, reranking, the final score, and small-talk detection.

The final score of a hit is

    score = relevance × (1 − w_i − w_r + w_i × importance + w_r × recency)

where ``relevance`` in [0, 1] is the last ranking stage's: rank fusion of full-text and vector
search, then late interaction (mean best token cosine), the last of them blended with the
relevance of the memory's episode (``episodes.py``), then the cross-encoder (its logit
through a sigmoid) for the candidates each stage re-scored; ``importance`` is the memory's
own 0–1 importance, ``recency = 0.5 ** (days since last update / half_life)`` and ``w_i``,
``w_r`` are ``importance_weight`` and ``recency_weight`` from the settings. With the defaults
(0.15, 0.1) importance and age can move a hit by at most a quarter of its relevance: they
break ties between comparably relevant memories, they do not outvote relevance.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from openclaw_tinmem.config import Settings
from openclaw_tinmem.models import MatchKind, Memory

SECONDS_PER_DAY = 86_400.0


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


def rerank_text(memory: Memory, context_characters: int) -> str:
    """What the cross-encoder reads: the memory, then the end of its context, if any.

    A reply such as "Three times a week" means little to the cross-encoder on its own; the
    end of the message it answered ("...how often do you all work out together?") restores
    the missing half. Only the end: the whole of a long message drowns the memory.
    """
    if not memory.context or context_characters <= 0:
        return memory.content
    tail = memory.context[-context_characters:]
    if len(memory.context) > context_characters and " " in tail:
        tail = tail.split(" ", 1)[1]  # start at a word boundary
    return f"{memory.content} (in reply to: {tail})"


def sigmoid(value: float) -> float:
    """Cross-encoder logits become relevance in (0, 1) through the logistic function."""
    return 1.0 / (1.0 + math.exp(-max(min(value, 50.0), -50.0)))


def recency(memory: Memory, now: datetime, half_life_days: float) -> float:
    """1.0 for a memory updated now, 0.5 after one half-life, approaching 0 with age."""
    age_days = max((now - memory.updated_at).total_seconds(), 0.0) / SECONDS_PER_DAY
    return float(0.5 ** (age_days / half_life_days))


def final_score(relevance: float, memory: Memory, now: datetime, settings: Settings) -> float:
    """The documented score: relevance weighted by importance and recency."""
    weight_importance = settings.importance_weight
    weight_recency = settings.recency_weight
    base = max(1.0 - weight_importance - weight_recency, 0.0)
    factor = (
        base
        + weight_importance * memory.importance
        + weight_recency * recency(memory, now, settings.recency_half_life_days)
    )
    return relevance * factor


_SMALL_TALK = re.compile(
    r"^(?:hi|hello|hey|hiya|yo|howdy|greetings|good (?:morning|afternoon|evening|night)|"
    r"thanks?|thank you|thx|ty|cheers|ok(?:ay)?|k|sure|yes|yep|yeah|no|nope|cool|great|nice|"
    r"got it|sounds good|alright|bye|goodbye|see you|lol|haha|hmm+)"
    r"(?:[\s,]+(?:there|so much|a lot|again|you|man|all|everyone|then|thanks))*[\s!.?,]*$",
    re.IGNORECASE,
)


def is_small_talk(text: str) -> bool:
    """True for a message that is only a greeting or an acknowledgement."""
    return bool(_SMALL_TALK.match(text.strip()))
