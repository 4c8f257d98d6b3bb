from datetime import UTC, datetime, timedelta

import pytest

from openclaw_tinmem.recall.episodes import blend_with_episodes, episode_numbers

START = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
GAP = timedelta(minutes=30)


def at(minutes: float) -> datetime:
    return START + timedelta(minutes=minutes)


def test_times_within_the_gap_of_a_neighbour_share_an_episode() -> None:
    # given out of order; 0, 20 and 45 chain (each within 30 minutes of the next)
    times = [at(45), at(0), at(200), at(20), at(231)]
    assert episode_numbers(times, GAP) == [0, 0, 1, 0, 2]


def test_identical_times_form_one_episode() -> None:
    assert episode_numbers([at(0)] * 3, GAP) == [0, 0, 0]
    assert episode_numbers([], GAP) == []


def test_relevance_moves_towards_the_mean_of_the_episodes_two_best() -> None:
    relevances = [0.9, 0.5, 0.7, 0.4]
    times = [at(0), at(5), at(500), at(501)]
    blended = blend_with_episodes(relevances, times, gap=GAP, weight=1.0)
    first_episode, second_episode = (0.9 + 0.5) / 2, (0.7 + 0.4) / 2
    assert blended == pytest.approx(
        [
            (0.9 + first_episode) / 2,
            (0.5 + first_episode) / 2,
            (0.7 + second_episode) / 2,
            (0.4 + second_episode) / 2,
        ]
    )
    # the weaker memory beside the best match now outranks the other episode's second
    assert blended[1] > blended[3]


def test_a_memory_alone_in_its_episode_keeps_its_relevance() -> None:
    blended = blend_with_episodes([0.8, 0.3], [at(0), at(100)], gap=GAP, weight=0.75)
    assert blended == pytest.approx([0.8, 0.3])


def test_one_episode_changes_no_order_and_weight_zero_changes_nothing() -> None:
    relevances = [0.2, 0.9, 0.5, 0.7]
    blended = blend_with_episodes(relevances, [at(0)] * 4, gap=GAP, weight=0.75)
    assert sorted(range(4), key=lambda i: -blended[i]) == sorted(
        range(4), key=lambda i: -relevances[i]
    )
    assert (
        blend_with_episodes(relevances, [at(0), at(60), at(120), at(180)], gap=GAP, weight=0)
        == relevances
    )
