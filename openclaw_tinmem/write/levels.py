"""Deterministic L0 (headline) and L1 (summary) for when no LLM writes them."""

from __future__ import annotations

import logging

from pydantic import BaseModel, Field

from openclaw_tinmem.errors import LLMError
from openclaw_tinmem.llm import LLMClient
from openclaw_tinmem.prompts import SUMMARY_SYSTEM
from openclaw_tinmem.text import clip_words, split_sentences

logger = logging.getLogger("openclaw_tinmem")
HEADLINE_MAX_WORDS = 15
SUMMARY_MAX_SENTENCES = 4
SUMMARY_MAX_WORDS = 80


def headline(content: str) -> str:
    """L0: the first sentence, at most ``HEADLINE_MAX_WORDS`` words."""
    sentences = split_sentences(content)
    return clip_words(sentences[0] if sentences else content, HEADLINE_MAX_WORDS)


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
    # a line without a full stop (a merged fact: "User lives in Berlin") ends its sentence
    # before the next is joined on, not run into it
    ended = [f"{sentence}." if sentence[-1].isalnum() else sentence for sentence in chosen[:-1]]
    return clip_words(" ".join([*ended, *chosen[-1:]]) or content, SUMMARY_MAX_WORDS)


class RuleSummarizer:
    """Writes L0 and L1 from the content itself."""

    def levels(self, content: str) -> tuple[str, str]:
        return headline(content), summary(content)


class Levels(BaseModel):
    headline: str = Field(min_length=1, max_length=300)
    summary: str = Field(min_length=1, max_length=2000)


class LLMSummarizer:
    """Headline and summary written by the LLM; the fallback writes them when it fails."""

    def __init__(self, llm: LLMClient, fallback: RuleSummarizer) -> None:
        self.llm = llm
        self.fallback = fallback

    def levels(self, content: str) -> tuple[str, str]:
        if len(content.split()) <= HEADLINE_MAX_WORDS:
            return content.strip(), content.strip()  # short enough to be its own headline
        try:
            result = self.llm.complete(Levels, SUMMARY_SYSTEM, content)
        except LLMError as error:
            logger.warning("LLM summary failed, using the rule-based one: %s", error.message)
            return self.fallback.levels(content)
        return result.headline, result.summary
