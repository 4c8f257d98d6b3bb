"""The question inside a request to be reminded.

People ask a memory the way they ask a friend: "Where do I live again?", "Remind me, what is
my dog's name?", "Do you remember where I work?", "Hey, quick question: when is my dentist
appointment?". The cross-encoder was trained on search queries, and the words that only ask
to be reminded cost it most of its confidence: against "User lives in Berlin." it gives
"Where do I live again?" 0.009 and "Where do I live?" 0.315; "Remind me, what is my dog's
name?" 0.004 against "User has a dog named Biscuit.", the question alone 0.314 (development
machine, the shipped model). ``plain_question`` is what the cross-encoder reads: the request
without its greeting, its "remind me" or "do you remember", and a closing "again" or
"please". The retrievers still search the whole query.

Only English wrappers at the start or the end are removed; a query that would keep fewer
than ``MINIMUM_WORDS_LEFT`` words is read whole.

Facts about the user are written in the third person ("User works at Siemens.": the LLM
extractor and the skill's examples write them so), while the user asks in the first. The
cross-encoder reads the two as about different people: "Where do I work?" gets 0.010 against
"User works at Siemens as a data engineer.", "Where does the user work?" 0.992; "Do I have
any pets?" 0.002 against "User has a cat named Miso.", asked of the user 0.991 — and the
other way round, "Where does the user live?" gets 0.002 against "I live in Berlin." So a
memory that ``speaks_of_the_user`` is read against the question ``about_the_user``, any other
against the question as asked.
"""

from __future__ import annotations

import re

MINIMUM_WORDS_LEFT = 2

_APOSTROPHE = "['\u2019]"
_OPENER = r"(?:hey|hi|hello|ok(?:ay)?|so|um+|oh|btw|by the way|one more thing|quick question)"
# "hey,", "ok so,", "hi there,", "quick question:" — words before the question that say
# nothing of it, each closed by punctuation or followed by another ("Hello world program?"
# and "So-called …" keep theirs)
_OPENING = re.compile(
    rf"^(?:{_OPENER}(?:\s+there)?(?:\s*[,:;.!]+\s*|\s+(?={_OPENER}\b)))+", re.IGNORECASE
)
# "remind me", "can you remind me of", "do you (still) remember", "I forgot"
_ASKING = re.compile(
    r"^(?:(?:can|could|would|will) you\s+(?:please\s+)?(?:remind me|tell me|recall)"
    r"|(?:please\s+)?remind me"
    r"|do you (?:still\s+)?(?:remember|recall|know)"
    rf"|(?:I\s+)?(?:forgot|forget|can{_APOSTROPHE}?t remember|cannot remember"
    rf"|don{_APOSTROPHE}?t remember)"
    r")\b(?:\s+(?:again|of|about))?[\s,:;-]*",
    re.IGNORECASE,
)
# "… again?", "…, please?", "…, by the way?" before the closing punctuation
_CLOSING = re.compile(r"(?:[\s,]+(?:again|please|by the way))+(?=\s*[?.!]*\s*$)", re.IGNORECASE)


def plain_question(query: str) -> str:
    """``query`` without the words that only ask to be reminded; ``query`` itself when
    nothing is removed or too little would be left."""
    rest = _OPENING.sub("", query.strip())
    rest = _ASKING.sub("", rest)
    rest = _CLOSING.sub("", rest).strip()
    if rest == query.strip() or len(re.findall(r"\w+", rest)) < MINIMUM_WORDS_LEFT:
        return query
    return rest[:1].upper() + rest[1:]


# the pronoun: "I" (not "World War I", "type I", "I/O") or a chat's lowercase "i" before a word
_I = (
    r"(?<![\w/.-])(?<!War )(?<!war )(?<!type )(?<!Type )(?<!Phase )(?<!phase )(?<!Class )"
    rf"(?:I|i(?=\s+[a-z]|{_APOSTROPHE}))(?![\w/.-])"
)
# the first person singular in a question, as the third: inverted auxiliaries first
_THIRD_PERSON = [
    (re.compile(pattern), replacement)
    for pattern, replacement in [
        (rf"\b(?:[Dd]o|[Dd]oes)\s+{_I}", "does the user"),
        (rf"\b[Aa]m\s+{_I}", "is the user"),
        (rf"\b[Hh]ave\s+{_I}", "has the user"),
        (
            rf"\b([Dd]id|[Ww]as|[Cc]an|[Cc]ould|[Ss]hould|[Ww]ould|[Ww]ill|[Ss]hall|[Mm]ust"
            rf"|[Mm]ay|[Mm]ight)\s+{_I}",
            r"\1 the user",
        ),
        (rf"{_I}{_APOSTROPHE}m\b|{_I}\s+am\b", "the user is"),
        (rf"{_I}{_APOSTROPHE}ve\b|{_I}\s+have\b", "the user has"),
        (rf"{_I}{_APOSTROPHE}ll\b", "the user will"),
        (rf"{_I}{_APOSTROPHE}d\b", "the user would"),
        (r"\b[Mm](?:y|ine)\b", "the user's"),
        (r"\b[Mm](?:e|yself)\b", "the user"),
        (_I, "the user"),
    ]
]
_FIRST_PERSON = re.compile(rf"{_I}|\b[Mm](?:e|y|ine|yself)\b")
# "User …" or "The user …" as a subject (not "user-agent", "end user"); a line's speaker label
# ("User:", "User (8 May 2023):") says who spoke, in the first person
_SPEAKER_LABEL = re.compile(
    r"^[ \t]*User(?:[ \t]*\([^)\n]{0,60}\))?[ \t]*:", re.IGNORECASE | re.MULTILINE
)
_SPEAKS_OF_THE_USER = re.compile(r"\bUser\b(?!-)|\b[Tt]he user\b(?!-)")


def about_the_user(question: str) -> str | None:
    """``question`` with the asker's "I", "my" and "me" as "the user" ("Where do I work?" →
    "Where does the user work?"); None when it has none. Verbs keep their form: the
    cross-encoder reads "where the user work" as it reads "where the user works"."""
    if not _FIRST_PERSON.search(question):
        return None
    rewritten = question
    for pattern, replacement in _THIRD_PERSON:
        rewritten = pattern.sub(replacement, rewritten)
    return rewritten[:1].upper() + rewritten[1:]


def speaks_of_the_user(text: str) -> bool:
    """Whether ``text`` tells of the user in the third person ("User prefers tea.")."""
    return bool(_SPEAKS_OF_THE_USER.search(_SPEAKER_LABEL.sub("", text)))
