import math

import pytest

from benchmarks.metrics import (
    aggregate,
    all_at,
    any_at,
    compare,
    fraction_at,
    interval,
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


def test_interval_of_a_constant_is_that_constant() -> None:
    assert interval([0.5] * 40) == (50.0, 50.0)


def test_interval_brackets_the_mean_with_the_expected_width() -> None:
    values = [0.0, 1.0] * 50  # mean 0.5, standard error 0.05: about ±9.8 points at 95 %
    low, high = interval(values)
    assert low < 50.0 < high
    assert 15.0 < high - low < 25.0
    assert interval(values) == (low, high)  # seeded: the same scores give the same interval
    assert interval(values * 16)[1] - interval(values * 16)[0] < (high - low) / 2


def test_interval_rejects_what_it_cannot_measure() -> None:
    with pytest.raises(ValueError, match="values"):
        interval([])
    with pytest.raises(ValueError, match="confidence"):
        interval([1.0], confidence=1.5)


def test_compare_is_a_paired_difference() -> None:
    hit, miss = ["D1:1"], ["D9:9"]
    baseline = [score_question(hit if n % 2 else miss, ["D1:1"], 4) for n in range(60)]
    same = compare(baseline, baseline, "frac@10")
    assert same == {"difference": 0.0, "interval": [0.0, 0.0]}
    # better on every question the baseline missed: +50 points, nowhere near zero
    better = [score_question(hit, ["D1:1"], 4) for _ in range(60)]
    result = compare(better, baseline, "frac@10")
    assert result["difference"] == 50.0
    low, high = result["interval"]  # type: ignore[misc]
    assert 0.0 < low < 50.0 < high


def test_compare_refuses_different_questions() -> None:
    one = [score_question(["D1:1"], ["D1:1"], 4)]
    with pytest.raises(ValueError, match="same questions"):
        compare(one, one * 2, "frac@10")
    with pytest.raises(ValueError, match="category"):
        compare(one, [score_question(["D1:1"], ["D1:1"], 2)], "frac@10")
    with pytest.raises(ValueError, match="at least one"):
        compare([], [], "frac@10")
