"""A finished turn -> candidate memories, by rules (no LLM) or by the LLM."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Protocol

from pydantic import BaseModel, Field

from openclaw_tinmem.capture.rules import extract_by_rules
from openclaw_tinmem.events import Message
from openclaw_tinmem.llm import LLMClient
from openclaw_tinmem.models import Category, Draft
from openclaw_tinmem.prompts import (
    EXTRACTION_SYSTEM,
    SESSION_SUMMARY_SYSTEM,
    extraction_prompt,
    session_prompt,
)

SESSION_IMPORTANCE = 0.6


class Extractor(Protocol):
    def extract(
        self, turn: Sequence[Message], context: Sequence[Message], when: datetime
    ) -> list[Draft]: ...

    def summarize_session(self, messages: Sequence[Message], when: datetime) -> list[Draft]: ...


class RuleExtractor:
    """No-LLM mode: clearly memorable statements in the user's own messages."""

    def extract(
        self, turn: Sequence[Message], context: Sequence[Message], when: datetime
    ) -> list[Draft]:
        conversation = [*context, *turn]
        offset = len(context)
        # the statement is kept verbatim, so the message it answered is its context
        return [
            replace(found, context=_previous(conversation, offset + index))
            for index, message in enumerate(turn)
            if message.role == "user"
            for found in extract_by_rules(message.content)
        ]

    def summarize_session(self, messages: Sequence[Message], when: datetime) -> list[Draft]:
        return []  # a session summary needs an LLM; the turns were captured one by one


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


class Extraction(BaseModel):
    memories: list[ExtractedMemory] = Field(default_factory=list, max_length=20)


class LLMExtractor:
    """One LLM call per turn: the turn (and a little context) -> zero or more memories."""

    def __init__(self, llm: LLMClient) -> None:
        self.llm = llm

    def extract(
        self, turn: Sequence[Message], context: Sequence[Message], when: datetime
    ) -> list[Draft]:
        prompt = extraction_prompt(turn, context, when)
        result = self.llm.complete(Extraction, EXTRACTION_SYSTEM, prompt)
        return [Draft(**memory.model_dump()) for memory in result.memories]

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
