"""Decide what a new memory does to similar stored ones: create, merge into one, or skip.

The category's merge policy is applied first (events and cases always append). Without an
LLM a similarity rule decides; with one, ``LLMJudge`` decides for a whole turn in one call.
Both return ``Decision`` objects.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from pydantic import BaseModel, Field

from openclaw_tinmem.config import Settings
from openclaw_tinmem.errors import TinmemError
from openclaw_tinmem.llm import LLMClient
from openclaw_tinmem.models import Action, Category, Memory, MergePolicy
from openclaw_tinmem.prompts import DEDUP_SYSTEM

logger = logging.getLogger("openclaw_tinmem")


class Summarizer(Protocol):
    """Writes L0 (headline) and L1 (summary) for a content."""

    def levels(self, content: str) -> tuple[str, str]: ...


class MergeJudge(Protocol):
    """Decides create / merge / skip for candidates against their neighbours."""

    def decide_batch(
        self, items: Sequence[tuple[Memory, Sequence[Neighbour]]]
    ) -> list[Decision]: ...


@dataclass(frozen=True)
class Neighbour:
    """A stored memory of the same scope and category, with its cosine to the candidate."""

    memory: Memory
    similarity: float


@dataclass(frozen=True)
class Decision:
    """CREATE a new memory, MERGE into ``target``, or SKIP as a duplicate of ``target``."""

    action: Action
    target: Memory | None = None
    reason: str = ""
    headline: str | None = None  # merged texts written by the LLM judge, when it merged
    summary: str | None = None
    content: str | None = None


def merge_threshold(policy: MergePolicy, settings: Settings) -> float | None:
    """The cosine from which a policy merges; None for policies that never merge."""
    if policy is MergePolicy.APPEND:
        return None
    if policy is MergePolicy.ALWAYS_MERGE:
        return settings.profile_merge_similarity
    return settings.merge_similarity


def decide_by_similarity(
    category: Category, neighbours: Sequence[Neighbour], settings: Settings
) -> Decision:
    """The no-LLM rule: near-identical -> skip; close enough for the policy -> merge; else create.

    Append-only categories (events, cases) are never skipped on similarity: two events that
    differ only in a version or a date embed almost identically but are different events.
    Their exact duplicates are caught earlier by the content hash.
    """
    if not neighbours or not category.policy.merges:
        return Decision(Action.CREATED, reason=f"{category.value}: {category.policy.value}")
    closest = max(neighbours, key=lambda neighbour: neighbour.similarity)
    if closest.similarity >= settings.duplicate_similarity:
        return Decision(
            Action.SKIPPED,
            closest.memory,
            f"duplicate (cosine {closest.similarity:.3f} ≥ {settings.duplicate_similarity})",
        )
    threshold = merge_threshold(category.policy, settings)
    if threshold is not None and closest.similarity >= threshold:
        return Decision(
            Action.MERGED,
            closest.memory,
            f"{category.value}: {category.policy.value} (cosine {closest.similarity:.3f})",
        )
    return Decision(Action.CREATED, reason=f"{category.value}: {category.policy.value}")


def merge_contents(existing: str, new: str) -> str:
    """Append ``new`` to ``existing`` unless it is already contained in it."""
    if " ".join(new.lower().split()) in " ".join(existing.lower().split()):
        return existing
    return f"{existing.rstrip()}\n{new.strip()}"


class DedupItem(BaseModel):
    new: int = Field(description="Number of the new memory")
    action: Literal["create", "merge", "skip"]
    target: int | None = Field(None, description="Number of the existing memory")
    merged_headline: str | None = None
    merged_summary: str | None = None
    merged_content: str | None = None
    reason: str = ""


class DedupDecisions(BaseModel):
    decisions: list[DedupItem] = Field(default_factory=list)


def dedup_prompt(
    items: Sequence[tuple[Memory, Sequence[Neighbour]]],
) -> tuple[str, dict[int, Memory]]:
    """The user prompt and the map from the small numbers shown to the stored memories."""
    numbered: dict[int, Memory] = {}
    blocks = []
    for index, (candidate, neighbours) in enumerate(items, start=1):
        rule = candidate.category.policy.rule
        lines = [f"NEW {index} [{candidate.category.value}; {rule}]: {candidate.content}"]
        for neighbour in neighbours:
            number = len(numbered) + 1
            numbered[number] = neighbour.memory
            lines.append(f"  EXISTING {number}: {neighbour.memory.content}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks), numbered


class LLMJudge:
    """One LLM call decides for every candidate of a turn that has similar memories.

    The LLM sees existing memories under small numbers and can only target the numbers shown
    for that candidate; anything else falls back to the similarity rule for that candidate.
    """

    def __init__(self, llm: LLMClient, settings: Settings) -> None:
        self.llm = llm
        self.settings = settings

    def decide_batch(self, items: Sequence[tuple[Memory, Sequence[Neighbour]]]) -> list[Decision]:
        decisions = [Decision(Action.CREATED, reason="no similar memory") for _ in items]
        asked = [index for index, (_, neighbours) in enumerate(items) if neighbours]
        if not asked:
            return decisions  # nothing similar: no LLM call needed
        prompt, numbered = dedup_prompt([items[index] for index in asked])
        answer = self.llm.complete(DedupDecisions, DEDUP_SYSTEM, prompt)
        answered = {item.new: item for item in answer.decisions}
        for position, index in enumerate(asked, start=1):
            candidate, neighbours = items[index]
            decisions[index] = self._map(answered.get(position), candidate, neighbours, numbered)
        return decisions

    def _map(
        self, item: DedupItem | None, candidate: Memory, neighbours: Sequence[Neighbour],
        numbered: dict[int, Memory],
    ) -> Decision:  # fmt: skip
        allowed = {neighbour.memory.id for neighbour in neighbours}
        target = numbered.get(item.target) if item and item.target is not None else None
        if item is None or (
            item.action != "create" and (target is None or target.id not in allowed)
        ):
            fallback = decide_by_similarity(candidate.category, neighbours, self.settings)
            return Decision(
                fallback.action, fallback.target, f"LLM answer unusable; {fallback.reason}"
            )
        if item.action == "create" or (
            item.action == "merge" and not candidate.category.policy.merges
        ):
            return Decision(Action.CREATED, reason=f"LLM: {item.reason or 'new information'}")
        if item.action == "skip":
            return Decision(Action.SKIPPED, target, f"LLM: {item.reason or 'duplicate'}")
        return Decision(
            Action.MERGED, target, f"LLM: {item.reason or 'same subject'}",
            headline=item.merged_headline, summary=item.merged_summary, content=item.merged_content,
        )  # fmt: skip


class SimilarityJudge:
    """The no-LLM judge: the category's merge policy with cosine thresholds."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def decide_batch(self, items: Sequence[tuple[Memory, Sequence[Neighbour]]]) -> list[Decision]:
        return [
            decide_by_similarity(memory.category, near, self.settings) for memory, near in items
        ]


class FallbackJudge:
    """The primary judge; when it fails (LLM down), the fallback decides and it is logged."""

    def __init__(self, primary: MergeJudge, fallback: MergeJudge) -> None:
        self.primary = primary
        self.fallback = fallback

    def decide_batch(self, items: Sequence[tuple[Memory, Sequence[Neighbour]]]) -> list[Decision]:
        try:
            return self.primary.decide_batch(items)
        except TinmemError as error:
            logger.warning("dedup judge failed, using the similarity rule: %s", error.message)
            return self.fallback.decide_batch(items)
