"""Re-embedding: every memory's vector and token vectors made again with the configured models
(after a model change), written in one commit with a history event each."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from openclaw_tinmem.store.history import HistoryAction, HistoryEvent, state_of
from openclaw_tinmem.store.schema import memories_to_table, row_to_memory

if TYPE_CHECKING:
    from openclaw_tinmem.encoders.dense import Vector
    from openclaw_tinmem.write.writer import MemoryWriter


def reembed(writer: MemoryWriter, *, progress: Callable[[int], None] | None = None) -> int:
    """Re-embed every memory (vector and token vectors) with the writer's models, one commit;
    returns how many. ``progress`` is told of each batch embedded."""
    store, embedder, late_interaction = writer.store, writer.embedder, writer.late_interaction
    memories = [row_to_memory(row) for batch in store.iterate() for row in batch.to_pylist()]
    vectors: list[Vector] = []
    tokens: list[bytes | None] = []
    batch_size = writer.settings.import_batch_size
    for start in range(0, len(memories), batch_size):
        batch = memories[start : start + batch_size]
        vectors.extend(embedder.embed_documents([memory.content for memory in batch]))
        tokens.extend(late_interaction.encode(batch))
        if progress:
            progress(len(batch))
    store.replace_all(memories_to_table(memories, vectors, tokens, store.schema()))
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
