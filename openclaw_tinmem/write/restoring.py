"""History and undo: what a memory said at each change, and bringing an earlier state back."""

from __future__ import annotations

from typing import TYPE_CHECKING

from openclaw_tinmem.errors import InvalidArgumentError, NotFoundError
from openclaw_tinmem.models import Memory, readable_importance, validate_memory_reference
from openclaw_tinmem.store.conditional import commit_until_it_lands
from openclaw_tinmem.store.history import (
    NOT_KEPT,
    HistoryAction,
    HistoryEvent,
    last_scope,
    state_of,
    with_states,
)

if TYPE_CHECKING:
    from openclaw_tinmem.access import Access
    from openclaw_tinmem.store.table import MemoryStore
    from openclaw_tinmem.write.writer import MemoryWriter


def history(store: MemoryStore, access: Access, memory_id: str) -> list[HistoryEvent]:
    """Every change of a memory, oldest first — also of one that was forgotten — if the
    caller may read the scope it is in (or, forgotten, was last in). The id may be a prefix
    of 8+ characters."""
    reference = validate_memory_reference(memory_id)
    readable: dict[
        str, list[HistoryEvent]
    ] = {}  # a prefix is resolved among what the caller may read: others stay unseen
    for candidate in store.history.memory_ids_starting(reference):
        stored = store.get([candidate]).get(candidate)
        recorded = store.history.events(candidate)
        events = with_states(recorded, state_of(stored))
        if access.can_read(stored.scope if stored is not None else last_scope(recorded)):
            readable[candidate] = events
    if not readable:
        raise NotFoundError(f"no history for memory {reference}", field="id")
    if len(readable) > 1:
        raise InvalidArgumentError(
            f"id prefix {reference} matches {len(readable)} memories: "
            f"{', '.join(sorted(readable)[:10])}; give more characters",
            field="id",
        )
    return next(iter(readable.values()))


def restore(
    writer: MemoryWriter, access: Access, memory_id: str, *, to_event: str | None = None
) -> Memory:
    """Bring a memory back as it was: before its last change by default (a forget, a bad
    merge, an update), or right after the event ``to_event`` (an id or its prefix).
    Re-embedded, written under the write lock, and itself recorded as an event."""
    events = history(writer.store, access, memory_id)
    if to_event is None:
        changes = [event for event in events if event.action is not HistoryAction.REEMBEDDED]
        state = changes[-1].before if changes else None
        if state is None:
            last = f"its last change ({changes[-1].action.value})" if changes else "nothing"
            raise InvalidArgumentError(
                f"nothing to restore: {last} had no state before it; give --to EVENT to "
                "bring back the state after an event",
                field="id",
            )
    elif not isinstance(to_event, str) or not to_event.strip():
        raise InvalidArgumentError("to must be an event id or its first characters", field="to")
    else:
        chosen = [event for event in events if event.event_id.startswith(to_event.strip())]
        if len(chosen) != 1:
            raise InvalidArgumentError(
                f"event {to_event!r} matches {len(chosen)} events of this memory; "
                "see 'tinmem history'",
                field="to",
            )
        state = chosen[0].after or chosen[0].before
        if state is None:
            raise InvalidArgumentError(
                f"event {chosen[0].event_id} has no state to restore ({NOT_KEPT})",
                field="to",
            )
    present = writer.store.get([state["id"]]).get(state["id"])
    # a memory that is still stored stays in its scope (a scope rename is no change to undo);
    # a forgotten one comes back where it was
    scope = present.scope if present is not None else state["scope"]
    access.check_write(scope, field="scope")
    importance = readable_importance(state.get("importance"))  # as an older version kept it
    memory = Memory.model_validate(
        {**state, "scope": scope, "importance": importance, "updated_at": writer.clock()}
    )
    vector = writer.embedder.embed_documents([memory.content])[0]
    tokens = writer.late_interaction.encode([memory])
    store = writer.store

    def attempt() -> Memory | None:  # conditional: over whatever is stored when it lands
        current = store.get([memory.id]).get(memory.id)
        expected = {memory.id: current.updated_at} if current else {}
        restored = memory
        if current is not None and current.scope != memory.scope:  # renamed meanwhile
            access.check_write(current.scope, field="scope")
            restored = memory.model_copy(update={"scope": current.scope})
        if store.upsert([restored], [vector], tokens, expected=expected):
            return None
        return writer.landed(
            current,
            restored,
            tokens,
            action=HistoryAction.RESTORED,
            actor=access.identity.describe(),
            source="restore",
        )

    return commit_until_it_lands(
        store.write_lock,
        attempt,
        f"gave up restoring {memory.id}: other writers kept changing it; try again",
    )
