"""Re-embedding: every memory's vector and token vectors made again with the configured models
(after a model change), written in one commit with a history event each."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from openclaw_tinmem.store.history import HistoryAction, HistoryEvent, state_of
from openclaw_tinmem.store.schema import memory_to_row, row_to_memory, rows_to_table

if TYPE_CHECKING:
    from openclaw_tinmem.write.writer import MemoryWriter


def reembed(writer: MemoryWriter, *, progress: Callable[[int], None] | None = None) -> int:
    """Re-embed every memory (vector and token vectors) with the writer's models, one commit;
    returns how many. ``progress`` is told of each batch embedded."""
    store, embedder, late_interaction = writer.store, writer.embedder, writer.late_interaction
    memories = [row_to_memory(row) for batch in store.iterate() for row in batch.to_pylist()]
    rows: list[dict[str, Any]] = []
    batch_size = writer.settings.import_batch_size
    for start in range(0, len(memories), batch_size):
        batch = memories[start : start + batch_size]
        vectors = embedder.embed_documents([memory.content for memory in batch])
        tokens = late_interaction.encode(batch)
        rows.extend(
            memory_to_row(memory, vector, token)
            for memory, vector, token in zip(batch, vectors, tokens, strict=True)
        )
        if progress:
            progress(len(batch))
    store.replace_all(rows_to_table(rows, store.schema()))
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
