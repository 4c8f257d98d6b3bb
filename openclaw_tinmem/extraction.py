"""A finished turn -> candidate memories, by rules (no LLM) or by the LLM."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from pydantic import BaseModel, Field

from openclaw_tinmem.events import Message
from openclaw_tinmem.llm import LLMClient
from openclaw_tinmem.models import Category
from openclaw_tinmem.prompts import (
    EXTRACTION_SYSTEM,
    SESSION_SUMMARY_SYSTEM,
    extraction_prompt,
    session_prompt,
)
from openclaw_tinmem.rules import extract_by_rules

SESSION_IMPORTANCE = 0.6


@dataclass(frozen=True)
class CandidateMemory:
    """Something worth remembering, before dedup decides its fate."""

    content: str
    category: Category
    importance: float = 0.5
    tags: tuple[str, ...] = ()
    headline: str | None = None
    summary: str | None = None
    context: str = ""  # what preceded it in the conversation (see Memory.context)


class Extractor(Protocol):
    def extract(
        self, turn: Sequence[Message], context: Sequence[Message], when: datetime
    ) -> list[CandidateMemory]: ...

    def summarize_session(
        self, messages: Sequence[Message], when: datetime
    ) -> list[CandidateMemory]: ...


class RuleExtractor:
    """No-LLM mode: clearly memorable statements in the user's own messages."""

    def extract(
        self, turn: Sequence[Message], context: Sequence[Message], when: datetime
    ) -> list[CandidateMemory]:
        conversation = [*context, *turn]
        offset = len(context)
        return [
            CandidateMemory(
                found.content,
                found.category,
                found.importance,
                # the statement is kept verbatim, so the message it answered is its context
                context=conversation[offset + index - 1].content if offset + index else "",
            )
            for index, message in enumerate(turn)
            if message.role == "user"
            for found in extract_by_rules(message.content)
        ]

    def summarize_session(
        self, messages: Sequence[Message], when: datetime
    ) -> list[CandidateMemory]:
        return []  # a session summary needs an LLM; the turns were captured one by one


class ExtractedMemory(BaseModel):
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
    ) -> list[CandidateMemory]:
        prompt = extraction_prompt(
            [(m.role, m.content) for m in turn], [(m.role, m.content) for m in context], when
        )
        result = self.llm.complete(Extraction, EXTRACTION_SYSTEM, prompt)
        return [
            CandidateMemory(
                content=memory.content,
                category=memory.category,
                importance=memory.importance,
                tags=tuple(memory.tags),
                headline=memory.headline,
                summary=memory.summary,
            )
            for memory in result.memories
        ]

    def summarize_session(
        self, messages: Sequence[Message], when: datetime
    ) -> list[CandidateMemory]:
        """One LLM call: the whole session becomes one ``events`` memory."""
        prompt = session_prompt([(m.role, m.content) for m in messages], when)
        record = self.llm.complete(SessionRecord, SESSION_SUMMARY_SYSTEM, prompt)
        return [
            CandidateMemory(
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
