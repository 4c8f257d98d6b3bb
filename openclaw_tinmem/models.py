"""Domain types: scopes, memories, drafts, hits and write outcomes.

The categories with their merge policies and the levels live in ``categories`` (no pydantic,
so the CLI can name them without loading it) and are re-exported here.
"""

from __future__ import annotations

import hashlib
import math
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

from openclaw_tinmem.categories import CATEGORY_POLICIES as CATEGORY_POLICIES
from openclaw_tinmem.categories import Category as Category
from openclaw_tinmem.categories import CategoryPolicy as CategoryPolicy
from openclaw_tinmem.categories import Level as Level
from openclaw_tinmem.categories import MergePolicy as MergePolicy
from openclaw_tinmem.errors import InvalidArgumentError
from openclaw_tinmem.text import quoted


class Source(StrEnum):
    """Where a memory came from."""

    TOOL = "tool"
    AUTO_CAPTURE = "auto-capture"
    IMPORT = "import"
    INGEST = "ingest"  # a past conversation put through capture by ``tinmem ingest``


class Action(StrEnum):
    """What a write did."""

    CREATED = "created"
    MERGED = "merged"
    SKIPPED = "skipped"


class MatchKind(StrEnum):
    """Which retriever found a hit."""

    VECTOR = "vector"
    FULL_TEXT = "full-text"
    BOTH = "both"


GLOBAL_SCOPE = "global"
PERSONAL_SCOPE_PREFIXES = ("agent:", "user:")  # one agent's or user's own: not shared on purpose
# the tag of an episode: an exchange kept as it was said (capture.episodes), never merged
EPISODE_TAG = "episode"
FOLDED_TAG = "folded-session"  # a session's expired episodes, folded into one (write.folding)
INSTRUCTION_TAG = "instruction"  # a standing instruction to the agent (recall.instructions)
MAX_CONTENT_CHARACTERS = 20_000  # the longest content a memory holds, on every write path
_SCOPE_PATTERN = re.compile(
    r"^(?:global|(?:agent|user|project|custom):[A-Za-z0-9][A-Za-z0-9._@+\-~]{0,127})$"
)
DEFAULT_IMPORTANCE = 0.5


def readable_importance(value: Any) -> float:
    """An importance as stored by any version: brought into 0–1 (an older version wrote some
    unchecked), the default when it is no number at all."""
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        return DEFAULT_IMPORTANCE
    return min(max(float(value), 0.0), 1.0)


SCOPE_GRAMMAR = (
    "'global', or one of agent:<id>, user:<id>, project:<id>, custom:<name> where the id is "
    "1-128 characters of letters, digits, '.', '_', '-', '@', '+', '~' starting with a letter "
    "or digit"
)


def validate_scope(scope: str, *, field: str = "scope") -> str:
    """Return ``scope`` if it follows the scope grammar, else raise InvalidArgumentError."""
    if not isinstance(scope, str) or not _SCOPE_PATTERN.fullmatch(scope):
        raise InvalidArgumentError(
            f"invalid scope {quoted(scope)}: expected {SCOPE_GRAMMAR}", field=field
        )
    return scope


_UUID_PATTERN = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def validate_memory_id(memory_id: str, *, field: str = "id") -> str:
    """Return the canonical lower-case form of a memory UUID, else raise."""
    candidate = memory_id.strip().lower() if isinstance(memory_id, str) else ""
    if not _UUID_PATTERN.fullmatch(candidate):
        raise InvalidArgumentError(
            f"invalid memory id {quoted(memory_id)}: expected a UUID such as "
            "'123e4567-e89b-12d3-a456-426614174000'",
            field=field,
        )
    return candidate


_ID_PREFIX_PATTERN = re.compile(r"^[0-9a-f][0-9a-f\-]{7,35}$")


def validate_memory_reference(memory_id: str, *, field: str = "id") -> str:
    """A memory UUID, or a prefix of one of at least 8 characters, lower-cased; else raise."""
    candidate = memory_id.strip().lower() if isinstance(memory_id, str) else ""
    if _UUID_PATTERN.fullmatch(candidate) or _ID_PREFIX_PATTERN.fullmatch(candidate):
        return candidate
    raise InvalidArgumentError(
        f"invalid memory id {quoted(memory_id)}: expected a UUID such as "
        "'123e4567-e89b-12d3-a456-426614174000', or its first 8 or more characters",
        field=field,
    )


def is_full_id(memory_id: str) -> bool:
    return bool(_UUID_PATTERN.fullmatch(memory_id))


MAX_TAGS = 32
# The end of a conversational context is what matters (the message just before a memory).
MAX_CONTEXT_CHARACTERS = 2000
MAX_TAG_LENGTH = 64


def context_tail(text: str) -> str:
    """The part of a memory's context that is kept: its last ``MAX_CONTEXT_CHARACTERS``
    characters after trailing whitespace, without whitespace at either end. Cut, then
    stripped at the start, so that reading a stored context back gives it unchanged (stripped
    first, a tail that started with a space lost it on every read: the memory then looked
    changed, and its token vectors were encoded again at each recall). A context stored
    before that is normalised the same way where it is compared."""
    return text.rstrip()[-MAX_CONTEXT_CHARACTERS:].lstrip()


_TAG_CLEAN = re.compile(r"[^a-z0-9._+#/\- ]")


def normalise_tags(tags: list[str] | None) -> list[str]:
    """Lower-case, trim, collapse inner spaces to '-', drop empties and duplicates (order kept)."""
    result: list[str] = []
    for raw in tags or []:
        tag = _TAG_CLEAN.sub("", str(raw).strip().lower())
        tag = re.sub(r"\s+", "-", tag).strip("-")[:MAX_TAG_LENGTH]
        if tag and tag not in result:
            result.append(tag)
    return result[:MAX_TAGS]


def content_hash(content: str) -> str:
    """A stable hash of content with case and whitespace folded, used for exact-duplicate checks."""
    folded = " ".join(content.lower().split())
    return hashlib.sha256(folded.encode("utf-8")).hexdigest()


def new_memory_id() -> str:
    return str(uuid.uuid4())


def utc_now() -> datetime:
    return datetime.now(UTC)


MAX_MESSAGE_IDS = 64


class Provenance(BaseModel):
    """Where a memory's words came from, beyond its ``source``: which agent kept them, for
    which user, who said them, in which session and channel, and from which messages (the
    host's message ids, or positions ``<session>#<index>`` where it gives none). A fact taken
    from an exchange names the episode memory that keeps the exchange itself.

    ``untrusted`` says why the words may not be the user's or the agent's own (they quote
    tool output, carry instructions to the model): such a memory is kept and found by the
    tools, but automatic recall does not inject it unless ``inject_untrusted`` is on."""

    model_config = ConfigDict(frozen=True)

    agent_id: str | None = None
    user_id: str | None = None
    speakers: tuple[str, ...] = ()
    session_id: str | None = None
    session_key: str | None = None
    channel: str | None = None
    message_ids: tuple[str, ...] = ()
    episode_id: str | None = None
    untrusted: str | None = None

    @field_validator("message_ids", "speakers", mode="before")
    @classmethod
    def _bounded(cls, value: Any) -> Any:
        if isinstance(value, list | tuple):
            return tuple(dict.fromkeys(str(item) for item in value if item))[:MAX_MESSAGE_IDS]
        return value

    def is_empty(self) -> bool:
        return self == EMPTY_PROVENANCE

    def public_dict(self) -> dict[str, Any]:
        """The fields that are set, JSON-ready."""
        return self.model_dump(mode="json", exclude_defaults=True)


EMPTY_PROVENANCE = Provenance()


class Memory(BaseModel):
    """One stored memory with its three levels of detail."""

    id: str = Field(default_factory=new_memory_id)
    scope: str = GLOBAL_SCOPE
    category: Category
    headline: str
    summary: str
    content: str
    importance: float = Field(DEFAULT_IMPORTANCE, ge=0.0, le=1.0, allow_inf_nan=False)
    tags: list[str] = Field(default_factory=list)
    created_at: datetime = Field(default_factory=utc_now)
    updated_at: datetime = Field(default_factory=utc_now)
    last_accessed_at: datetime | None = None
    access_count: int = Field(0, ge=0)
    source: Source = Source.TOOL
    source_ref: str = ""
    content_hash: str = ""
    # What preceded the memory where it was said (e.g. the question it answers); indexed for
    # late interaction, never part of what recall returns.
    context: str = ""
    provenance: Provenance = EMPTY_PROVENANCE

    @field_validator("context", mode="before")
    @classmethod
    def _keep_context_tail(cls, value: Any) -> Any:
        if value is None:
            return ""
        if isinstance(value, str):
            return context_tail(value)
        return value

    def text_at(self, level: Level) -> str:
        """The memory's text at the requested level of detail."""
        if level is Level.L0:
            return self.headline
        if level is Level.L1:
            return self.summary
        return self.content

    def public_dict(self) -> dict[str, Any]:
        """JSON-ready representation without the vector."""
        return self.model_dump(mode="json")


MAX_SUMMARY_CHARACTERS = 4_000
MAX_HEADLINE_CHARACTERS = 400
_Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


class MemoryChanges(BaseModel):
    """What an explicit update may change, checked as the tools check it: one bad value from
    any front end (a tool, the browser, Python) is refused before anything is written."""

    model_config = ConfigDict(extra="forbid", strict=True)

    content: _Text | None = Field(None, max_length=MAX_CONTENT_CHARACTERS)
    summary: _Text | None = Field(None, max_length=MAX_SUMMARY_CHARACTERS)
    headline: _Text | None = Field(None, max_length=MAX_HEADLINE_CHARACTERS)
    importance: float | None = Field(None, ge=0.0, le=1.0, allow_inf_nan=False)
    tags: list[str] | None = Field(None, max_length=MAX_TAGS)


@dataclass(frozen=True)
class Draft:
    """One candidate memory, from whoever proposes it (a tool call, capture's extractor, an
    import) to the writer, which gives it levels, a vector and the category's merge rule."""

    content: str
    category: Category
    scope: str = GLOBAL_SCOPE
    importance: float = DEFAULT_IMPORTANCE
    tags: Sequence[str] = ()
    headline: str | None = None
    summary: str | None = None
    source: Source = Source.TOOL
    source_ref: str = ""
    memory_id: str | None = None
    context: str = ""
    # when what it records was said (its message's time, else the captured turn's end), if
    # not now: recall groups memories into episodes by it, so a capture that runs late must
    # not move it
    created_at: datetime | None = None
    provenance: Provenance = EMPTY_PROVENANCE


@dataclass(frozen=True)
class Hit:
    """A recalled memory with its final score and how it matched; of a long memory, also the
    passage the query is about (None for a memory read whole)."""

    memory: Memory
    score: float
    relevance: float
    match: MatchKind
    similarity: float | None = None
    passage: str | None = None

    def to_dict(self, level: Level) -> dict[str, Any]:
        return {
            "id": self.memory.id,
            "category": self.memory.category.value,
            "scope": self.memory.scope,
            "text": self.memory.text_at(level),
            "score": round(self.score, 4),
            "match": self.match.value,
            "similarity": None if self.similarity is None else round(self.similarity, 3),
            "importance": self.memory.importance,
            "tags": self.memory.tags,
            "said_at": self.memory.created_at.isoformat(),
            "updated_at": self.memory.updated_at.isoformat(),
            "source": self.memory.source.value,
            "provenance": self.memory.provenance.public_dict(),
            **({"passage": self.passage} if self.passage is not None else {}),
        }


@dataclass(frozen=True)
class WriteOutcome:
    """What a store or update call did, and to which memory."""

    action: Action
    memory: Memory
    target_id: str | None = None
    reason: str = ""
    redacted: int = 0  # secrets replaced by [REDACTED] in what was given
