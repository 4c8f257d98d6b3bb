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
