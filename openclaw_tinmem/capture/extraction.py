"""A finished turn -> candidate facts (and the exchange's levels), by rules or by the LLM."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Protocol

from pydantic import BaseModel, Field

from openclaw_tinmem.capture.episodes import message_key
from openclaw_tinmem.capture.rules import extract_by_rules
from openclaw_tinmem.config import Settings
from openclaw_tinmem.events import Message
from openclaw_tinmem.llm import LLMClient
from openclaw_tinmem.models import Category, Draft, Provenance
from openclaw_tinmem.prompts import (
    EXTRACTION_SYSTEM,
    SESSION_SUMMARY_SYSTEM,
    extraction_prompt,
    session_prompt,
)

SESSION_IMPORTANCE = 0.6


logger = logging.getLogger("openclaw_tinmem")


@dataclass(frozen=True)
class TurnExtraction:
    """What an extractor found in a turn: the facts, each with the messages it came from,
    and the exchange's headline and summary when the extractor wrote them (an LLM does)."""

    facts: list[Draft] = field(default_factory=list)
    episode_headline: str | None = None
    episode_summary: str | None = None


class Extractor(Protocol):
    def extract(
        self, turn: Sequence[Message], context: Sequence[Message], when: datetime
    ) -> TurnExtraction: ...

    def summarize_session(self, messages: Sequence[Message], when: datetime) -> list[Draft]: ...


def _from_messages(messages: Sequence[Message]) -> Provenance:
    return Provenance(
        message_ids=tuple(message_key(message) for message in messages),
        speakers=tuple(message.name for message in messages if message.name),
    )


class RuleExtractor:
    """No-LLM mode: clearly memorable statements in the user's own messages, each dated and
    attributed to the message that said it."""

    def extract(
        self, turn: Sequence[Message], context: Sequence[Message], when: datetime
    ) -> TurnExtraction:
        conversation = [*context, *turn]
        offset = len(context)
        # the statement is kept verbatim, so the message it answered is its context
        facts = [
            replace(
                found,
                context=_previous(conversation, offset + index),
                created_at=message.timestamp,
                provenance=_from_messages([message]),
            )
            for index, message in enumerate(turn)
            if message.role == "user"
            for found in extract_by_rules(message.content)
        ]
        return TurnExtraction(facts)

    def summarize_session(self, messages: Sequence[Message], when: datetime) -> list[Draft]:
        return []  # a session summary needs an LLM; its exchanges were kept one by one


def _previous(conversation: Sequence[Message], index: int) -> str:
    return conversation[index - 1].content if index else ""


class ExtractedMemory(BaseModel):
    """The LLM's answer for one memory: the schema of a ``Draft`` it may fill."""

    category: Category
    headline: str = Field(min_length=1, max_length=300)
    summary: str = Field(min_length=1, max_length=2000)
    content: str = Field(min_length=1, max_length=8000)
    importance: float = Field(0.5, ge=0.0, le=1.0)
    tags: list[str] = Field(default_factory=list, max_length=12)


class EpisodeLevels(BaseModel):
    """The LLM's headline and summary of the exchange itself (the episode's L0 and L1)."""

    headline: str = Field(min_length=1, max_length=300)
    summary: str = Field(min_length=1, max_length=2000)


class Extraction(BaseModel):
    episode: EpisodeLevels | None = None
    memories: list[ExtractedMemory] = Field(default_factory=list, max_length=20)


class LLMExtractor:
    """One LLM call per turn: the turn (and a little context) -> zero or more memories."""

    def __init__(self, llm: LLMClient) -> None:
        self.llm = llm

    def extract(
        self, turn: Sequence[Message], context: Sequence[Message], when: datetime
    ) -> TurnExtraction:
        prompt = extraction_prompt(turn, context, when)
        result = self.llm.complete(Extraction, EXTRACTION_SYSTEM, prompt)
        source = _from_messages(turn)
        # undated: the worker dates each fact by its exchange, when its words were said
        facts = [Draft(**memory.model_dump(), provenance=source) for memory in result.memories]
        episode = result.episode
        return TurnExtraction(
            facts,
            episode.headline if episode else None,
            episode.summary if episode else None,
        )

    def summarize_session(self, messages: Sequence[Message], when: datetime) -> list[Draft]:
        """One LLM call: the whole session becomes one ``events`` memory."""
        prompt = session_prompt(messages, when)
        record = self.llm.complete(SessionRecord, SESSION_SUMMARY_SYSTEM, prompt)
        return [
            Draft(
                content=record.content,
                category=Category.EVENTS,
                importance=SESSION_IMPORTANCE,
                tags=("session",),
                headline=record.headline,
                summary=record.summary,
            )
        ]


class SessionRecord(BaseModel):
    headline: str = Field(min_length=1, max_length=300)
    summary: str = Field(min_length=1, max_length=2000)
    content: str = Field(min_length=1, max_length=8000)


def default_extractor(settings: Settings) -> Extractor:
    """The LLM's extraction when one is configured, else the no-LLM rules."""
    if settings.llm_configured():
        return LLMExtractor(LLMClient(settings))
    logger.info("openclaw-tinmem: no LLM configured, NO-LLM MODE (rule-based capture)")
    return RuleExtractor()
