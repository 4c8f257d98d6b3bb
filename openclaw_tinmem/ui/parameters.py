"""The browser API's inputs and outputs: query parameters and bodies checked (a bad one is a 400
that names it), and a memory as a list row."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from openclaw_tinmem.categories import Category
from openclaw_tinmem.errors import InvalidArgumentError
from openclaw_tinmem.models import Memory, normalise_tags

if TYPE_CHECKING:
    from starlette.datastructures import QueryParams


def categories_parameter(query: QueryParams) -> list[Category]:
    """The ``category`` parameters as categories; a 400 naming the parameter otherwise."""
    names = [name for name in query.getlist("category") if name]
    allowed = {category.value for category in Category}
    if unknown := [name for name in names if name not in allowed]:
        raise InvalidArgumentError(
            f"unknown category {unknown[0]!r}: use one of {', '.join(sorted(allowed))}",
            field="category",
        )
    return [Category(name) for name in names]


def offset_parameter(query: QueryParams) -> int:
    """The ``offset`` parameter, a whole number from 0 (0 when absent)."""
    given = query.get("offset") or "0"
    if not given.isdigit():
        raise InvalidArgumentError(
            f"offset must be a whole number from 0, not {given!r}", field="offset"
        )
    return int(given)


def before_parameter(query: QueryParams) -> datetime | None:
    """The ``before`` parameter as a UTC time (an ISO 8601 date or time), or None."""
    given = query.get("before")
    if not given:
        return None
    try:
        moment = datetime.fromisoformat(given)
    except ValueError:
        raise InvalidArgumentError(
            f"before must be an ISO 8601 date or time such as 2026-05-01, not {given!r}",
            field="before",
        ) from None
    try:
        return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    except OverflowError:  # an offset that moves it past the calendar's first or last day
        raise InvalidArgumentError(
            f"before must be a time between the years 1 and 9999 in UTC, not {given!r}",
            field="before",
        ) from None


def tags_parameter(query: QueryParams) -> list[str]:
    """The ``tag`` parameters as stored tags (lower case, spaces as '-'); a 400 for one that
    holds none of the characters a tag keeps."""
    tags = []
    for given in query.getlist("tag"):
        if not given.strip():
            continue
        tag = normalise_tags([given])
        if not tag:
            raise InvalidArgumentError(
                f"tag {given[:50]!r} holds no letter, digit or one of . _ + # / -", field="tag"
            )
        tags += tag
    return tags


def json_body(raw: bytes) -> dict[str, Any]:
    """A request body as its JSON object ({} for an empty body); a 400 for anything else."""
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw)
    except ValueError:
        raise InvalidArgumentError("the request body must be a JSON object", field="body") from None
    if not isinstance(body, dict):
        raise InvalidArgumentError("the request body must be a JSON object", field="body")
    return body


def summary(memory: Memory) -> dict[str, Any]:
    return {
        "id": memory.id,
        "scope": memory.scope,
        "category": memory.category.value,
        "headline": memory.headline,
        "importance": memory.importance,
        "tags": memory.tags,
        "updated_at": memory.updated_at.isoformat(),
    }
