"""Typed events and context passed to the ``openclaw`` hooks."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, fields, replace
from datetime import UTC, datetime
from functools import partial
from typing import TYPE_CHECKING, Any, Literal

from openclaw_tinmem.text import well_formed

if TYPE_CHECKING:
    from openclaw_tinmem.tools.definitions import ToolResult

Role = Literal["system", "user", "assistant", "tool"]


def content_text(content: Any) -> str:
    """The text of a message's content as hosts send it: a string, or a list of parts (text
    parts as ``{"type": "text", "text": ...}`` dicts or plain strings); other parts are left
    out."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = [part.get("text", "") if isinstance(part, dict) else part for part in content]
    return "\n".join(str(part) for part in parts if isinstance(part, str) and part)


@dataclass(frozen=True)
class Message:
    """One chat message."""

    role: Role
    content: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "content", well_formed(self.content))

    def to_dict(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Message:
        return cls(role=data["role"], content=str(data.get("content") or ""))


@dataclass(frozen=True)
class HookContext:
    """Who and where: the ids a host knows about the running agent."""

    agent_id: str = "main"
    session_id: str = ""
    session_key: str = ""
    run_id: str = ""
    user_id: str | None = None
    channel: str | None = None

    def __post_init__(self) -> None:
        for item in fields(self):  # every field is an id: text or None
            object.__setattr__(self, item.name, well_formed(getattr(self, item.name)))

    def for_new_run(self) -> HookContext:
        """This context for a new run (turn) of the same session: a fresh ``run_id``."""
        return replace(self, run_id=str(uuid.uuid4()))

    def to_dict(self) -> dict[str, Any]:
        return {
            "agent_id": self.agent_id, "session_id": self.session_id,
            "session_key": self.session_key, "run_id": self.run_id,
            "user_id": self.user_id, "channel": self.channel,
        }  # fmt: skip

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HookContext:
        known = {key: data[key] for key in cls.__dataclass_fields__ if data.get(key) is not None}
        return cls(**known)


@dataclass(frozen=True)
class PromptBuildEvent:
    """Before the model is called: the latest prompt and the visible history."""

    prompt: str
    messages: tuple[Message, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "prompt", well_formed(self.prompt))


@dataclass(frozen=True)
class PromptContext:
    """What a plugin adds to the prompt: system-level text and/or text before the user turn."""

    prepend_system_context: str | None = None
    prepend_context: str | None = None


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
class ToolRegistration:
    """A tool a plugin offers to the host."""

    name: str
    description: str
    parameters: dict[str, Any]
    # called with the call's JSON arguments and the context of the turn (None outside one):
    # the context says which agent calls, and so which scopes the call may see
    handler: Callable[[Any, HookContext | None], ToolResult]
    async_handler: Callable[[Any, HookContext | None], Awaitable[ToolResult]] | None = None
