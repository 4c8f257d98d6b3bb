"""Decide what a new memory does to similar stored ones: create, merge into one, or skip.

The category's merge policy is applied first (events and cases always append). This module
holds the similarity rule used without an LLM; the LLM judge plugs in behind the same
``Decision`` type.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openclaw_tinmem.config import Settings
from openclaw_tinmem.models import Action, Category, Memory, MergePolicy


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
