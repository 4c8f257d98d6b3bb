"""The cross-encoder: reads each (query, memory) pair and scores it; the last ranking stage."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol

from openclaw_tinmem.config import Settings
from openclaw_tinmem.encoders.provisioning import BundledModel, bundled_model
from openclaw_tinmem.encoders.runtime import (
    REGISTRATION_LOCK,
    SharedModels,
    attach_session,
    model_path,
    usable_cores,
)
from openclaw_tinmem.errors import ModelError


class Reranker(Protocol):
    """Scores (query, document) pairs; higher is more relevant."""

    model_name: str

    def score(self, query: str, documents: Sequence[str]) -> list[float]: ...

    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> list[float]: ...


def _register_reranker(bundled: BundledModel) -> None:
    from fastembed.common.model_description import ModelSource
    from fastembed.rerank.cross_encoder import TextCrossEncoder

    with REGISTRATION_LOCK:
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
            options["lazy_load"] = True  # the session is ours: see attach_session
        else:
            options["cache_dir"] = str(Path(settings.resolved_model_dir()) / "fastembed")
        try:
            self._model = TextCrossEncoder(self.model_name, **options)
            if bundled is not None:
                attach_session(self._model, options["specific_model_path"], threads=1)
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
        """Scores in the order of ``documents``."""
        return self.score_pairs([(query, document) for document in documents])

    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """Scores of (query, document) pairs, in their order.

        The longest pairs are handed out first, so the workers finish close together.
        """
        if self._pool is None or len(pairs) < 2:
            return [self._score_pair(query, document) for query, document in pairs]
        order = sorted(range(len(pairs)), key=lambda index: -sum(map(len, pairs[index])))
        futures = {index: self._pool.submit(self._score_pair, *pairs[index]) for index in order}
        return [futures[index].result() for index in range(len(pairs))]

    def _score_pair(self, query: str, document: str) -> float:
        return float(next(iter(self._model.rerank(query, [document], batch_size=1))))


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
