"""The real embedder with a test's own step before each call: a slow, failing or watched model,
given to the service through its constructor as any embedder is."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from openclaw_tinmem.encoders.dense import FastEmbedEmbedder, Matrix, Vector


class InterceptedEmbedder:
    """Calls ``before_documents(texts)`` / ``before_query(text)``, then the real model."""

    def __init__(
        self,
        embedder: FastEmbedEmbedder,
        *,
        before_documents: Callable[[Sequence[str]], None] = lambda texts: None,
        before_query: Callable[[str], None] = lambda text: None,
    ) -> None:
        self.embedder = embedder
        self.model_name = embedder.model_name
        self.dimension = embedder.dimension
        self.before_documents = before_documents
        self.before_query = before_query

    def embed_documents(self, texts: Sequence[str]) -> Matrix:
        self.before_documents(texts)
        return self.embedder.embed_documents(texts)

    def embed_query(self, text: str) -> Vector:
        self.before_query(text)
        return self.embedder.embed_query(text)
