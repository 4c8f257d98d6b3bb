"""SQL filter expressions for LanceDB built only from validated values and escaped literals.

No caller string reaches a filter as-is: scopes follow the scope grammar, ids are UUIDs,
categories are enum members; on top of that every literal is quoted with ``'`` doubled.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from openclaw_tinmem.errors import InvalidArgumentError
from openclaw_tinmem.models import Category, validate_memory_id, validate_scope


def quote(value: str) -> str:
    """A SQL string literal: single quotes doubled, NUL characters refused."""
    if "\x00" in value:
        raise InvalidArgumentError("a NUL character is not allowed here", field="filter")
    return "'" + value.replace("'", "''") + "'"


def _in_list(column: str, values: Iterable[str]) -> str:
    literals = ", ".join(quote(value) for value in values)
    return f"{column} IN ({literals})" if literals else "FALSE"


def build_filter(
    *,
    scopes: Sequence[str] | None = None,
    categories: Sequence[Category] | None = None,
    ids: Sequence[str] | None = None,
) -> str | None:
    """AND of the given constraints; None when there are none."""
    clauses = []
    if scopes:
        clauses.append(_in_list("scope", (validate_scope(scope) for scope in scopes)))
    if categories:
        clauses.append(_in_list("category", (Category(category).value for category in categories)))
    if ids is not None:
        clauses.append(_in_list("id", (validate_memory_id(memory_id) for memory_id in ids)))
    return " AND ".join(f"({clause})" for clause in clauses) or None
