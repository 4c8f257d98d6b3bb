"""Token vectors as tinmem keeps them, an LRU cache of those read for earlier recalls, and
MaxSim, the late-interaction score over them (``encoders.late_interaction`` encodes them and
runs the stage).

The encoder's token states have 384 dimensions; each is projected onto the 128-dimensional
subspace where such states lie (``token_projection.npy``, fitted by
``benchmarks/token_projection.py``), keeping its length, and stored as int8 (a component ×
127, one byte per dimension): 128 bytes a token, a third of the unprojected size, after a
one-byte format marker per memory. Stores written before the projection hold the
384-dimensional form without a marker (its length a multiple of 384, never one more than a
multiple of 128); it is projected when read (``current``), and ``tinmem reembed`` rewrites it
in the smaller form.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from functools import cache
from importlib import resources

import numpy as np

from openclaw_tinmem.encoders.dense import Matrix
from openclaw_tinmem.process.blas import single_threaded

QUANTIZATION_SCALE = 127.0
STATE_DIMENSION = 384  # the encoder's token states
TOKEN_DIMENSION = 128  # a stored token vector's
FORMAT_MARKER = b"\x01"  # first byte of token vectors in the projected form
PROJECTION_FILE = "token_projection.npy"


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


@cache
def projection() -> Matrix:
    """The (384, 128) matrix whose columns span the subspace token states are kept in."""
    with resources.files("openclaw_tinmem.encoders").joinpath(PROJECTION_FILE).open("rb") as file:
        matrix: Matrix = np.load(file)
    return matrix


def project(states: Matrix) -> Matrix:
    """Token states (rows of 384) in the stored subspace, each keeping its length."""
    lengths = np.linalg.norm(states, axis=1, keepdims=True)
    projected: Matrix = (states @ projection()).astype(np.float32)
    norms = np.linalg.norm(projected, axis=1, keepdims=True)
    projected *= lengths / np.maximum(norms, 1e-12)
    return projected


def quantize(vectors: Matrix) -> bytes:
    scaled = np.clip(np.rint(vectors * QUANTIZATION_SCALE), -127, 127)
    return bytes(scaled.astype(np.int8).tobytes())


def dequantize(data: bytes, dimension: int) -> Matrix:
    values = np.frombuffer(data, dtype=np.int8).reshape(-1, dimension)
    return values.astype(np.float32) / QUANTIZATION_SCALE


def pack(vectors: Matrix) -> bytes:
    """Projected token vectors (rows of 128) as stored: the marker, then one int8 each."""
    return FORMAT_MARKER + quantize(vectors)


def is_packed(data: bytes) -> bool:
    return len(data) % TOKEN_DIMENSION == 1 and data[:1] == FORMAT_MARKER


def current(data: bytes) -> bytes:
    """Stored token vectors in the projected form (those of older stores projected now)."""
    if not data or is_packed(data):
        return data
    return pack(project(dequantize(data, STATE_DIMENSION)))


def token_count(data: bytes) -> int:
    """How many token vectors ``data`` (in the projected form) holds."""
    return len(data) // TOKEN_DIMENSION


def join(first: bytes, second: bytes) -> bytes:
    """One memory's token vectors followed by another's, in the projected form."""
    head, tail = current(first), current(second)
    return head + tail[len(FORMAT_MARKER) :] if head and tail else head or tail


def maxsim(query: Matrix, documents: Sequence[bytes]) -> list[float]:
    """Mean over query tokens (projected) of the best cosine with each document's tokens (0
    if it has none); documents in either stored form."""
    if not documents or not len(query):
        return [0.0] * len(documents)
    # views past each marker, so the bytes are copied once, by the join
    packed = [memoryview(current(document))[len(FORMAT_MARKER) :] for document in documents]
    lengths = np.array([len(document) // TOKEN_DIMENSION for document in packed])
    tokens = np.frombuffer(b"".join(packed), dtype=np.int8).reshape(-1, TOKEN_DIMENSION)
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
