"""Episodes: memories written close together in time share some of their relevance.

Memories written in one conversation tend to be about the same things. When a conversation
holds the best match for a query, its other memories are likelier to matter too than
equally scored memories from elsewhere (the cluster hypothesis of information retrieval).

An episode is a run of candidates whose ``created_at`` times lie within ``gap`` of the next
one. Its relevance is the mean of its two best relevances (one, for an episode of one), and
each candidate's relevance becomes

    (relevance + weight × episode relevance) / (1 + weight)

so an episode's best memory keeps its score when the second best is as good, and the others
move towards it. A store whose memories were all written at once (one bulk import) forms a
single episode: every candidate is blended with the same value, so no order changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from statistics import fmean

EPISODE_BEST_COUNT = 2  # an episode's relevance: the mean of this many of its best


def episode_numbers(times: Sequence[datetime], gap: timedelta) -> list[int]:
    """The episode of each time: times within ``gap`` of their neighbour share one."""
    order = sorted(range(len(times)), key=lambda index: times[index])
    numbers = [0] * len(times)
    episode = 0
    for position, index in enumerate(order):
        if position and times[index] - times[order[position - 1]] > gap:
            episode += 1
        numbers[index] = episode
    return numbers


def blend_with_episodes(
    relevances: Sequence[float], times: Sequence[datetime], *, gap: timedelta, weight: float
) -> list[float]:
    """Each relevance blended with its episode's (see the module docstring); order kept."""
    if weight <= 0 or not relevances:
        return list(relevances)
    numbers = episode_numbers(times, gap)
    members: dict[int, list[float]] = {}
    for number, relevance in zip(numbers, relevances, strict=True):
        members.setdefault(number, []).append(relevance)
    episode_relevance = {
        number: fmean(sorted(values, reverse=True)[:EPISODE_BEST_COUNT])
        for number, values in members.items()
    }
    return [
        (relevance + weight * episode_relevance[number]) / (1 + weight)
        for number, relevance in zip(numbers, relevances, strict=True)
    ]
