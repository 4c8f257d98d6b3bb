"""Decide what a new memory does to similar stored ones: create, merge into one, or skip.

The category's merge policy is applied first (events and cases always append). Without an
LLM a similarity rule decides; with one, ``LLMJudge`` decides for a whole turn in one call.
Both return ``Decision`` objects.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from pydantic import BaseModel, Field

from openclaw_tinmem.config import Settings
from openclaw_tinmem.errors import TinmemError
from openclaw_tinmem.llm import LLMClient
from openclaw_tinmem.models import Action, Category, Memory, MergePolicy
from openclaw_tinmem.prompts import DEDUP_SYSTEM
from openclaw_tinmem.text import spaced_words, subject_name

logger = logging.getLogger("openclaw_tinmem")
_WORD = re.compile(r"[\w'-]+")


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


def decide_by_similarity(
    candidate: Memory, neighbours: Sequence[Neighbour], settings: Settings
) -> Decision:
    """The no-LLM rule of the candidate's category, against its neighbours (same scope and
    category).

    - near-identical (``duplicate_similarity``) -> skip, except for append-only categories;
    - profile: always merge into the scope's profile memory, whatever the similarity: one
      consolidated picture of the user;
    - entities: merge into a memory about the same entity — the same name, when both name
      one — and never into one that names another; without names, by similarity;
    - preferences and patterns: merge on the same topic or pattern (``merge_similarity``);
    - events and cases: always append. Two events that differ only in a version or a date
      embed almost identically but are different events; exact copies are caught earlier by
      the content hash.
    """
    category, policy = candidate.category, candidate.category.policy
    if not policy.merges:
        return Decision(Action.CREATED, reason=f"{category.value}: always append")
    if not neighbours:
        first = (
            "the first profile memory of this scope"
            if category is Category.PROFILE
            else ("nothing similar stored")
        )
        return Decision(Action.CREATED, reason=f"{category.value}: {first}")
    closest = max(neighbours, key=lambda neighbour: neighbour.similarity)
    if closest.similarity >= settings.duplicate_similarity:
        return Decision(
            Action.SKIPPED,
            closest.memory,
            f"duplicate (cosine {closest.similarity:.3f} ≥ {settings.duplicate_similarity})",
        )
    if policy is MergePolicy.ALWAYS_MERGE:
        reason = (
            f"profile: always merged into the scope's profile (cosine {closest.similarity:.3f})"
        )
        return Decision(Action.MERGED, closest.memory, reason)
    if policy is MergePolicy.MERGE_SAME_ENTITY:
        name = subject_name(candidate.content)
        if name is not None:
            named = {n.memory.id: subject_name(n.memory.content) for n in neighbours}
            same = [n for n in neighbours if named[n.memory.id] == name]
            if same:
                target = max(same, key=lambda neighbour: neighbour.similarity)
                return Decision(Action.MERGED, target.memory, f"entities: the same entity, {name}")
            neighbours = [n for n in neighbours if named[n.memory.id] is None]  # others: apart
            closest = max(neighbours, key=lambda n: n.similarity, default=None) or closest
            if not neighbours:
                return Decision(Action.CREATED, reason=f"entities: a new entity, {name}")
    if closest.similarity >= settings.merge_similarity:
        subject = {MergePolicy.MERGE_SAME_TOPIC: "topic", MergePolicy.MERGE_SAME_PATTERN: "pattern"}
        what = subject.get(policy, "entity")
        return Decision(
            Action.MERGED,
            closest.memory,
            f"{category.value}: the same {what} (cosine {closest.similarity:.3f})",
        )
    return Decision(Action.CREATED, reason=f"{category.value}: no memory on the same subject")


def merge_contents(existing: str, new: str) -> str:
    """Append ``new`` to ``existing`` unless its words already are, in that order (case,
    spacing and punctuation aside: "…for backend work." is in "…for backend work")."""
    if spaced_words(new, _WORD) in spaced_words(existing, _WORD):
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
        self,
        item: DedupItem | None,
        candidate: Memory,
        neighbours: Sequence[Neighbour],
        numbered: dict[int, Memory],
    ) -> Decision:
        allowed = {neighbour.memory.id for neighbour in neighbours}
        target = numbered.get(item.target) if item and item.target is not None else None
        if item is None or (
            item.action != "create" and (target is None or target.id not in allowed)
        ):
            fallback = decide_by_similarity(candidate, neighbours, self.settings)
            return Decision(
                fallback.action, fallback.target, f"LLM answer unusable; {fallback.reason}"
            )
        if item.action == "create" and candidate.category is Category.PROFILE:
            rule = decide_by_similarity(candidate, neighbours, self.settings)  # merge, always
            return Decision(rule.action, rule.target, f"LLM said create; {rule.reason}")
        if item.action == "create" or (
            item.action == "merge" and not candidate.category.policy.merges
        ):
            return Decision(Action.CREATED, reason=f"LLM: {item.reason or 'new information'}")
        if item.action == "skip":
            return Decision(Action.SKIPPED, target, f"LLM: {item.reason or 'duplicate'}")
        return Decision(
            Action.MERGED,
            target,
            f"LLM: {item.reason or 'same subject'}",
            headline=item.merged_headline,
            summary=item.merged_summary,
            content=item.merged_content,
        )


class SimilarityJudge:
    """The no-LLM judge: the category's merge policy with cosine thresholds."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def decide_batch(self, items: Sequence[tuple[Memory, Sequence[Neighbour]]]) -> list[Decision]:
        return [decide_by_similarity(memory, near, self.settings) for memory, near in items]


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
