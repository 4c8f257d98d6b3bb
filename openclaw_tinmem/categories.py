"""The six memory categories with their merge policies, and the three levels of detail."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class MergePolicy(StrEnum):
    """How a new memory relates to similar stored memories of the same category."""

    ALWAYS_MERGE = "always_merge"
    MERGE_SAME_TOPIC = "merge_same_topic"
    MERGE_SAME_ENTITY = "merge_same_entity"
    MERGE_SAME_PATTERN = "merge_same_pattern"
    APPEND = "append"

    @property
    def merges(self) -> bool:
        return self is not MergePolicy.APPEND

    @property
    def rule(self) -> str:
        """The rule as the LLM judge is told it for a candidate of this policy."""
        return MERGE_RULES[self]


MERGE_RULES = {
    MergePolicy.ALWAYS_MERGE: "MERGE into the closest existing memory",
    MergePolicy.MERGE_SAME_TOPIC: "MERGE ONLY IF ABOUT THE SAME TOPIC",
    MergePolicy.MERGE_SAME_ENTITY: "MERGE ONLY IF ABOUT THE SAME ENTITY",
    MergePolicy.MERGE_SAME_PATTERN: "MERGE ONLY IF DESCRIBING THE SAME PATTERN",
    MergePolicy.APPEND: "APPEND-ONLY",
}


class Category(StrEnum):
    """The six memory categories of the tinmem skill."""

    PROFILE = "profile"
    PREFERENCES = "preferences"
    ENTITIES = "entities"
    EVENTS = "events"
    CASES = "cases"
    PATTERNS = "patterns"

    @property
    def policy(self) -> MergePolicy:
        return CATEGORY_POLICIES[self].policy

    @property
    def description(self) -> str:
        return CATEGORY_POLICIES[self].description


@dataclass(frozen=True)
class CategoryPolicy:
    """What a category holds and how it merges; the single table the rest of the code reads."""

    description: str
    policy: MergePolicy


CATEGORY_POLICIES: dict[Category, CategoryPolicy] = {
    Category.PROFILE: CategoryPolicy(
        "User identity, role, expertise, demographics",
        MergePolicy.ALWAYS_MERGE,
    ),
    Category.PREFERENCES: CategoryPolicy(
        "Likes and dislikes, habits, recurring preferences",
        MergePolicy.MERGE_SAME_TOPIC,
    ),
    Category.ENTITIES: CategoryPolicy(
        "Projects, people, tools, organisations",
        MergePolicy.MERGE_SAME_ENTITY,
    ),
    Category.EVENTS: CategoryPolicy(
        "Decisions made, milestones, things that happened",
        MergePolicy.APPEND,
    ),
    Category.CASES: CategoryPolicy(
        "Problem and solution pairs, debugging sessions",
        MergePolicy.APPEND,
    ),
    Category.PATTERNS: CategoryPolicy(
        "Recurring workflows, methodologies, best practices",
        MergePolicy.MERGE_SAME_PATTERN,
    ),
}


class Level(StrEnum):
    """How much of a memory is returned: headline, summary or full content."""

    L0 = "L0"
    L1 = "L1"
    L2 = "L2"
