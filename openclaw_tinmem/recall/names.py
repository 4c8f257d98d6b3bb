"""The names a message mentions, so automatic recall stays quiet about strangers.

"When did Caroline go to the support group?" asks about Caroline. If no memory recall found
mentions Caroline, memory has never heard of her: the memories found are about someone or
something else, however close in meaning ("support group" matches another person's support
group), and injecting them would mislead. ``names_in`` finds the names of a message —
capitalised words that do not start a sentence, and acronyms — leaving out words capitalised
for other reasons (``I``, months, weekdays). ``unknown_names`` gives those no hit mentions.

When a message names something unknown, automatic recall keeps only the memories that mention
one of its known names ("Did Caroline meet Jon?": those about Caroline, when Jon is unknown),
and facts about the user (profile, preferences), which apply to any subject
(``about_known_names``, applied by ``scoring.worth_injecting``).
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterable

from openclaw_tinmem.models import Category, Hit

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'’\-]*")
_SENTENCE_END = re.compile(r"[.!?:;\n\"“(]\s*$")
NOT_NAMES = frozenset(
    {"i", "i'm", "i've", "i'd", "i'll", "ok", "okay", "hi", "hey", "hello", "thanks"}
    | {name.lower() for name in calendar.month_name if name}
    | {name.lower() for name in calendar.day_name}
)


def names_in(text: str) -> set[str]:
    """The names ``text`` mentions, lower-cased: capitalised words not at a sentence start."""
    names = set()
    for match in _WORD.finditer(text):
        word = match.group().rstrip("'’-")
        if not word[0].isupper() or word.lower() in NOT_NAMES:
            continue
        before = text[: match.start()]
        starts_sentence = not before.strip() or bool(_SENTENCE_END.search(before))
        if starts_sentence and not (len(word) > 1 and word.isupper()):
            continue  # "When", "What": capitalised by position; an acronym is a name anywhere
        names.add(word.lower().removesuffix("'s").removesuffix("’s"))
    return names


def mentions(hit: Hit, name: str) -> bool:
    memory = hit.memory
    text = f"{memory.headline}\n{memory.summary}\n{memory.content}"
    return re.search(rf"\b{re.escape(name)}\b", text, re.IGNORECASE) is not None


def unknown_names(message: str, hits: Iterable[Hit]) -> set[str]:
    """The names ``message`` mentions that none of ``hits`` does."""
    return _unmentioned(names_in(message), hits)


def _unmentioned(names: set[str], hits: Iterable[Hit]) -> set[str]:
    unknown = names
    for hit in hits:
        if not unknown:
            break
        unknown = {name for name in unknown if not mentions(hit, name)}
    return unknown


USER_FACTS = frozenset({Category.PROFILE, Category.PREFERENCES})


def about_known_names(message: str, hits: list[Hit], kept: list[Hit]) -> list[Hit]:
    """``kept`` (some of ``hits``), less what is off the subject: when ``message`` names
    something none of ``hits`` mentions, only facts about the user and memories that mention
    one of its other names remain."""
    named = names_in(message)
    unknown = _unmentioned(named, hits)
    if not unknown:
        return kept
    known = named - unknown
    return [
        hit
        for hit in kept
        if hit.memory.category in USER_FACTS or any(mentions(hit, name) for name in known)
    ]
