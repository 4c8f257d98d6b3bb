"""Typed events and context passed to the ``openclaw`` hooks."""

from __future__ import annotations

import math
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, fields, replace
from datetime import UTC, datetime
from functools import partial
from typing import Any, Literal

from openclaw_tinmem.text import well_formed

Role = Literal["system", "user", "assistant", "tool"]


def content_text(content: Any) -> str:
    """The text of a message's content as hosts send it: a string, a number, or a list of
    parts (text parts as ``{"type": "text", "text": ...}`` dicts or plain strings) or one such
    part; other parts, and None, are left out."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):  # one part on its own
        content = [content]
    if isinstance(content, int | float) and not isinstance(content, bool):
        return str(content)
    if not isinstance(content, list):
        return ""
    parts = [part.get("text", "") if isinstance(part, dict) else part for part in content]
    return "\n".join(str(part) for part in parts if isinstance(part, str) and part)


# An epoch number above this is in milliseconds (as seconds it would be past the year 5138).
MILLISECONDS_FROM = 1e11


def parse_timestamp(value: Any) -> datetime | None:
    """A message time as hosts send it, in UTC: an aware datetime, ISO 8601 text, or seconds
    or milliseconds since the epoch (OpenClaw's ``timestamp``); None for anything else. A
    time without a zone is taken as UTC."""
    if isinstance(value, bool):
        return None
    when: datetime | None = None
    if isinstance(value, datetime):
        when = value
    elif isinstance(value, int | float) and math.isfinite(value) and value > 0:
        seconds = value / 1000 if value > MILLISECONDS_FROM else value
        try:
            when = datetime.fromtimestamp(seconds, UTC)
        except (OverflowError, OSError, ValueError):
            return None
    elif isinstance(value, str) and value.strip():
        try:
            when = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
    if when is None:
        return None
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


@dataclass(frozen=True)
class Message:
    """One chat message, with what the host knows of where it came from: who said it
    (``name``: the user's name, the agent's), when (``timestamp``) and the host's ``id`` for
    it. Automatic memory dates what it keeps by ``timestamp`` and records ``id`` as its
    provenance; both are optional."""

    role: Role
    content: str
    name: str | None = None
    timestamp: datetime | None = None
    id: str | None = None

    def __post_init__(self) -> None:
        # a reply that is only a tool call has None; multimodal content is a list of parts
        object.__setattr__(self, "content", well_formed(content_text(self.content)))
        for name in ("name", "id"):
            value = getattr(self, name)
            object.__setattr__(self, name, well_formed(str(value)) if value else None)
        object.__setattr__(self, "timestamp", parse_timestamp(self.timestamp))

    def to_dict(self) -> dict[str, str]:
        data = {"role": self.role, "content": self.content}
        if self.name:
            data["name"] = self.name
        if self.timestamp is not None:
            data["timestamp"] = self.timestamp.isoformat()
        if self.id:
            data["id"] = self.id
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Message:
        return cls(
            role=data["role"],
            content=content_text(data.get("content")),
            name=data.get("name"),
            timestamp=data.get("timestamp"),
            id=data.get("id"),
        )

    def with_content(self, content: str) -> Message:
        """The same message (who, when, which) with other text: cleaned or redacted."""
        return replace(self, content=content)


# OpenClaw's names for what a hook or tool context carries
HOST_CONTEXT_NAMES = {
    "agentId": "agent_id",
    "sessionId": "session_id",
    "sessionKey": "session_key",
    "runId": "run_id",
    "userId": "user_id",
    "requesterSenderId": "user_id",
    "messageChannel": "channel",
    "channelId": "channel",
    "messageProvider": "channel",
    "senderId": "user_id",
}


@dataclass(frozen=True)
class HookContext:
    """Who and where: the ids a host knows about the running agent."""

    agent_id: str = "main"
    session_id: str = ""
    session_key: str = ""
    run_id: str = ""
    user_id: str | None = None
    channel: str | None = None
    # what started the run, where the host says: "user", or a schedule ("heartbeat", "cron")
    trigger: str | None = None

    def __post_init__(self) -> None:
        for item in fields(self):  # every field is an id: text or None
            object.__setattr__(self, item.name, well_formed(getattr(self, item.name)))

    def for_new_run(self) -> HookContext:
        """This context for a new run (turn) of the same session: a fresh ``run_id``."""
        return replace(self, run_id=str(uuid.uuid4()))

    def to_dict(self) -> dict[str, Any]:
        return {item.name: getattr(self, item.name) for item in fields(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HookContext:
        known = {key: data[key] for key in cls.__dataclass_fields__ if data.get(key) is not None}
        return cls(**known)

    @classmethod
    def from_host(cls, raw: Any) -> HookContext:
        """A host's context given as plain data: OpenClaw's camelCase names or ours, values
        read as text (anything but an object: no context)."""
        values: dict[str, str] = {}
        for key, value in (raw if isinstance(raw, dict) else {}).items():
            name = HOST_CONTEXT_NAMES.get(key, key)
            if name in cls.__dataclass_fields__ and value and name not in values:
                values[name] = str(value)
        return cls.from_dict(values)


@dataclass(frozen=True)
class PromptBuildEvent:
    """Before the model is called: the latest prompt and the visible history."""

    prompt: str
    messages: tuple[Message, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "prompt", well_formed(self.prompt))


@dataclass(frozen=True)
class PromptContext:
    """What a plugin adds to the prompt: system-level text and/or text before the user turn,
    and the ids of the memories that text shows (for a host's logs; a host may ignore it)."""

    prepend_system_context: str | None = None
    prepend_context: str | None = None
    memory_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class AgentEndEvent:
    """A finished turn."""

    messages: tuple[Message, ...]
    success: bool = True
    run_id: str = ""
    duration_ms: float = 0.0
    error: str | None = None
    ended_at: datetime = field(default_factory=partial(datetime.now, UTC))


@dataclass(frozen=True)
class SessionEvent:
    """A session starts, ends, is reset or is about to be compacted."""

    session_id: str
    messages: tuple[Message, ...] = ()
    reason: str | None = None


@dataclass(frozen=True)
class ToolResult:
    """A JSON object for machines and a short text for people (and models)."""

    data: Any  # a JSON object; memory_tree returns the spec's JSON array
    text: str

    @property
    def is_error(self) -> bool:
        return isinstance(self.data, dict) and "error" in self.data


@dataclass(frozen=True)
class ToolRegistration:
    """A tool a plugin offers to the host."""

    name: str
    description: str
    parameters: dict[str, Any]
    # called with the call's JSON arguments and the context of the turn (None outside one):
    # the context says which agent calls, and so which scopes the call may see
    handler: Callable[[Any, HookContext | None], ToolResult]
    async_handler: Callable[[Any, HookContext | None], Awaitable[ToolResult]] | None = None
