from datetime import timedelta

import pytest

from openclaw_tinmem.config import Settings
from openclaw_tinmem.models import Category, Hit, MatchKind, Memory, utc_now
from openclaw_tinmem.recall.scoring import (
    InjectionFloors,
    final_score,
    is_worth_injecting,
    recency,
    rerank_text,
)


def test_the_cross_encoder_reads_the_end_of_a_memory_s_context() -> None:
    memory = Memory(
        category=Category.EVENTS,
        headline="h",
        summary="s",
        content="Three times a week.",
        context="Great news about the gym, John! How often do you all work out together?",
    )
    assert rerank_text(memory, 0) == "Three times a week."
    assert rerank_text(memory, 200) == f"Three times a week. (in reply to: {memory.context})"
    # cut to the last 40 characters, then forward to the next word boundary
    assert rerank_text(memory, 40) == (
        "Three times a week. (in reply to: How often do you all work out together?)"
    )
    alone = memory.model_copy(update={"context": ""})
    assert rerank_text(alone, 200) == "Three times a week."


def test_a_memory_keeps_only_the_end_of_a_long_context() -> None:
    memory = Memory(
        category=Category.EVENTS,
        headline="h",
        summary="s",
        content="c",
        context="x" * 5000 + " the question",
    )
    assert len(memory.context) == 2000 and memory.context.endswith("the question")
    assert Memory(category=Category.EVENTS, headline="h", summary="s", content="c").context == ""


def _memory(importance: float, age_days: float) -> Memory:
    moment = utc_now() - timedelta(days=age_days)
    return Memory(
        category=Category.EVENTS,
        headline="h",
        summary="s",
        content="c",
        importance=importance,
        created_at=moment,
        updated_at=moment,
    )


def test_recency_halves_after_one_half_life() -> None:
    now = utc_now()
    assert recency(_memory(0.5, 30), now, 30) == pytest.approx(0.5, rel=1e-3)


def test_importance_and_recency_break_ties_but_do_not_outvote_relevance() -> None:
    settings = Settings()
    now = utc_now()
    important = final_score(0.8, _memory(1.0, 0), now, settings)
    unimportant = final_score(0.8, _memory(0.0, 0), now, settings)
    old = final_score(0.8, _memory(0.5, 365), now, settings)
    assert important > unimportant
    assert final_score(0.8, _memory(0.5, 0), now, settings) > old
    assert final_score(0.5, _memory(1.0, 0), now, settings) < final_score(
        0.8, _memory(0.0, 365), now, settings
    )


def _hit(category: Category, similarity: float | None, relevance: float, match: MatchKind) -> Hit:
    memory = Memory(category=category, headline="h", summary="s", content="c")
    return Hit(memory, relevance, relevance, match, similarity)


@pytest.mark.parametrize(
    ("category", "similarity", "relevance", "match", "off", "on"),
    [
        # the cross-encoder's relevance suffices, with or without the fourth floor
        (Category.EVENTS, 0.1, 0.5, MatchKind.VECTOR, True, True),
        # close in meaning: needs some relevance with the floor on, exactly the floor passes
        (Category.EVENTS, 0.7, 0.0005, MatchKind.VECTOR, True, False),
        (Category.EVENTS, 0.7, 0.001, MatchKind.VECTOR, True, True),
        # sharing words at the lower closeness: the same
        (Category.ENTITIES, 0.57, 0.0, MatchKind.BOTH, True, False),
        # standing knowledge needs only be close
        (Category.PROFILE, 0.7, 0.0, MatchKind.VECTOR, True, True),
        (Category.PREFERENCES, 0.57, 0.0, MatchKind.FULL_TEXT, True, True),
        (Category.CASES, 0.7, 0.0, MatchKind.VECTOR, True, True),
        (Category.PATTERNS, 0.7, 0.0, MatchKind.VECTOR, True, True),
        # not close, not relevant; a shared word alone; no similarity known
        (Category.PROFILE, 0.5, 0.0, MatchKind.VECTOR, False, False),
        (Category.PROFILE, 0.5, 0.0, MatchKind.FULL_TEXT, False, False),
        (Category.PROFILE, None, 0.0, MatchKind.FULL_TEXT, False, False),
    ],
)
def test_what_automatic_recall_injects_with_and_without_the_fourth_floor(
    category: Category,
    similarity: float | None,
    relevance: float,
    match: MatchKind,
    off: bool,
    on: bool,
) -> None:
    hit = _hit(category, similarity, relevance, match)
    assert is_worth_injecting(hit, InjectionFloors(0.6, 0.55, 0.02)) is off
    assert is_worth_injecting(hit, InjectionFloors(0.6, 0.55, 0.02, 0.001)) is on
