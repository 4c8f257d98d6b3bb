"""Token vectors as tinmem keeps them: int8 (a unit vector's components × 127, one byte per
dimension), an LRU cache of those read for earlier recalls, and MaxSim, the late-interaction
score over them (``encoders.late_interaction`` encodes them and runs the stage)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from openclaw_tinmem.encoders.dense import Matrix
from openclaw_tinmem.process.blas import single_threaded

QUANTIZATION_SCALE = 127.0


class TokenVectorCache:
    """Token vectors read for earlier recalls, at most ``capacity`` bytes, least recently used
    out first.

    Reading the token vectors of 200 candidates from the table takes longer than scoring
    them. An entry is keyed by what its vectors were encoded from (the memory's id, content
    and context), so it cannot go stale: an edited memory simply misses.
    """

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._entries: OrderedDict[tuple[str, int, int], bytes] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    @staticmethod
    def key(memory_id: str, content: str, context: str) -> tuple[str, int, int]:
        return (memory_id, hash(content), hash(context))

    def get(self, key: tuple[str, int, int]) -> bytes | None:
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
            return value

    def put(self, key: tuple[str, int, int], value: bytes) -> None:
        if len(value) > self.capacity:
            return
        with self._lock:
            previous = self._entries.pop(key, None)
            self._size += len(value) - (len(previous) if previous is not None else 0)
            self._entries[key] = value
            while self._size > self.capacity:
                _, evicted = self._entries.popitem(last=False)
                self._size -= len(evicted)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._size = 0

    @property
    def size(self) -> int:
        return self._size


def quantize(vectors: Matrix) -> bytes:
    scaled = np.clip(np.rint(vectors * QUANTIZATION_SCALE), -127, 127)
    return bytes(scaled.astype(np.int8).tobytes())


def dequantize(data: bytes, dimension: int) -> Matrix:
    values = np.frombuffer(data, dtype=np.int8).reshape(-1, dimension)
    return values.astype(np.float32) / QUANTIZATION_SCALE


def maxsim(query: Matrix, documents: Sequence[bytes], dimension: int) -> list[float]:
    """Mean over query tokens of the best cosine with each document's tokens (0 if empty)."""
    if not documents or not len(query):
        return [0.0] * len(documents)
    lengths = np.array([len(document) // dimension for document in documents])
    tokens = np.frombuffer(b"".join(documents), dtype=np.int8).reshape(-1, dimension)
    # The int8 scale is folded into the (small) query instead of dequantising every token.
    scaled = (query / QUANTIZATION_SCALE).astype(np.float32)
    with single_threaded():  # (query tokens, all document tokens)
        similarities = scaled @ tokens.astype(np.float32).T
    scores = np.zeros(len(documents))
    present = lengths > 0
    if present.any():
        starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))[present]
        best = np.maximum.reduceat(similarities, starts, axis=1)  # (query tokens, documents)
        scores[present] = best.mean(axis=0)
    return [float(score) for score in scores]
