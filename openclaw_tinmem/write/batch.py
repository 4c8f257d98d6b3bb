"""What one write commits: the memories a write prepared, and the batch it decided on."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from openclaw_tinmem.encoders.dense import Vector
from openclaw_tinmem.encoders.late_interaction import LateInteraction
from openclaw_tinmem.models import Memory
from openclaw_tinmem.store.history import HistoryEvent


@dataclass(frozen=True)
class Prepared:
    """A draft made into a memory, embedded, ready to be decided on."""

    memory: Memory
    vector: Vector
    redacted: int = 0  # secrets replaced in its texts


@dataclass
class PendingBatch:
    """Memories decided in this write, committed together in one LanceDB write."""

    memories: dict[str, Memory] = field(default_factory=dict)
    vectors: dict[str, Vector] = field(default_factory=dict)
    tokens: dict[str, bytes | None] = field(default_factory=dict)
    events: list[HistoryEvent] = field(default_factory=list)  # recorded with the commit
    # updated_at of each stored memory this batch changes, when it was read: the write applies
    # only if it is still that (``MemoryStore.upsert``); memories not in it are new
    expected: dict[str, datetime] = field(default_factory=dict)
    # embeddings of merged texts computed ahead, while the judge decided (text -> vector)
    embedded: dict[str, Vector] = field(default_factory=dict)

    def add(
        self,
        memory: Memory,
        vector: Vector,
        tokens: bytes | None = None,
        *,
        expected: datetime | None = None,
    ) -> None:
        """Queue a memory (``expected``: the stored one's ``updated_at``, for a change); token
        vectors left out are encoded by ``encode_missing``."""
        if expected is not None and memory.id not in self.memories:
            self.expected[memory.id] = expected
        self.memories[memory.id] = memory
        self.vectors[memory.id] = vector
        self.tokens[memory.id] = tokens

    def encode_missing(self, late_interaction: LateInteraction) -> None:
        """Encode the token vectors of queued memories that have none (merged ones)."""
        missing = [self.memories[key] for key, value in self.tokens.items() if value is None]
        for memory, tokens in zip(missing, late_interaction.encode(missing), strict=True):
            self.tokens[memory.id] = tokens

    def find_hash(self, candidate: Memory) -> Memory | None:
        return next(
            (
                m
                for m in self.memories.values()
                if (m.scope, m.category, m.content_hash)
                == (candidate.scope, candidate.category, candidate.content_hash)
            ),
            None,
        )
