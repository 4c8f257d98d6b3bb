import math

import pytest

from benchmarks.metrics import (
    aggregate,
    all_at,
    any_at,
    fraction_at,
    ndcg_at,
    normalise_dia_id,
    parse_evidence,
    reciprocal_rank,
    score_question,
    session_any_at,
)

RANKED = ["D1:3", "D2:1", "D1:4", "D3:7", "D1:1"]


def test_dia_ids_are_normalised_and_malformed_ones_counted() -> None:
    assert normalise_dia_id("D30:05") == "D30:5"
    assert normalise_dia_id("D:11:26") is None and normalise_dia_id("session 3") is None
    assert parse_evidence(["D1:3", "D:11:26", "D1:03", "D2:1"]) == (["D1:3", "D2:1"], 1)


def test_fraction_all_any() -> None:
    evidence = ["D1:4", "D9:9"]
    assert fraction_at(RANKED, evidence, 5) == 0.5
    assert fraction_at(RANKED, evidence, 2) == 0.0
    assert all_at(RANKED, evidence, 5) == 0.0 and all_at(RANKED, ["D1:3", "D1:1"], 5) == 1.0
    assert any_at(RANKED, evidence, 3) == 1.0 and any_at(RANKED, evidence, 2) == 0.0


def test_ndcg_by_hand() -> None:
    # relevant at ranks 1 and 3 of two relevant items: (1 + 1/log2(4)) / (1 + 1/log2(3))
    expected = (1 + 1 / math.log2(4)) / (1 + 1 / math.log2(3))
    assert ndcg_at(RANKED, ["D1:3", "D1:4"], 10) == pytest.approx(expected)
    assert ndcg_at(RANKED, ["D1:3"], 10) == 1.0
    assert ndcg_at(RANKED, ["D8:8"], 10) == 0.0


def test_reciprocal_rank_and_session_hits() -> None:
    assert reciprocal_rank(RANKED, ["D3:7"]) == 0.25
    assert reciprocal_rank(RANKED, ["D9:1"]) == 0.0
    assert session_any_at(RANKED, ["D3:1"], 5) == 1.0  # another turn of session 3 is ranked
    assert session_any_at(RANKED, ["D4:1"], 5) == 0.0


def test_aggregate_is_a_percentage_mean() -> None:
    scores = [score_question(RANKED, ["D1:3"], 1), score_question(RANKED, ["D9:9"], 2)]
    summary = aggregate(scores)
    assert summary["questions"] == 2 and summary["frac@5"] == 50.0 and summary["mrr"] == 50.0
