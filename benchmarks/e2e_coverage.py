"""How much of a question's evidence what was returned covers, for ``locomo_e2e``.

An evidence turn counts as found when a returned memory's provenance names its message — no
text matching — except for a folded session (``write.folding``): it names every message of
its session but keeps only a part of each, so it counts for a message only where what was
shown holds that message's words.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from openclaw_tinmem.models import FOLDED_TAG, Memory

WORD = re.compile(r"\w+")
RUN_WORDS = 6


def words_of(text: str) -> list[str]:
    return WORD.findall(text.lower())


def holds(text: str, said: str) -> bool:
    """Whether ``text`` holds a run of ``RUN_WORDS`` of the words of ``said`` (all of a
    shorter one)."""
    haystack = f" {' '.join(words_of(text))} "
    words = words_of(said)
    runs = (
        [words]
        if len(words) <= RUN_WORDS
        else [words[i : i + RUN_WORDS] for i in range(len(words) - RUN_WORDS + 1)]
    )
    return any(f" {' '.join(run)} " in haystack for run in runs if run)


def coverage(
    memories: Sequence[Memory],
    evidence: Sequence[str],
    said: Mapping[str, str] | None = None,
    shown: str = "",
) -> float:
    """The share of evidence turns some memory names as its source. A folded session names
    every message of its session (``--fold``) and keeps only a part of each: it counts for a
    message only where what was shown (``shown``: the block, or memory_recall's texts) holds
    the message's words (``holds``)."""
    named: set[str] = set()
    for memory in memories:
        keys = memory.provenance.message_ids
        if FOLDED_TAG in memory.tags and said is not None:
            keys = tuple(key for key in keys if key in said and holds(shown, said[key]))
        named.update(keys)
    return sum(1 for turn in evidence if turn in named) / len(evidence)


def shown_coverage(evidence: Sequence[str], said: Mapping[str, str], shown: str) -> float:
    """The share of evidence turns whose words ``shown`` holds (``holds``): what a model
    reading the block sees of them, whichever memory it came through."""
    return sum(1 for turn in evidence if turn in said and holds(shown, said[turn])) / len(evidence)
