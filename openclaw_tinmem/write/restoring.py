"""History and undo: what a memory said at each change, and bringing an earlier state back."""

from __future__ import annotations

from typing import TYPE_CHECKING

from openclaw_tinmem.errors import InvalidArgumentError, NotFoundError
from openclaw_tinmem.models import Memory, validate_memory_reference
from openclaw_tinmem.store.conditional import commit_until_it_lands
from openclaw_tinmem.store.history import HistoryAction, HistoryEvent, state_of

if TYPE_CHECKING:
    from openclaw_tinmem.access import Identity
    from openclaw_tinmem.service import MemoryService


def history(
    service: MemoryService, memory_id: str, identity: Identity | None = None
) -> list[HistoryEvent]:
    """Every change of a memory, oldest first — also of one that was forgotten — if the
    caller may read the scope it was last in. The id may be a prefix of 8+ characters."""
    reference = validate_memory_reference(memory_id)
    ids = service.store.history.memory_ids_starting(reference)
    if not ids:
        raise NotFoundError(f"no history for memory {reference}", field="id")
    if len(ids) > 1:
        raise InvalidArgumentError(
            f"id prefix {reference} matches {len(ids)} memories: {', '.join(sorted(ids)[:10])}",
            field="id",
        )
    events = service.store.history.events(ids[0])
    last = events[-1].after or events[-1].before or {}
    if not service.access(identity).can_read(str(last.get("scope", ""))):
        raise NotFoundError(f"no history for memory {reference}", field="id")
    return events


def restore(
    service: MemoryService,
    memory_id: str,
    *,
    to_event: str | None = None,
    identity: Identity | None = None,
) -> Memory:
    """Bring a memory back as it was: before its last change by default (a forget, a bad
    merge, an update), or right after the event ``to_event`` (an id or its prefix).
    Re-embedded, written under the write lock, and itself recorded as an event."""
    events = history(service, memory_id, identity)
    if to_event is None:
        state = events[-1].before
        if state is None:
            raise InvalidArgumentError(
                "nothing to restore: the memory is as it was first written", field="id"
            )
    else:
        chosen = [event for event in events if event.event_id.startswith(to_event.strip())]
        if len(chosen) != 1:
            raise InvalidArgumentError(
                f"event {to_event!r} matches {len(chosen)} events of this memory; "
                "see 'tinmem history'",
                field="to",
            )
        state = chosen[0].after or chosen[0].before
    assert state is not None  # every event holds a state before or after
    access = service.access(identity)
    access.check_write(state["scope"], field="scope")
    memory = Memory.model_validate({**state, "updated_at": service.clock()})
    vector = service.embedder.embed_documents([memory.content])[0]
    tokens = service.late_interaction.encode([memory])
    store = service.store

    def attempt() -> Memory | None:  # conditional: over whatever is stored when it lands
        current = store.get([memory.id]).get(memory.id)
        expected = {memory.id: current.updated_at} if current else {}
        if store.upsert([memory], [vector], tokens, expected=expected):
            return None
        store.record(
            [
                HistoryEvent(
                    memory.id,
                    HistoryAction.RESTORED,
                    state_of(current),
                    state_of(memory),
                    actor=access.identity.describe(),
                    source="restore",
                )
            ]
        )
        service.late_interaction.written([memory], tokens)
        return memory

    return commit_until_it_lands(
        store.write_lock,
        attempt,
        f"gave up restoring {memory.id}: other writers kept changing it; try again",
    )
