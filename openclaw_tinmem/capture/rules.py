"""No-LLM capture: clearly memorable user statements, found by rules, one memory per sentence.

Only the user's own statements are considered (never the assistant's), questions are ignored,
and each rule says which category a match belongs to and how important it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from openclaw_tinmem.models import Category, Draft
from openclaw_tinmem.text import split_sentences


@dataclass(frozen=True)
class CaptureRule:
    pattern: re.Pattern[str]
    category: Category
    importance: float


def _rule(pattern: str, category: Category, importance: float) -> CaptureRule:
    return CaptureRule(re.compile(pattern, re.IGNORECASE), category, importance)


# First match wins: explicit requests, then identity, decisions, problems, habits, projects, tastes.
RULES: tuple[CaptureRule, ...] = (
    _rule(
        r"\b(?:my name is|call me|i am \d+|i'm \d+|i live in|i'm based in|i am based in|"
        r"i(?:'m| am) from|i work (?:as|at|for)|my (?:job|role|title) is|i(?:'m| am) an? "
        r"(?:\w+ )?(?:engineer|developer|designer|manager|student|teacher|doctor|researcher|"
        r"founder|scientist|writer|consultant|analyst|nurse|lawyer|architect))\b",
        Category.PROFILE,
        0.7,
    ),
    _rule(
        r"\b(?:we|i) (?:have |'ve )?(?:decided|agreed|chose|picked|settled on|will go with|"
        r"committed to)\b",
        Category.EVENTS,
        0.7,
    ),
    _rule(
        r"\b(?:the (?:fix|solution|workaround) (?:is|was)|fixed (?:it|the)|solved (?:it|the)|"
        r"the (?:problem|issue|bug) was|turned out)\b",
        Category.CASES,
        0.6,
    ),
    _rule(
        r"\b(?:i|we) always\b|\bour (?:workflow|process|convention)\b|\bevery (?:morning|week|"
        r"day|sprint|release)\b",
        Category.PATTERNS,
        0.5,
    ),
    _rule(
        r"\b(?:i(?:'m| am)|we(?:'re| are)) (?:building|working on|developing|launching|"
        r"maintaining)\b|\bour (?:project|product|company|startup|team|app) (?:is|uses|"
        r"called)\b",
        Category.ENTITIES,
        0.6,
    ),
    _rule(
        r"\b(?:i (?:really |strongly )?(?:prefer|like|love|enjoy|hate|dislike|can't stand|"
        r"avoid|usually|never)|my favou?rite|i(?:'m| am) (?:allergic|vegan|vegetarian))\b",
        Category.PREFERENCES,
        0.6,
    ),
)
_REMEMBER = re.compile(
    r"^\s*(?:please\s+)?(?:remember|note|keep in mind)(?:\s+that)?[:,]?\s+(.+)$",
    re.IGNORECASE | re.DOTALL,
)
EXPLICIT_IMPORTANCE = 0.8
MIN_SENTENCE_WORDS = 4


def classify(sentence: str) -> CaptureRule | None:
    return next((rule for rule in RULES if rule.pattern.search(sentence)), None)


def extract_by_rules(user_text: str) -> list[Draft]:
    """Memorable statements in one user message, each once (a sentence repeated, as a pasted
    or looping message repeats it, is one statement, not one write and merge per copy)."""
    candidates: list[Draft] = []
    seen: set[str] = set()
    for sentence in split_sentences(user_text):
        if sentence.endswith("?") or len(sentence.split()) < MIN_SENTENCE_WORDS:
            continue
        key = " ".join(sentence.casefold().split())
        if key in seen:
            continue
        seen.add(key)
        explicit = _REMEMBER.match(sentence)
        if explicit:
            body = explicit.group(1).strip()
            rule = classify(body)
            category = rule.category if rule else Category.ENTITIES
            candidates.append(Draft(body, category, importance=EXPLICIT_IMPORTANCE))
            continue
        rule = classify(sentence)
        if rule is not None:
            candidates.append(Draft(sentence, rule.category, importance=rule.importance))
    return candidates
