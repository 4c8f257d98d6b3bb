from datetime import timedelta

import pytest

from openclaw_tinmem.config import Settings
from openclaw_tinmem.models import Category, MatchKind, Memory, utc_now
from openclaw_tinmem.recall import (
    apply_rerank,
    final_score,
    fuse,
    is_small_talk,
    recency,
    rerank_text,
    sigmoid,
)


def test_fusion_rewards_agreement_and_reports_match_kind() -> None:
    vector = [("a", 0.9), ("b", 0.8), ("c", 0.7)]
    text = [("b", 5.0), ("d", 4.0)]
    fused = fuse(vector, text, rrf_k=60)
    assert [candidate.id for candidate in fused][:1] == ["b"]
    kinds = {candidate.id: candidate.match for candidate in fused}
    assert kinds == {
        "a": MatchKind.VECTOR,
        "b": MatchKind.BOTH,
        "c": MatchKind.VECTOR,
        "d": MatchKind.FULL_TEXT,
    }
    assert fused[0].similarity == 0.8


def test_fusion_is_normalised_to_one_for_first_in_both() -> None:
    fused = fuse([("a", 0.5)], [("a", 1.0)], rrf_k=60)
    assert fused[0].relevance == pytest.approx(1.0)


def test_fusion_weights_shift_the_order() -> None:
    vector, text = [("v", 0.9)], [("t", 3.0)]
    assert fuse(vector, text, rrf_k=60, vector_weight=2.0)[0].id == "v"
    assert fuse(vector, text, rrf_k=60, text_weight=2.0)[0].id == "t"


def test_rerank_reorders_head_and_keeps_tail_below() -> None:
    fused = fuse([("a", 0.9), ("b", 0.8), ("c", 0.7)], [], rrf_k=60)
    reranked = apply_rerank(fused, [sigmoid(-3.0), sigmoid(4.0)])
    assert [candidate.id for candidate in reranked] == ["b", "a", "c"]
    assert reranked[2].relevance < reranked[1].relevance


def test_the_cross_encoder_reads_the_end_of_a_memory_s_context() -> None:
    memory = Memory(
        category=Category.EVENTS, headline="h", summary="s", content="Three times a week.",
        context="Great news about the gym, John! How often do you all work out together?",
    )  # fmt: skip
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
        category=Category.EVENTS, headline="h", summary="s", content="c",
        context="x" * 5000 + " the question",
    )  # fmt: skip
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


@pytest.mark.parametrize(
    "text", ["hi", "Hello there!", "thanks so much", "ok", "Got it.", "good morning"]
)
def test_small_talk_is_detected(text: str) -> None:
    assert is_small_talk(text)


@pytest.mark.parametrize(
    "text",
    [
        "hi, what database did we pick?",
        "thanks — also, I moved to Berlin",
        "okay so the deploy failed",
    ],
)
def test_real_questions_are_not_small_talk(text: str) -> None:
    assert not is_small_talk(text)
