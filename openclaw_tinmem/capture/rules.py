"""No-LLM capture: clearly memorable user statements, found by rules, one memory per sentence.

Only the user's own statements are considered (never the assistant's), questions are ignored,
and each rule says which category a match belongs to and how important it is.

A *standing instruction* — the user telling the agent how to answer from now on ("Always
include the narrator when I ask about audiobooks", "Never suggest pork", "From now on, answer
in French") — is kept as a preference tagged ``instruction``, as important as a request to
remember: it applies to every later request of its kind, however that is worded.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from openclaw_tinmem.models import INSTRUCTION_TAG, Category, Draft
from openclaw_tinmem.text import split_sentences


@dataclass(frozen=True)
class CaptureRule:
    pattern: re.Pattern[str]
    category: Category
    importance: float
    tags: tuple[str, ...] = ()
    # what a match must also be to count (None: any match)
    accepts: Callable[[re.Match[str]], bool] | None = None

    def matches(self, sentence: str) -> bool:
        match = self.pattern.search(sentence)
        return match is not None and (self.accepts is None or self.accepts(match))


def _rule(pattern: str, category: Category, importance: float) -> CaptureRule:
    return CaptureRule(re.compile(pattern, re.IGNORECASE), category, importance)


# Said to the agent at the start of a sentence: "(please) always …", "never …", "from now on
# …", "whenever I ask (you) about X, …", then a verb ("never mind" is not an instruction).
_INSTRUCTION = re.compile(
    r"^(?:(?:please|and|also|so|oh|ok|okay)\b[,]?\s+)*(?!never\s+mind\b)"
    r"(?:always|never|don't ever|do not ever|from now on|going forward|henceforth|"
    r"(?:when(?:ever)?|every time|each time|any time) i ask (?:you )?(?:about|for))"
    r"\b[,]?\s*(?P<next>[\w'’]+)?",
    re.IGNORECASE,
)
# A sentence that opens so but tells of something: the next word is a subject ("Never have I
# been so tired", "From now on, my name is Sam", "Going forward we need…"), or not the verb of
# a request ("Never saw this coming", "Always here to help", "Never really liked it", "Always
# forget my keys", "Never know what to cook").
_NOT_A_REQUEST = frozenset(
    """i i'm i'll i've i'd me my we we're we'll we've our us he she they it it's this that
    there here again have has had really once know knew love loved like liked forget forgot
    remember remembered feel felt been was were is am are be did said saw thought got went made
    wanted a an the good great happy glad nice fun up so too just such""".split()  # noqa: SIM905
)
_ADDRESSED = re.compile(r"\b(?:i|me|my|you|your|we|us|our)\b", re.IGNORECASE)


def _is_instruction(opening: re.Match[str]) -> bool:
    """Of a sentence that opens as a standing instruction, whether it is one: its next word
    may be a request's verb, and it is about the two who talk ("when I ask…", "… to me",
    "your answers")."""
    following = (opening.group("next") or "").lower().replace("’", "'")
    return following not in _NOT_A_REQUEST and _ADDRESSED.search(opening.string) is not None


EXPLICIT_IMPORTANCE = 0.8

# First match wins: explicit requests, then identity, standing instructions, decisions,
# problems, habits, projects, tastes.
RULES: tuple[CaptureRule, ...] = (
    _rule(
        r"\b(?:my name is|call me|i am \d+|i'm \d+|i live in|i'm based in|i am based in|"
        r"i(?:'m| am) from|i work (?:as|at|for)|my (?:job|role|title) is|i(?:'m| am) an? "
        r"(?:\w+ )?(?:engineer|developer|designer|manager|student|teacher|doctor|researcher|"
        r"founder|scientist|writer|consultant|analyst|nurse|lawyer|architect))\b",
        Category.PROFILE,
        0.7,
    ),
    CaptureRule(
        _INSTRUCTION, Category.PREFERENCES, EXPLICIT_IMPORTANCE, (INSTRUCTION_TAG,), _is_instruction
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
MIN_SENTENCE_WORDS = 4


# "I prefer e-books, can you help me find some?": a statement, then a request of the agent.
_TRAILING_REQUEST = re.compile(
    r",\s+(?:(?:so|and|but)\s+)?(?:can|could|would|will)\s+you\b[^,]*\?$", re.IGNORECASE
)


# a first part that is itself a question, or unsure of what it says
_ASKS_OR_DOUBTS = re.compile(
    r"^(?:is|are|am|was|were|do|does|did|can|could|would|should|will|shall|have|has|had|why|"
    r"what|when|where|who|whom|whose|which|how)\b|\b(?:know|sure|wonder|wondering) (?:if|"
    r"whether)\b|\bi wonder\b",
    re.IGNORECASE,
)


def statement_of(sentence: str) -> str | None:
    """What a sentence states: itself, or of a question, what comes before a request that
    ends it ("I prefer Excel for control, so can you help me…?" states "I prefer Excel for
    control"); None for a question that states nothing."""
    if not sentence.endswith("?"):
        return sentence
    request = _TRAILING_REQUEST.search(sentence)
    if request is None:
        return None
    stated = sentence[: request.start()].strip()
    if _ASKS_OR_DOUBTS.search(stated):  # "Is it true that I'm allergic…", "I wonder if…"
        return None
    return stated + "."


def classify(sentence: str) -> CaptureRule | None:
    return next((rule for rule in RULES if rule.matches(sentence)), None)


def extract_by_rules(user_text: str) -> list[Draft]:
    """Memorable statements in one user message, each once (a sentence repeated, as a pasted
    or looping message repeats it, is one statement, not one write and merge per copy)."""
    candidates: list[Draft] = []
    seen: set[str] = set()
    for said in split_sentences(user_text):
        sentence = statement_of(said)
        if sentence is None or len(sentence.split()) < MIN_SENTENCE_WORDS:
            continue
        key = " ".join(sentence.casefold().split())
        if key in seen:
            continue
        seen.add(key)
        explicit = _REMEMBER.match(sentence)
        if explicit:
            body = explicit.group(1).strip()
            if body[:3].lower() == "to ":  # "remember to always answer in French"
                body = body[3:4].upper() + body[4:]
            rule = classify(body)
            category = rule.category if rule else Category.ENTITIES
            tags = rule.tags if rule else ()
            candidates.append(Draft(body, category, importance=EXPLICIT_IMPORTANCE, tags=tags))
            continue
        rule = classify(sentence)
        if rule is not None:
            candidates.append(
                Draft(sentence, rule.category, importance=rule.importance, tags=rule.tags)
            )
    return candidates
