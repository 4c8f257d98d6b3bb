"""The peers of the LoCoMo benchmark: plain BM25 (bm25s) and mem0, on the same turns.

Each builds its own index of every conversation's turns and returns a retriever with the
same signature as ours, so ``benchmarks.locomo`` scores all systems the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from openclaw_tinmem.encoders.dense import FastEmbedEmbedder

if TYPE_CHECKING:
    from benchmarks.locomo_data import Conversation, Retriever


def bm25_peer(conversations: Sequence[Conversation]) -> Retriever:
    """A plain BM25 baseline from the bm25s library, one index per conversation."""
    import bm25s

    indexes = {}
    for conversation in conversations:
        corpus = [turn.memory_text() for turn in conversation.turns]
        retriever = bm25s.BM25()
        retriever.index(
            bm25s.tokenize(corpus, stopwords="en", show_progress=False), show_progress=False
        )
        indexes[conversation.sample_id] = (retriever, [turn.dia_id for turn in conversation.turns])

    def retrieve(conversation: Conversation, question: str) -> list[str]:
        retriever, ids = indexes[conversation.sample_id]
        tokens = bm25s.tokenize([question], stopwords="en", show_progress=False)
        documents, _ = retriever.retrieve(tokens, k=min(10, len(ids)), show_progress=False)
        return [ids[int(index)] for index in documents[0]]

    return retrieve


class Mem0Embedder:
    """mem0's embedder interface over our embedder: the same model, queries and documents apart."""

    def __init__(self, embedder: FastEmbedEmbedder) -> None:
        self.embedder = embedder

    def embed(self, text: str, memory_action: str | None = None) -> list[float]:
        if memory_action == "search":
            return self.embedder.embed_query(text).tolist()
        return self.embedder.embed_documents([text])[0].tolist()

    def embed_batch(self, texts: list[str], memory_action: str | None = None) -> list[list[float]]:
        return [self.embed(text, memory_action) for text in texts]


def mem0_peer(
    conversations: Sequence[Conversation], embedder: FastEmbedEmbedder, root: Path
) -> Retriever:
    """mem0 running locally: infer=False (no LLM), an on-disk Qdrant, our embedding model.

    mem0 has no provider for a model loaded from a local path, so while the Memory object is
    built its embedder factory returns an adapter over our embedder (the same model for both
    systems). mem0's LLM client is created at start-up but never called with infer=False; it
    points at a closed loopback port so nothing could leave the machine; telemetry is off.
    Offline, mem0 runs without its optional BM25 sparse encoder (fetched from a model hub) and
    without spaCy entity extraction, so its search is dense-only here.
    """
    import os

    os.environ["MEM0_TELEMETRY"] = "False"
    os.environ["MEM0_DIR"] = str(root / "mem0-home")
    os.environ["HF_HUB_OFFLINE"] = "1"  # mem0 would fetch its BM25 encoder from the hub
    from mem0 import Memory
    from mem0.utils.factory import EmbedderFactory

    config = {
        "vector_store": {
            "provider": "qdrant",
            "config": {
                "path": str(root / "qdrant"),
                "collection_name": "locomo",
                "embedding_model_dims": embedder.dimension,
            },
        },
        "embedder": {
            "provider": "openai",
            "config": {
                "api_key": "unused",
                "embedding_dims": embedder.dimension,
                "openai_base_url": "http://127.0.0.1:9/v1",
            },
        },
        "llm": {
            "provider": "openai",
            "config": {"api_key": "unused", "openai_base_url": "http://127.0.0.1:9/v1"},
        },
        "history_db_path": str(root / "mem0-history.db"),
    }
    original = EmbedderFactory.create
    EmbedderFactory.create = classmethod(lambda cls, *arguments: Mem0Embedder(embedder))  # type: ignore[method-assign,assignment]
    try:
        memory = Memory.from_config(config)
    finally:
        EmbedderFactory.create = original  # type: ignore[method-assign]
    for conversation in conversations:
        for turn in conversation.turns:
            memory.add(
                [{"role": "user", "content": turn.memory_text()}],
                user_id=conversation.sample_id,
                metadata={"dia_id": turn.dia_id},
                infer=False,
            )

    def retrieve(conversation: Conversation, question: str) -> list[str]:
        found = memory.search(
            question, top_k=10, filters={"user_id": conversation.sample_id}, threshold=0.0
        )
        return [str(item["metadata"]["dia_id"]) for item in found["results"]]

    return retrieve
