"""The end-to-end benchmark's report: what each question got, and the figures of a run."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from benchmarks.locomo_report import CATEGORY_NAMES


@dataclass
class Replay:
    """What replaying the conversations cost and kept."""

    turns: int = 0  # the conversations' turns (each replayed once per role order)
    captures: int = 0  # turns handed to capture
    post_turn_ms: list[float] = field(default_factory=list)


@dataclass
class Asked:
    """The answers to one question."""

    conversation: int
    category: int
    block_found: float
    recall_found: float
    block_tokens: int
    block_shown: float = 0.0  # the share of evidence turns whose words the block holds
    by_floor: list[tuple[float, int]] = field(default_factory=list)  # (coverage, tokens)


@dataclass
class OffTopic:
    """A question asked of another conversation's agent: did it get a block?"""

    conversation: int
    got_block: bool
    by_floor: list[bool] = field(default_factory=list)


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * (len(ordered) - 1) + 0.5))] if ordered else 0.0


def summary(
    asked: Sequence[Asked],
    off_topic: Sequence[OffTopic],
    replayed: Replay | None,
    kept: int,
    bytes_after_upkeep: int,
) -> dict[str, Any]:
    """The run's figures; without ``replayed`` (a store asked again), those of the questions
    alone: capture and the store's size were measured by the run that built it."""

    def share(values: Sequence[float]) -> float:
        return round(100 * statistics.fmean(values), 1) if values else 0.0

    tokens = [a.block_tokens for a in asked if a.block_tokens]
    by_category = {
        CATEGORY_NAMES[c]: {
            "questions": len([a for a in asked if a.category == c]),
            "block": share([a.block_found for a in asked if a.category == c]),
            "block_shown": share([a.block_shown for a in asked if a.category == c]),
            "recall": share([a.recall_found for a in asked if a.category == c]),
        }
        for c in (1, 2, 3, 4)
    }
    report: dict[str, Any] = {
        "questions": len(asked),
        "block_coverage": share([a.block_found for a in asked]),
        "block_shown": share([a.block_shown for a in asked]),
        "recall_coverage": share([a.recall_found for a in asked]),
        "by_category": by_category,
        "questions_with_block": share([1.0 if a.block_tokens else 0.0 for a in asked]),
        "block_tokens_mean": round(statistics.fmean(tokens), 1) if tokens else 0,
        "block_tokens_p95": percentile(tokens, 0.95),
        "off_topic_without_block": share([0.0 if item.got_block else 1.0 for item in off_topic]),
        "memories_kept": kept,
    }
    if replayed is None:
        return report
    return report | {
        "turns": replayed.turns,
        "captured_turns": replayed.captures,
        "memories_per_100_turns": round(100 * kept / max(replayed.turns, 1), 1),
        "post_turn_ms_p50": round(percentile(replayed.post_turn_ms, 0.5), 1),
        "post_turn_ms_p95": round(percentile(replayed.post_turn_ms, 0.95), 1),
        "store_mb_per_1000_turns": round(
            bytes_after_upkeep / 1e6 * 1000 / max(replayed.turns, 1), 2
        ),
    }
