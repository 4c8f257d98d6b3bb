import pytest

from openclaw_tinmem.models import MatchKind
from openclaw_tinmem.recall.fusion import apply_rerank, fuse
from openclaw_tinmem.recall.scoring import sigmoid


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
