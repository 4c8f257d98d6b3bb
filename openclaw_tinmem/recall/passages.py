"""The passage of a long memory that a query is about.

The cross-encoder reads a bounded number of tokens (``rerank_max_tokens``), and a block
shows a memory's summary, written from its beginning: a detail deep in a long reply (an
assistant's explanation, a pasted log) is seen by neither. A long memory is cut into passages
of about ``PASSAGE_WORDS`` words (whole sentences where they fit); the passage holding the most
of the query's words, each counted once, is the one the cross-encoder reads and
``memory_recall`` shows. A memory of one passage is read whole, as before.

Words are chosen, not vectors: the choice costs microseconds and no storage. Scoring every
passage with the late-interaction model was measured too (BEAM development split, passages
encoded and stored at write time, a memory scored by its best passage): frac@10 fell from
48.5 to 42.5, since a long memory's best of many passages outscores short turns that hold
the answer, the store grew about threefold and recall slowed by a quarter
(docs/benchmarks.md, "Recall on BEAM").
"""

from __future__ import annotations

import re

from openclaw_tinmem.text import passages

PASSAGE_WORDS = 80
_WORD = re.compile(r"[\w'-]+")
# words that say nothing about which passage a question is about
_FUNCTION_WORDS = frozenset(
    """a an and are as at be been but by can could did do does for from had has have how i if
    in into is it its me my of on or our so than that the their them then there these they
    this to was we were what when where which who why will with would you your""".split()  # noqa: SIM905
)


def _content_words(text: str) -> set[str]:
    return {
        word
        for word in (match.group().lower() for match in _WORD.finditer(text))
        if len(word) > 1 and word not in _FUNCTION_WORDS
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
