from datetime import timedelta

import pytest

from openclaw_tinmem.config import Settings
from openclaw_tinmem.models import Category, Memory, utc_now
from openclaw_tinmem.recall.scoring import final_score, recency, rerank_text


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
