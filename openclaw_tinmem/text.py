"""Plain-text helpers shared by recall, capture and the level writer."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[])|\n+")


def is_well_formed(text: str) -> bool:
    """False for text holding a lone surrogate (what a broken ``\\ud800`` JSON escape
    decodes to), which cannot be written as UTF-8, to the journal or the store."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def well_formed(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD (non-strings as they are)."""
    if not isinstance(text, str) or is_well_formed(text):
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


QUOTED_CHARACTERS = 80


def quoted(value: object, limit: int = QUOTED_CHARACTERS) -> str:
    """``value`` as an error message echoes it: its repr, and of a long string only the head
    and the length, so that a 100,000-character argument does not become the message."""
    if isinstance(value, str) and len(value) > limit:
        return f"{value[:limit]!r}… ({len(value):,} characters)"
    return repr(value)


# the marks that make a terminal show text in another order than it is stored
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def terminal_safe(text: str) -> str:
    """``text`` as a terminal may print it: control characters (an escape sequence, a bell,
    a lone carriage return) and the bidi embeddings, overrides and isolates written out as
    escapes (``\\x1b``, ``\\u202e``); line ends (``\\r\\n`` as ``\\n``) and tabs kept."""
    return "".join(
        f"\\x{ord(character):02x}"
        if unicodedata.category(character) == "Cc" and character not in "\n\t"
        else f"\\u{ord(character):04x}"
        if character in _BIDI_CONTROLS
        else character
        for character in text.replace("\r\n", "\n")
    )


def lines_of(text: str) -> list[str]:
    """The lines of a file of JSON lines (or of a memory's text): split at line feeds only
    (a CR before one dropped), since JSON may hold U+2028, U+2029 and U+0085 unescaped, as
    JavaScript's ``JSON.stringify`` and our own export write them."""
    lines = text.split("\n")
    if lines and not lines[-1]:
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text``, split on terminal punctuation and line breaks."""
    return [part.strip() for part in _SENTENCE_END.split(text.strip()) if part.strip()]


def spaced_words(text: str, word: re.Pattern[str]) -> str:
    """The words of ``text`` (the matches of ``word``), lower case, one space apart and
    around: one text's words run in another's when its spaced words are in the other's."""
    return f" {' '.join(word.findall(text.lower()))} "


def clip_words(text: str, max_words: int) -> str:
    """``text`` with its whitespace folded, cut after ``max_words`` words with an ellipsis
    (and without a comma, semicolon or colon left dangling before it)."""
    words = text.split()
    if len(words) <= max_words:
        return " ".join(words)
    return " ".join(words[:max_words]).rstrip(",;:") + "…"


def passages(text: str, max_words: int) -> list[str]:
    """``text`` cut into passages of at most ``max_words`` words, whole sentences where a
    sentence fits: what a model that reads a bounded number of tokens can read one at a time.
    A text that fits is one passage, as it is; an empty text is one empty passage."""
    if len(text.split()) <= max_words:
        return [text]
    result: list[str] = []
    current: list[str] = []
    for sentence in split_sentences(text):
        words = sentence.split()
        while len(words) > max_words:  # a sentence longer than a passage: cut by words
            if current:
                result.append(" ".join(current))
                current = []
            result.append(" ".join(words[:max_words]))
            words = words[max_words:]
        if current and len(current) + len(words) > max_words:
            result.append(" ".join(current))
            current = []
        current.extend(words)
    if current:
        result.append(" ".join(current))
    return result


# ＜ ﹤ ‹ 〈 ⟨ 〈 ˂ 《 ❮ ❬ ❰ ᐸ ⟪ ⦑ ⦓ ⦕ ⧼ and their closing twins, read by a model as < and >
# (« and », quotation marks in many languages, are left as they are)
_BRACKET_LOOK_ALIKES = str.maketrans(
    "\uff1c\ufe64\u2039\u3008\u27e8\u2329\u02c2\u300a\u276e\u276c\u2770\u1438"
    "\u27ea\u2991\u2993\u2995\u29fc"
    "\uff1e\ufe65\u203a\u3009\u27e9\u232a\u02c3\u300b\u276f\u276d\u2771\u1433"
    "\u27eb\u2992\u2994\u2996\u29fd",
    "<" * 17 + ">" * 17,
)


def with_plain_brackets(text: str) -> str:
    """``text`` with the characters that look like ``<`` and ``>`` made ``<`` and ``>``."""
    return text.translate(_BRACKET_LOOK_ALIKES)


# words that say nothing about what a sentence is about
FUNCTION_WORDS = frozenset(
    """a an and are as at be been but by can could did do does for from had has have how i if
    in into is it its me my of on or our so than that the their them then there these they
    this to was we were what when where which who why will with would you your""".split()  # noqa: SIM905
)

_SMALL_TALK = re.compile(
    r"^(?:hi|hello|hey|hiya|yo|howdy|greetings|good (?:morning|afternoon|evening|night)|"
    r"thanks?|thank you|thx|ty|cheers|ok(?:ay)?|k|sure|yes|yep|yeah|no|nope|cool|great|nice|"
    r"got it|sounds good|alright|bye|goodbye|see you|lol|haha|hmm+)"
    r"(?:[\s,]+(?:there|so much|a lot|again|you|man|all|everyone|then|thanks))*[\s!.?,]*$",
    re.IGNORECASE,
)


def is_small_talk(text: str) -> bool:
    """True for a message that is only a greeting or an acknowledgement."""
    return bool(_SMALL_TALK.match(text.strip()))


_NUMBER_LIKE = re.compile(r"\w*\d[\w.,:/\-]*")
_NAME = re.compile(r"\b[A-Z][\w’\-]*(?:'[A-Za-z]+)?")
# capitalised only because they open a sentence, not names
_COMMON_CAPITALISED = frozenset(
    {
        "a",
        "an",
        "the",
        "i",
        "we",
        "you",
        "he",
        "she",
        "they",
        "it",
        "this",
        "that",
        "these",
        "those",
        "my",
        "our",
        "your",
        "his",
        "her",
        "their",
        "its",
        "user",
        "users",
        "please",
        "remember",
        "forget",
        "delete",
        "in",
        "on",
        "at",
        "of",
        "for",
        "to",
        "from",
        "with",
        "by",
        "and",
        "or",
        "but",
        "if",
        "when",
        "where",
        "what",
        "which",
        "who",
        "why",
        "how",
        "is",
        "are",
        "was",
        "were",
        "be",
        "do",
        "does",
        "did",
        "not",
        "no",
        "yes",
        "there",
        "here",
        "some",
        "any",
        "all",
        "each",
        "every",
        "one",
        "today",
        "yesterday",
        "tomorrow",
    }
)
_QUOTED = re.compile(r"[\"“”']([^\"“”']{2,80})[\"“”']")
_WORD = re.compile(r"[\w\-]+")


def distinguishing_details(text: str) -> set[str]:
    """What tells one statement from a near copy: numbers and codes, names (capitalised words
    not opening a sentence) and quoted strings, lower-cased."""
    details = {match.rstrip(".,:/-").lower() for match in _NUMBER_LIKE.findall(text)}
    names = (re.sub(r"['’]s$", "", match).lower() for match in _NAME.findall(text))
    details |= {name for name in names if name not in _COMMON_CAPITALISED}
    details |= {match.strip().lower() for match in _QUOTED.findall(text)}
    return {detail for detail in details if detail}


def details_agree(query: str, statement: str) -> bool:
    """True when every distinguishing detail of ``query`` also occurs in ``statement``, as a
    word or as a hyphen-separated part of one ("991" in "V-AGENT-A-991")."""
    folded = statement.lower()
    words = set(_WORD.findall(folded))
    words |= {part for word in words if "-" in word for part in word.split("-") if part}
    return all(
        detail in words if _WORD.fullmatch(detail) else detail in folded
        for detail in distinguishing_details(query)
    )


_CAPITALISED_RUN = re.compile(r"\b[A-Z][\w\-]*(?:['’]s)?(?:\s+[A-Z][\w\-]*(?:['’]s)?)*")


def subject_name(text: str) -> str | None:
    """The first name the text mentions (a run of capitalised words that are not just
    capitalised for opening a sentence), lower-cased: what an entity memory is about."""
    for run in _CAPITALISED_RUN.findall(text):
        words = [re.sub(r"['’]s$", "", word).lower() for word in run.split()]
        words = [word for word in words if word not in _COMMON_CAPITALISED]
        if words:
            return " ".join(words)
    return None


def json_kind(value: Any) -> str:
    """What ``value`` is, in JSON's words."""
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, int | float):
        return "a number"
    return "null" if value is None else type(value).__name__
