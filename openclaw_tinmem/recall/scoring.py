"""The final score of a recalled memory, and what the cross-encoder reads.

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
from dataclasses import dataclass
from datetime import datetime

from openclaw_tinmem.config import Settings
from openclaw_tinmem.models import Category, Hit, MatchKind, Memory
from openclaw_tinmem.recall.names import USER_FACTS, about_known_names

SECONDS_PER_DAY = 86_400.0
# What holds whatever the subject: who the user is and what they prefer, what worked before
# and how they go about things. Of these, being close to the message is enough to inject.
STANDING_KNOWLEDGE = USER_FACTS | {Category.CASES, Category.PATTERNS}


def rerank_text(memory: Memory, context_characters: int, passage: str | None = None) -> str:
    """What the cross-encoder reads: the memory (or, of a long one, the passage the query is
    about: ``passages.py``), then the end of its context, if any.

    A reply such as "Three times a week" means little to the cross-encoder on its own; the
    end of the message it answered ("...how often do you all work out together?") restores
    the missing half. Only the end: the whole of a long message drowns the memory.
    """
    text = memory.content if passage is None else passage
    if not memory.context or context_characters <= 0:
        return text
    tail = memory.context[-context_characters:]
    if len(memory.context) > context_characters and " " in tail:
        tail = tail.split(" ", 1)[1]  # start at a word boundary
    return f"{text} (in reply to: {tail})"


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


def is_related(hit: Hit, min_similarity: float) -> bool:
    """Whether a recalled memory relates to the query at all.

    Ranking always fills its list, related or not. A memory that shares words with the query
    (a full-text match) is related; one found by meaning alone must be close in embedding
    space: its cosine similarity to the query at least ``min_similarity`` (0: any).
    """
    if hit.match is not MatchKind.VECTOR or min_similarity <= 0:
        return True
    return hit.similarity is not None and hit.similarity >= min_similarity


@dataclass(frozen=True)
class InjectionFloors:
    """What a reranked memory must reach to be injected before a turn."""

    similarity: float  # its embedding's cosine to the message
    word_match_similarity: float  # the same, for a memory that shares words with it
    relevance: float  # the cross-encoder's relevance, 0–1
    # the relevance a memory admitted by closeness must still have (``STANDING_KNOWLEDGE``
    # exempt)
    similarity_relevance: float = 0.0

    @classmethod
    def from_settings(cls, settings: Settings) -> InjectionFloors:
        return cls(
            settings.injection_min_similarity,
            settings.injection_word_match_min_similarity,
            settings.injection_min_relevance,
            settings.injection_similarity_min_relevance,
        )


def is_worth_injecting(hit: Hit, floors: InjectionFloors) -> bool:
    """Whether automatic recall should inject a reranked memory.

    The cross-encoder finding it relevant suffices. So does being close in meaning (an
    assistant's "suggest a snack" finds a peanut allergy this way, which a question-answering
    cross-encoder scores near 0), or sharing words with the message at a lower closeness
    ("where do I live" finds "User lives in Berlin") — unless the cross-encoder finds the
    memory answers nothing at all (below ``similarity_relevance``): in conversations about
    one's work and life, nearly every question is close to something said, about another
    matter. Standing knowledge (the user's profile and preferences, cases, patterns) bears on
    any subject ("set up the CI pipeline" and how a missing secret once broke the deploy), so
    for it closeness is enough. Sharing a word alone never is: with whole exchanges stored,
    nearly every message shares one with something. (A hit below the cross-encoder's head
    carries a relevance under the head's lowest, ``fusion.apply_rerank``: with the floor on
    it is injected only if it is standing knowledge or the head itself was relevant.)
    """
    if hit.relevance >= floors.relevance:
        return True
    if (
        hit.relevance < floors.similarity_relevance
        and hit.memory.category not in STANDING_KNOWLEDGE
    ):
        return False
    similarity = hit.similarity if hit.similarity is not None else -1.0
    if similarity >= floors.similarity:
        return True
    return hit.match is not MatchKind.VECTOR and similarity >= floors.word_match_similarity


def worth_injecting(message: str, hits: list[Hit], floors: InjectionFloors | None) -> list[Hit]:
    """What automatic recall injects of ``hits``: those that pass ``floors`` (all of them
    with None: without the cross-encoder, relevance is a rank score, not a probability), less
    what is off the subject of ``message`` (``names.about_known_names``)."""
    kept = hits if floors is None else [hit for hit in hits if is_worth_injecting(hit, floors)]
    return about_known_names(message, hits, kept)
