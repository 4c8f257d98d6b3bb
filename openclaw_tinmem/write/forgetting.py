"""Forgetting: when a match is confident enough to delete, and the deletion itself."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from openclaw_tinmem.access import Access, Identity
from openclaw_tinmem.config import Settings
from openclaw_tinmem.errors import AccessDeniedError, NotFoundError
from openclaw_tinmem.models import Category, Hit, Memory
from openclaw_tinmem.store.history import HistoryAction, HistoryEvent, state_of
from openclaw_tinmem.store.table import MemoryStore
from openclaw_tinmem.text import details_agree


@dataclass(frozen=True)
class ForgetOutcome:
    """What memory_forget deleted (or, in a dry run, would delete), and the candidates it did
    not dare to delete."""

    deleted: list[Memory]
    candidates: list[Hit] = field(default_factory=list)
    dry_run: bool = False
    purged: bool = False


def is_confident(query: str, hit: Hit, min_similarity: float) -> bool:
    """Close to the query in meaning and agreeing on every detail the query names."""
    close = hit.similarity is not None and hit.similarity >= min_similarity
    statement = f"{hit.memory.headline}\n{hit.memory.content}"
    return close and details_agree(query, statement)


def chosen(
    query: str, hits: list[Hit], access: Access, settings: Settings
) -> tuple[list[Memory], list[Hit]]:
    """What a forget by ``query`` deletes — the confident matches among ``hits`` in scopes the
    caller may write, ``forget_max_deletions`` at most — and the candidates it leaves. A
    caller that may write no scope is told so, not answered with an empty deletion."""
    if not access.write:
        raise AccessDeniedError(
            f"{access.identity.describe()} may not forget memories: it may write no scope",
            field="query",
        )
    writable = [hit for hit in hits if access.can_write(hit.memory.scope)]
    floor = settings.forget_min_similarity
    confident = [hit for hit in writable if is_confident(query, hit, floor)]
    confident = confident[: settings.forget_max_deletions]
    ids = {hit.memory.id for hit in confident}
    return [hit.memory for hit in confident], [hit for hit in writable if hit.memory.id not in ids]


def forget_one(
    store: MemoryStore,
    access: Access,
    memory: Memory,
    targets: Sequence[str] | None,
    categories: Sequence[Category] | None,
    *,
    dry_run: bool,
    purge: bool,
) -> ForgetOutcome:
    """Delete a memory named by id, if it is in ``targets`` (None: anywhere) and
    ``categories`` and the caller may write its scope."""
    if (targets is not None and memory.scope not in targets) or (
        categories and memory.category not in categories
    ):
        raise NotFoundError(
            f"no memory with id {memory.id} in the given scope/categories", field="id"
        )
    access.check_write(memory.scope, field="id")
    return delete(store, [memory], [], dry_run=dry_run, purge=purge, actor=access.identity)


def delete(
    store: MemoryStore,
    memories: list[Memory],
    others: list[Hit],
    *,
    dry_run: bool,
    purge: bool,
    actor: Identity,
    notes: Mapping[str, str] | None = None,
) -> ForgetOutcome:
    """Delete ``memories`` in one commit (nothing in a dry run); ``others`` are the candidates
    that were not chosen. The history keeps what they said, as they are when deleted (read
    again under the write lock: another writer may have changed one since it was chosen; one
    already gone is not forgotten twice), so a forgotten memory can be restored — unless
    ``purge``: then their history goes too and every older version of the tables is pruned
    at once, so what they said leaves the files on disk. ``notes`` (by id) go in the events
    (episode retention's "folded into …")."""
    if dry_run or not memories:
        return ForgetOutcome(memories if dry_run else [], others, dry_run=dry_run)
    with store.write_lock():  # events stamped in the order their writes landed
        present = store.get([memory.id for memory in memories])
        memories = [present[memory.id] for memory in memories if memory.id in present]
        store.delete([memory.id for memory in memories])
        store.record(
            [
                HistoryEvent(
                    memory.id,
                    HistoryAction.FORGOTTEN,
                    state_of(memory),
                    None,
                    actor=actor.describe(),
                    source=f"memory_forget ({actor.via})",
                    note=(notes or {}).get(memory.id, ""),
                )
                for memory in memories
            ]
        )
    purged = purge and store.purge(forgotten=[memory.id for memory in memories])
    return ForgetOutcome(memories, others, purged=purged)
