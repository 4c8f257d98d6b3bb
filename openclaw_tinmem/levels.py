"""Deterministic L0 (headline) and L1 (summary) for when no LLM writes them."""

from __future__ import annotations

import re

HEADLINE_MAX_WORDS = 15
SUMMARY_MAX_SENTENCES = 4
SUMMARY_MAX_WORDS = 80
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[])|\n+")


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text``, split on terminal punctuation and line breaks."""
    return [part.strip() for part in _SENTENCE_END.split(text.strip()) if part.strip()]


def _clip_words(text: str, max_words: int) -> str:
    words = text.split()
    if len(words) <= max_words:
        return " ".join(words)
    return " ".join(words[:max_words]).rstrip(",;:") + "…"


def headline(content: str) -> str:
    """L0: the first sentence, at most ``HEADLINE_MAX_WORDS`` words."""
    sentences = split_sentences(content)
    return _clip_words(sentences[0] if sentences else content, HEADLINE_MAX_WORDS)


def summary(content: str) -> str:
    """L1: the first sentences, up to four and about eighty words."""
    chosen: list[str] = []
    words = 0
    for sentence in split_sentences(content)[:SUMMARY_MAX_SENTENCES]:
        count = len(sentence.split())
        if chosen and words + count > SUMMARY_MAX_WORDS:
            break
        chosen.append(sentence)
        words += count
    return _clip_words(" ".join(chosen) or content, SUMMARY_MAX_WORDS)


class RuleSummarizer:
    """Writes L0 and L1 from the content itself."""

    def levels(self, content: str) -> tuple[str, str]:
        return headline(content), summary(content)
