"""A memory reference as people type it: a full id, or a unique prefix of one."""

from __future__ import annotations

from collections.abc import Callable

from openclaw_tinmem.errors import InvalidArgumentError, NotFoundError
from openclaw_tinmem.models import is_full_id, validate_memory_reference
from openclaw_tinmem.store.table import MemoryStore


def resolve_id(store: MemoryStore, memory_id: str, can_read: Callable[[str], bool]) -> str:
    """The full id a UUID or a unique prefix (8+ characters) names, among the memories in the
    scopes ``can_read`` allows; an ambiguous prefix is an error listing the matches."""
    reference = validate_memory_reference(memory_id)
    if is_full_id(reference):
        return reference
    matches = [
        memory.id
        for memory in store.get(store.snapshot().ids_starting(reference)).values()
        if can_read(memory.scope)
    ]
    if not matches:
        raise NotFoundError(f"no memory id starts with {reference}", field="id")
    if len(matches) > 1:
        raise InvalidArgumentError(
            f"id prefix {reference} matches {len(matches)} memories: "
            + ", ".join(sorted(matches)[:10])
            + "; give more characters",
            field="id",
        )
    return matches[0]
