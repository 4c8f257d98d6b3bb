"""Re-embedding: every memory's vector and token vectors made again with the configured models
(after a model change), written in one commit with a history event each."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from openclaw_tinmem.store.history import HistoryAction, HistoryEvent, state_of
from openclaw_tinmem.store.schema import memories_to_table, row_to_memory

if TYPE_CHECKING:
    from openclaw_tinmem.encoders.dense import Vector
    from openclaw_tinmem.models import Memory
    from openclaw_tinmem.store.table import MemoryStore
    from openclaw_tinmem.write.writer import MemoryWriter


def reembed(writer: MemoryWriter, *, progress: Callable[[int], None] | None = None) -> int:
    """Re-embed every memory (vector and token vectors) with the writer's models, one commit;
    returns how many. ``progress`` is told of each batch embedded.

    The embedding runs outside the write lock, so writers go on meanwhile; under the lock the
    table is read again and what changed since (written, merged, forgotten, accessed) is taken
    as it is now, its changed texts embedded then, so the swap loses no other writer's work.
    """
    store = writer.store
    embedded = _embedded(writer, _read_all(store), progress)
    with store.write_lock():
        memories = _read_all(store)
        changed = [memory for memory in memories if _key(memory) not in embedded]
        embedded.update(_embedded(writer, changed, None))
        vectors = [embedded[_key(memory)][0] for memory in memories]
        tokens = [embedded[_key(memory)][1] for memory in memories]
        store.replace_all(memories_to_table(memories, vectors, tokens, store.schema()))
    late_interaction, embedder = writer.late_interaction, writer.embedder
    late_interaction.cache.clear()  # the same texts now have new token vectors
    note = f"re-embedded with {embedder.model_name}"
    store.record(
        [
            HistoryEvent(
                memory.id,
                HistoryAction.REEMBEDDED,
                None,
                state_of(memory),
                actor="administrator (reembed)",
                source="reembed",
                note=note,
            )
            for memory in memories
        ]
    )
    return len(memories)


def _read_all(store: MemoryStore) -> list[Memory]:
    return [row_to_memory(row) for batch in store.iterate() for row in batch.to_pylist()]


def _key(memory: Memory) -> tuple[str, str, str]:
    """What a memory's vectors are made from (its token vectors read its context too)."""
    return (memory.id, memory.content, memory.context)


def _embedded(
    writer: MemoryWriter, memories: list[Memory], progress: Callable[[int], None] | None
) -> dict[tuple[str, str, str], tuple[Vector, bytes | None]]:
    """The vector and token vectors of each of ``memories``, by ``_key``."""
    embedded: dict[tuple[str, str, str], tuple[Vector, bytes | None]] = {}
    batch_size = writer.settings.import_batch_size
    for start in range(0, len(memories), batch_size):
        batch = memories[start : start + batch_size]
        vectors = writer.embedder.embed_documents([memory.content for memory in batch])
        tokens = writer.late_interaction.encode(batch)
        for memory, vector, token in zip(batch, vectors, tokens, strict=True):
            embedded[_key(memory)] = (vector, token)
        if progress:
            progress(len(batch))
    return embedded
