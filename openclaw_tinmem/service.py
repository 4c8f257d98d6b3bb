"""MemoryService: the one place that wires store, embedder, summarizer, dedup and ranking.

Tools, hooks, the CLI and the MCP server all call these methods; nothing else writes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime

from openclaw_tinmem.access import Access, Identity
from openclaw_tinmem.config import Settings
from openclaw_tinmem.encoders.cross_encoder import Reranker, shared_reranker
from openclaw_tinmem.encoders.dense import Embedder, FastEmbedEmbedder
from openclaw_tinmem.encoders.late_interaction import LateInteraction
from openclaw_tinmem.errors import InvalidArgumentError, NotFoundError
from openclaw_tinmem.llm import LLMClient
from openclaw_tinmem.models import (
    Category,
    Draft,
    Hit,
    Memory,
    Source,
    WriteOutcome,
    content_hash,
    normalise_tags,
    utc_now,
    validate_memory_id,
)
from openclaw_tinmem.recall.pipeline import RecallPipeline, RecallRequest
from openclaw_tinmem.store.table import MemoryStore
from openclaw_tinmem.text import is_small_talk
from openclaw_tinmem.write.dedup import (
    FallbackJudge,
    LLMJudge,
    MergeJudge,
    SimilarityJudge,
    Summarizer,
)
from openclaw_tinmem.write.levels import LLMSummarizer, RuleSummarizer
from openclaw_tinmem.write.writer import MemoryWriter

logger = logging.getLogger("openclaw_tinmem")
# Python code that owns the service acts for the store's owner unless it names an identity.
OWNER = Identity.administrator(via="python")


@dataclass(frozen=True)
class ForgetOutcome:
    """What memory_forget deleted, and the candidates it did not dare to delete."""

    deleted: list[Memory]
    candidates: list[Hit] = field(default_factory=list)


def open_store(settings: Settings, embedder: Embedder, *, verify_model: bool = True) -> MemoryStore:
    """The memories table for ``embedder``'s model (checked against the stored one)."""
    return MemoryStore(
        settings,
        model_name=embedder.model_name,
        dimension=embedder.dimension,
        verify_model=verify_model,
    )


class MemoryService:
    """Recall, remember, forget and update memories in one store."""

    def __init__(
        self,
        settings: Settings,
        store: MemoryStore,
        embedder: Embedder,
        *,
        summarizer: Summarizer | None = None,
        judge: MergeJudge | None = None,
        late_interaction: LateInteraction | None = None,
        reranker_factory: Callable[[], Reranker] | None = None,
        clock: Callable[[], datetime] = utc_now,
    ) -> None:
        self.settings = settings
        self.store = store
        self.embedder = embedder
        self.summarizer: Summarizer = summarizer or RuleSummarizer()
        self.judge: MergeJudge = judge or SimilarityJudge(settings)
        self.late_interaction = late_interaction or LateInteraction.from_settings(settings)
        self._reranker_factory = reranker_factory or (lambda: shared_reranker(settings))
        self._reranker: Reranker | None = None
        self.clock = clock
        self._search_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="tinmem-search")
        self.pipeline = RecallPipeline(
            store, embedder, self.late_interaction, lambda: self.reranker, self._search_pool
        )
        self.writer = MemoryWriter(
            settings, store, embedder, self.late_interaction, self.summarizer, self.judge, clock,
            self._search_pool,
        )  # fmt: skip
        self._background = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tinmem-access")

    @classmethod
    def from_settings(cls, settings: Settings) -> MemoryService:
        """The service with the fastembed models, and the LLM when one is configured."""
        embedder = FastEmbedEmbedder(settings)
        store = open_store(settings, embedder)
        if not settings.llm_configured():
            return cls(settings, store, embedder)
        llm = LLMClient(settings)
        return cls(
            settings, store, embedder,
            summarizer=LLMSummarizer(llm, fallback=RuleSummarizer()),
            judge=FallbackJudge(LLMJudge(llm, settings), SimilarityJudge(settings)),
        )  # fmt: skip

    def close(self) -> None:
        """Finish background work (access statistics, table upkeep) and release threads."""
        self._background.shutdown(wait=True)
        self._search_pool.shutdown(wait=True)
        self.store.close()

    def access(self, identity: Identity | None) -> Access:
        """What ``identity`` may read and write (the owner, for None)."""
        return Access.of(identity or OWNER, self.settings)

    @property
    def reranker(self) -> Reranker:
        if self._reranker is None:
            self._reranker = self._reranker_factory()
        return self._reranker

    # ----------------------------------------------------------------- recall

    def recall(
        self,
        query: str,
        *,
        scopes: Sequence[str] | None = None,
        categories: Sequence[Category] | None = None,
        limit: int | None = None,
        min_score: float | None = None,
        rerank: bool | None = None,
        min_similarity: float | None = None,
        identity: Identity | None = None,
    ) -> list[Hit]:
        """The best memories for ``query`` in ``scopes`` (none named: every scope the caller
        may read), best first; nothing for small talk.

        Only memories related to the query are returned: those that share words with it and
        those whose embedding's cosine to it reaches ``min_similarity`` (default
        ``recall_min_similarity``; 0 returns the best ``limit`` whatever they are).
        """
        readable = self.access(identity).scopes_to_read(scopes)
        if not query.strip() or is_small_talk(query) or readable == []:
            return []
        settings = self.settings
        request = RecallRequest(
            settings=settings,
            query=query,
            scopes=readable,
            categories=categories,
            limit=limit or settings.recall_limit,
            min_score=settings.min_score if min_score is None else min_score,
            rerank=settings.rerank if rerank is None else rerank,
            min_similarity=(
                settings.recall_min_similarity if min_similarity is None else min_similarity
            ),
        )
        now = self.clock()
        hits = self.pipeline.run(request, now)
        if hits and settings.track_access:
            self._background.submit(self._record_access, [hit.memory.id for hit in hits], now)
        return hits

    def _record_access(self, memory_ids: list[str], when: datetime) -> None:
        try:
            self.store.record_access(memory_ids, when)
        except Exception:  # access statistics are best-effort and must never break recall
            logger.warning("could not record memory access", exc_info=True)

    # ----------------------------------------------------------------- writes

    def remember(
        self,
        content: str,
        category: Category,
        *,
        scope: str | None = None,
        importance: float = 0.5,
        tags: Sequence[str] | None = None,
        headline: str | None = None,
        summary: str | None = None,
        source: Source = Source.TOOL,
        source_ref: str = "",
        memory_id: str | None = None,
        identity: Identity | None = None,
    ) -> WriteOutcome:
        """Store one memory, applying the category's merge rule against similar memories.

        Without a scope it goes to ``store_scope`` (``global`` by default). ``memory_id``
        makes a replayed write idempotent (automatic capture derives it from the turn id): a
        memory that already exists with that id is reported as skipped.
        """
        target = scope or self.access(identity).default_store_scope(self.settings.store_scope)
        draft = Draft(
            content, category, target, importance, tuple(tags or ()), headline, summary,
            source, source_ref, memory_id,
        )  # fmt: skip
        return self.remember_many([draft], identity=identity)[0]

    def remember_many(
        self, drafts: Sequence[Draft], *, identity: Identity | None = None
    ) -> list[WriteOutcome]:
        """Store several memories with one judge decision for all of them."""
        access = self.access(identity)
        for draft in drafts:
            access.check_write(draft.scope)
        if not drafts:
            return []
        return self.writer.write(self.writer.prepare(drafts))

    def get(self, memory_id: str, *, identity: Identity | None = None) -> Memory:
        """The memory with this id, if the caller may read its scope."""
        memory_id = validate_memory_id(memory_id)
        found = self.store.get([memory_id]).get(memory_id)
        if found is None or not self.access(identity).can_read(found.scope):
            raise NotFoundError(f"no memory with id {memory_id}", field="id")
        return found

    def list_memories(
        self,
        *,
        scopes: Sequence[str] | None = None,
        categories: Sequence[Category] | None = None,
        limit: int | None = 50,
        identity: Identity | None = None,
    ) -> list[Memory]:
        """The most recently updated memories in ``scopes`` (none named: every readable one)."""
        readable = self.access(identity).scopes_to_read(scopes)
        if readable == []:
            return []
        return self.store.list_memories(scopes=readable, categories=categories, limit=limit)

    def update(
        self,
        memory_id: str,
        *,
        content: str | None = None,
        summary: str | None = None,
        headline: str | None = None,
        importance: float | None = None,
        tags: Sequence[str] | None = None,
        identity: Identity | None = None,
    ) -> Memory:
        """Change only the given fields; new content re-embeds and refreshes levels not given."""
        memory_id = validate_memory_id(memory_id)
        access = self.access(identity)
        with self.store.write_lock():
            found = self.store.get_with_vectors([memory_id])  # under the lock: no lost update
            if not found or not access.can_read(found[0][0].scope):
                raise NotFoundError(f"no memory with id {memory_id}", field="id")
            memory, vector = found[0]
            access.check_write(memory.scope, field="id")
            changes: dict[str, object] = {"updated_at": self.clock()}
            if content is not None:
                generated_headline, generated_summary = self.summarizer.levels(content)
                changes.update(
                    content=content,
                    content_hash=content_hash(content),
                    headline=generated_headline,
                    summary=generated_summary,
                )
                vector = self.embedder.embed_documents([content])[0]
            if headline is not None:
                changes["headline"] = headline
            if summary is not None:
                changes["summary"] = summary
            if importance is not None:
                changes["importance"] = importance
            if tags is not None:
                changes["tags"] = normalise_tags(list(tags))
            updated = memory.model_copy(update=changes)
            tokens = self.late_interaction.encode([updated])
            self.store.upsert([updated], [vector], tokens)
        self.late_interaction.written([updated], tokens)
        return updated

    def forget(
        self,
        *,
        memory_id: str | None = None,
        query: str | None = None,
        scopes: Sequence[str] | None = None,
        categories: Sequence[Category] | None = None,
        identity: Identity | None = None,
    ) -> ForgetOutcome:
        """Delete by id, or by query only where the match is confident; never guess.

        Only scopes the caller may write are touched; by query, with no scope named, every
        scope it may both read and write is searched."""
        access = self.access(identity)
        targets = access.scopes_to_read(scopes)
        if memory_id is not None:
            memory = self.get(memory_id, identity=identity)
            if (targets is not None and memory.scope not in targets) or (
                categories and memory.category not in categories
            ):
                raise NotFoundError(
                    f"no memory with id {memory.id} in the given scope/categories", field="id"
                )
            access.check_write(memory.scope, field="id")
            self.store.delete([memory.id])
            return ForgetOutcome([memory])
        if not query or not query.strip():
            raise InvalidArgumentError("give either id or query", field="id")
        hits = self.recall(
            query,
            scopes=targets,
            categories=categories,
            limit=self.settings.forget_max_deletions * 3,
            min_score=0.0,
            identity=identity,
        )
        hits = [hit for hit in hits if access.can_write(hit.memory.scope)]
        confident = [
            hit for hit in hits
            if hit.similarity is not None and hit.similarity >= self.settings.forget_min_similarity
        ][: self.settings.forget_max_deletions]  # fmt: skip
        if not confident:
            return ForgetOutcome([], hits)
        self.store.delete([hit.memory.id for hit in confident])
        return ForgetOutcome([hit.memory for hit in confident])
