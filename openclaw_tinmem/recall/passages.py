"""The passage of a long memory that a query is about.

The cross-encoder reads a bounded number of tokens (``rerank_max_tokens``), and a block
shows a memory's summary, written from its beginning: a detail deep in a long reply (an
assistant's explanation, a pasted log) is seen by neither. A long memory is cut into passages
of about ``PASSAGE_WORDS`` words (whole sentences where they fit); the passage holding the most
of the query's words, each counted once, is the one the cross-encoder reads and
``memory_recall`` shows. A memory of one passage is read whole, as before.

An episode shown in brief (below the block's detailed items) is shown by at most
``SNIPPET_WORDS`` words of what its user said (``brief_line``): the sentence holding the most
of the query's words, each counted once, when one holds more than the headline does — of
"What does Caroline want to study?", not her first sentence but "Caroline: …keen on
counseling or working in mental health…" — else the headline, both cut to the words around
the first the query asks about. The speakers' names count for nothing there, since every line
of the exchange is theirs. The reply's sentences are left to the detailed items (unless the
user said nothing but thanks or the like): taken from the whole exchange, a sentence of an
assistant's reply took the place of the user's own words, and the evidence a block shows fell
on BEAM's assistant chats (docs/benchmarks.md).

Words are chosen, not vectors: the choice costs microseconds and no storage. Scoring every
passage with the late-interaction model was measured too (BEAM development split, passages
encoded and stored at write time, a memory scored by its best passage): frac@10 fell from
48.5 to 42.5, since a long memory's best of many passages outscores short turns that hold
the answer, the store grew about threefold and recall slowed by a quarter
(docs/benchmarks.md, "Recall on BEAM").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from openclaw_tinmem.text import FUNCTION_WORDS, passages, split_sentences

PASSAGE_WORDS = 80
SNIPPET_WORDS = 8  # the words an exchange shown in brief shows (of a sentence or its headline)
SNIPPET_LEAD_WORDS = 2  # of which this many before its first word the query asks about
STEMS_CACHED = 4096  # texts (queries, words) whose stems are kept
_WORD = re.compile(r"[\w'-]+")
_ENDING = re.compile(r"(?:'s|s)$")


def _content_words(text: str) -> set[str]:
    return {
        word
        for word in (match.group().lower() for match in _WORD.finditer(text))
        if len(word) > 1 and word not in FUNCTION_WORDS
    }


def best_passage(query: str, content: str) -> str | None:
    """The passage of ``content`` with the most of ``query``'s words (the first on a tie);
    None when ``content`` is one passage long or shares no word with the query."""
    parts = passages(content, PASSAGE_WORDS)
    if len(parts) < 2:
        return None
    wanted = _content_words(query)
    overlaps = [len(wanted & _content_words(part)) for part in parts]
    best = max(range(len(parts)), key=lambda index: (overlaps[index], -index))
    return parts[best] if overlaps[best] else None


def _stems(text: str, ignored: set[str]) -> set[str]:
    """The content words of ``text`` without a plural or possessive ending, less ``ignored``."""
    return set(_all_stems(text) - ignored)


@lru_cache(maxsize=STEMS_CACHED)
def _all_stems(text: str) -> frozenset[str]:
    """Kept: a block asks the query's, and the same words', of every episode it shows."""
    return frozenset(_ENDING.sub("", word) for word in _content_words(text))


def speaker_and_words(line: str, speakers: Sequence[str]) -> tuple[str, str]:
    """A line of an exchange (``Speaker: words``) as its speaker and words; ``("", line)``
    when it does not start with one of ``speakers``."""
    for speaker in speakers:
        if line.startswith(f"{speaker}: "):
            return speaker, line.removeprefix(f"{speaker}: ")
    return "", line


def _names(speakers: Sequence[str]) -> set[str]:
    """The stems of the speakers' names: every line of the exchange is theirs."""
    return {word for speaker in speakers for word in _stems(speaker, set())}


def best_sentence(query: str, content: str, headline: str, speakers: Sequence[str]) -> str | None:
    """The ``SNIPPET_WORDS`` words of a sentence of ``content`` (lines ``Speaker: words``, as
    an episode's) that hold the most of ``query``'s words, as ``Speaker: …words…``; None when
    none holds more of them than ``headline`` does."""
    names = _names(speakers)
    wanted = _stems(query, names)
    if not wanted:
        return None
    best, most = None, len(wanted & _stems(headline, names))
    for line in content.split("\n"):
        label, words = speaker_and_words(line, speakers)
        for sentence in split_sentences(words):
            shown, found = _snippet(sentence.split(), wanted, names)
            if found > most:
                best, most = f"{label}: {shown}" if label else shown, found
    return best


def brief_line(query: str, content: str, headline: str, speakers: Sequence[str]) -> str:
    """What an episode (``content`` in lines ``Speaker: words``) shows in brief: the
    ``best_sentence`` of the lines of its headline's speaker (its user, unless the user said
    nothing but thanks or the like), else ``headline``, cut to ``SNIPPET_WORDS`` words."""
    lines = content.split("\n")
    speaker = speaker_and_words(headline, speakers)[0] or lines[0].partition(": ")[0]
    said = "\n".join(line for line in lines if line.startswith(f"{speaker}: "))
    return best_sentence(query, said, headline, speakers) or _shortened(query, headline, speakers)


def _shortened(query: str, headline: str, speakers: Sequence[str]) -> str:
    """``headline`` (``Speaker: words``, maybe cut with an ellipsis already) cut to the
    ``SNIPPET_WORDS`` words around the first the query asks about."""
    label, said = speaker_and_words(headline, speakers)
    words = said.removesuffix("…").split()
    if len(words) <= SNIPPET_WORDS:
        return headline
    names = _names(speakers)
    shown, _ = _snippet(words, _stems(query, names), names)
    if said.endswith("…") and not shown.endswith("…"):
        shown += "…"
    return f"{label}: {shown}" if label else shown


def _snippet(words: Sequence[str], wanted: set[str], names: set[str]) -> tuple[str, int]:
    """The run of ``SNIPPET_WORDS`` of ``words`` that holds the most of ``wanted`` (starting
    just before the first it holds), with an ellipsis where words were left out, and how
    many of ``wanted`` it holds."""
    hits = [index for index, word in enumerate(words) if _stems(word, names) & wanted]
    best, most = 0, 0
    for hit in hits:
        start = max(0, min(hit - SNIPPET_LEAD_WORDS, len(words) - SNIPPET_WORDS))
        found = len(wanted & _stems(" ".join(words[start : start + SNIPPET_WORDS]), names))
        if found > most:
            best, most = start, found
    shown = " ".join(words[best : best + SNIPPET_WORDS]).rstrip(",;:")
    ellipsis = ("…" if best else "", "…" if best + SNIPPET_WORDS < len(words) else "")
    return ellipsis[0] + shown + ellipsis[1], most
