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

# "hey", "ok so", "quick question:" — words before the question that say nothing of it
_OPENING = re.compile(
    r"^(?:(?:hey|hi|hello|ok(?:ay)?|so|um+|oh|btw|by the way|one more thing|quick question)"
    r"\b[\s,:;.!-]*)+",
    re.IGNORECASE,
)
# "remind me", "can you remind me of", "do you (still) remember", "I forgot"
_ASKING = re.compile(
    r"^(?:(?:can|could|would|will) you\s+(?:please\s+)?(?:remind me|tell me|recall)"
    r"|(?:please\s+)?remind me"
    r"|do you (?:still\s+)?(?:remember|recall|know)"
    r"|(?:I\s+)?(?:forgot|forget|can't remember|cannot remember|don't remember)"
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


_APOSTROPHE = "['\u2019]"
# the first person singular in a question, as the third: inverted auxiliaries first
_THIRD_PERSON = [
    (re.compile(pattern, re.IGNORECASE), replacement)
    for pattern, replacement in [
        (r"\b(?:do|does)\s+I\b", "does the user"),
        (r"\bam\s+I\b", "is the user"),
        (r"\bhave\s+I\b", "has the user"),
        (r"\b(did|was|can|could|should|would|will|shall|must|may|might)\s+I\b", r"\1 the user"),
        (rf"\bI{_APOSTROPHE}m\b|\bI\s+am\b", "the user is"),
        (rf"\bI{_APOSTROPHE}ve\b|\bI\s+have\b", "the user has"),
        (rf"\bI{_APOSTROPHE}ll\b", "the user will"),
        (rf"\bI{_APOSTROPHE}d\b", "the user would"),
        (r"\bmy\b|\bmine\b", "the user's"),
        (r"\bme\b|\bmyself\b", "the user"),
        (r"\bI\b", "the user"),
    ]
]
_FIRST_PERSON = re.compile(rf"\b(?:I|me|my|mine|myself|I{_APOSTROPHE}[mvld]\w*)\b", re.IGNORECASE)
# "User …" or "the user …" as a subject; a line's speaker label ("User:", "User (8 May
# 2023):") says who spoke, in the first person
_SPEAKER_LABEL = re.compile(
    r"^[ \t]*User(?:[ \t]*\([^)\n]{0,60}\))?[ \t]*:", re.IGNORECASE | re.MULTILINE
)
_SPEAKS_OF_THE_USER = re.compile(r"\bUser\b|\bthe user\b", re.IGNORECASE)


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
