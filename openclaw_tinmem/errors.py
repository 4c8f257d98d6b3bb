"""Every error openclaw-tinmem raises on purpose derives from ``TinmemError``.

    TinmemError
    ├── InvalidArgumentError      a caller passed a value outside what is allowed (names the field)
    ├── NotFoundError             an id or path that does not exist
    ├── AccessDeniedError         the caller may not read or write that scope (names it)
    ├── RateLimitError            a tool was called too often (says when to retry)
    ├── ConfigError               the configuration file or an env var is malformed
    ├── ModelError                an embedding / reranking model cannot be provisioned or loaded
    │   └── ModelMismatchError    the store was written by another embedding model
    ├── StoreError                the LanceDB store failed (lock timeout, corrupt table)
    └── LLMError                  the LLM endpoint failed or returned unusable output

Tool handlers turn these into error objects (``to_dict``); the CLI into exit code 2.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Self

from openclaw_tinmem.text import quoted

if TYPE_CHECKING:
    from pydantic import ValidationError


MAX_FIELD_CHARACTERS = 200


class TinmemError(Exception):
    """Root of every error raised by openclaw-tinmem."""

    kind = "error"

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        # a field named by the caller (an unknown argument of a megabyte) is not echoed whole
        self.field = (
            field
            if field is None or len(field) <= MAX_FIELD_CHARACTERS
            else (field[: MAX_FIELD_CHARACTERS - 1] + "…")
        )

    def to_dict(self) -> dict[str, Any]:
        """The error as a JSON-ready object: type, message and (when known) field."""
        error: dict[str, Any] = {"type": self.kind, "message": self.message}
        if self.field is not None:
            error["field"] = self.field
        return error


class InvalidArgumentError(TinmemError):
    """A value is outside what is allowed; ``field`` names the offending argument."""

    kind = "invalid_argument"


class UnknownToolError(InvalidArgumentError):
    """A call of a tool that is not offered (its name is the offending argument)."""

    kind = "unknown_tool"

    @classmethod
    def naming(cls, name: str, offered: Iterable[str], *, field: str | None = None) -> Self:
        """The error for a call of ``name``, listing the tools ``offered``."""
        return cls(f"no tool {quoted(name)}; tools: {', '.join(offered)}", field=field)


class InvalidRequestError(InvalidArgumentError):
    """A request to the bridge that is not one: not an object, an unknown method or hook."""

    kind = "invalid_request"


class NotFoundError(TinmemError):
    """The memory id or workspace path does not exist."""

    kind = "not_found"


class AccessDeniedError(TinmemError):
    """The caller's identity may not read or write the scope the message names."""

    kind = "access_denied"


class ConflictError(TinmemError):
    """The memory changed since the caller read it; its change was not made."""

    kind = "conflict"


class RateLimitError(TinmemError):
    """Too many calls; ``retry_after_seconds`` says when the next call is allowed."""

    kind = "rate_limited"

    def __init__(self, message: str, *, retry_after_seconds: float) -> None:
        super().__init__(message)
        self.retry_after_seconds = retry_after_seconds

    def to_dict(self) -> dict[str, Any]:
        error = super().to_dict()
        error["retry_after_seconds"] = round(self.retry_after_seconds, 1)
        return error


class ConfigError(TinmemError):
    """The configuration file or an environment variable is malformed."""

    kind = "config_error"


class ModelError(TinmemError):
    """An embedding or reranking model cannot be provisioned or loaded."""

    kind = "model_error"


class ModelMismatchError(ModelError):
    """The store was written with a different embedding model or dimension."""

    kind = "model_mismatch"


class StoreError(TinmemError):
    """The LanceDB store failed: lock timeout, unreadable table, bad URI."""

    kind = "store_error"


class LLMError(TinmemError):
    """The LLM endpoint timed out, failed, or returned output that does not fit the schema."""

    kind = "llm_error"


def invalid_argument(
    error: ValidationError, *, allowed: Iterable[str] = (), noun: str = "argument", prefix: str = ""
) -> InvalidArgumentError:
    """The first problem pydantic found, as an error that names the field and what is allowed.

    ``allowed`` lists the accepted field names (for an unknown one); ``prefix`` goes in front
    of the message (e.g. "line 3: "). An InvalidArgumentError raised inside a validator is
    passed through with the prefix added.
    """
    detail = error.errors()[0]
    location = [str(part) for part in detail["loc"]]
    field = location[0] if location else None
    path = ".".join(location) or "value"
    wrapped = (detail.get("ctx") or {}).get("error")
    if isinstance(wrapped, InvalidArgumentError):
        return InvalidArgumentError(prefix + wrapped.message, field=wrapped.field)
    kind = detail["type"]
    if kind == "extra_forbidden" and len(location) > 1:  # inside a field: ``allowed`` is not its
        message = f"unknown {noun} {quoted(path)}"
    elif kind == "extra_forbidden":
        names = ", ".join(allowed)
        message = f"unknown {noun} {quoted(field)}" + (f"; allowed: {names}" if names else "")
    elif kind == "missing":
        message = f"{path} is required"
    elif kind == "enum":
        expected = (detail.get("ctx") or {}).get("expected", "")
        message = f"{path}: {quoted(detail['input'])} is not allowed; use one of {expected}"
    else:
        message = f"{path}: " + str(detail["msg"]).removeprefix("Value error, ")
    return InvalidArgumentError(prefix + message, field=field)


# where in its own source a Rust library failed ("…/structural.rs:258:9"): nothing a user can act on
_SOURCE_LOCATION = re.compile(r",?\s*\S*\.rs:\d+(?::\d+)?")


def describe_failure(error: BaseException) -> str:
    """An error we did not raise on purpose, in one line a person can read: its kind and the
    first line of its message, without the source locations Rust libraries append."""
    lines = str(error).strip().splitlines()
    text = _SOURCE_LOCATION.sub("", lines[0]).strip(" ,;") if lines else ""
    return f"{type(error).__name__}: {text[:300]}" if text else type(error).__name__
