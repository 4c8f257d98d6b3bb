"""MemoryService: the one place that wires store, embedder, summarizer, dedup and ranking.

Tools, hooks, the CLI and the MCP server all call these methods; nothing else writes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from openclaw_tinmem.config import Settings
from openclaw_tinmem.dedup import Decision, Neighbour, decide_by_similarity, merge_contents
from openclaw_tinmem.embeddings import (
    Embedder,
    FastEmbedEmbedder,
    FastEmbedReranker,
    Reranker,
    Vector,
)  # fmt: skip
from openclaw_tinmem.errors import InvalidArgumentError, NotFoundError
from openclaw_tinmem.levels import RuleSummarizer
from openclaw_tinmem.models import (
    GLOBAL_SCOPE,
    Action,
    Category,
    Hit,
    Memory,
    Source,
    WriteOutcome,
    content_hash,
    normalise_tags,
    utc_now,
    validate_memory_id,
    validate_scope,
)  # fmt: skip
from openclaw_tinmem.recall import apply_rerank, final_score, fuse, is_small_talk
from openclaw_tinmem.store import MemoryStore

logger = logging.getLogger("openclaw_tinmem")
NEIGHBOURS_FOR_DEDUP = 5


class Summarizer(Protocol):
    """Writes L0 (headline) and L1 (summary) for a content."""

    def levels(self, content: str) -> tuple[str, str]: ...


class MergeJudge(Protocol):
    """Decides create / merge / skip for a candidate against its neighbours."""

    def decide(self, candidate: Memory, neighbours: Sequence[Neighbour]) -> Decision: ...


class SimilarityJudge:
    """The no-LLM judge: the category's merge policy with cosine thresholds."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def decide(self, candidate: Memory, neighbours: Sequence[Neighbour]) -> Decision:
        return decide_by_similarity(candidate.category, neighbours, self.settings)


@dataclass(frozen=True)
class ForgetOutcome:
    """What memory_forget deleted, and the candidates it did not dare to delete."""

    deleted: list[Memory]
    candidates: list[Hit] = field(default_factory=list)


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
        reranker_factory: Callable[[], Reranker] | None = None,
        clock: Callable[[], datetime] = utc_now,
    ) -> None:
        self.settings = settings
        self.store = store
        self.embedder = embedder
        self.summarizer: Summarizer = summarizer or RuleSummarizer()
        self.judge: MergeJudge = judge or SimilarityJudge(settings)
        self._reranker_factory = reranker_factory or (lambda: FastEmbedReranker(settings))
        self._reranker: Reranker | None = None
        self.clock = clock
        self._search_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="tinmem-search")
        self._background = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tinmem-access")

    @classmethod
    def from_settings(cls, settings: Settings) -> MemoryService:
        embedder = FastEmbedEmbedder(settings)
        store = MemoryStore(settings, model_name=embedder.model_name, dimension=embedder.dimension)
        return cls(settings, store, embedder)

    def close(self) -> None:
        """Finish background work (access statistics) and release threads."""
        self._background.shutdown(wait=True)
        self._search_pool.shutdown(wait=True)

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
        scopes: Sequence[str] = (GLOBAL_SCOPE,),
        categories: Sequence[Category] | None = None,
        limit: int | None = None,
        min_score: float | None = None,
        rerank: bool | None = None,
    ) -> list[Hit]:
        """The best memories for ``query`` in ``scopes``, best first."""
        if is_small_talk(query) or not query.strip():
            return []
        for scope in scopes:
            validate_scope(scope, field="scope")
        limit = limit or self.settings.recall_limit
        pool = max(self.settings.candidate_pool, limit)
        # Full-text search needs no vector: run it while the query is being embedded.
        text_future = self._search_pool.submit(
            self.store.text_search, query, pool, scopes=scopes, categories=categories
        )
        vector = self.embedder.embed_query(query)
        vector_ranked = self.store.vector_search(vector, pool, scopes=scopes, categories=categories)
        candidates = fuse(
            vector_ranked,
            text_future.result(),
            rrf_k=self.settings.rrf_k,
            vector_weight=self.settings.vector_weight,
            text_weight=self.settings.text_weight,
        )
        use_rerank = self.settings.rerank if rerank is None else rerank
        depth = max(limit * 2, self.settings.rerank_candidates if use_rerank else 0)
        candidates = candidates[:depth]
        memories = self.store.get([candidate.id for candidate in candidates])
        candidates = [candidate for candidate in candidates if candidate.id in memories]
        if use_rerank and candidates:
            head = candidates[: self.settings.rerank_candidates]
            scores = self.reranker.score(query, [memories[c.id].content for c in head])
            candidates = apply_rerank(candidates, scores)
        now = self.clock()
        threshold = self.settings.min_score if min_score is None else min_score
        hits = [
            Hit(memories[c.id], final_score(c.relevance, memories[c.id], now, self.settings),
                c.relevance, c.match, c.similarity)
            for c in candidates
        ]  # fmt: skip
        hits = sorted((hit for hit in hits if hit.score >= threshold), key=lambda h: -h.score)
        hits = hits[:limit]
        if hits and self.settings.track_access:
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
        scope: str = GLOBAL_SCOPE,
        importance: float = 0.5,
        tags: Sequence[str] | None = None,
        headline: str | None = None,
        summary: str | None = None,
        source: Source = Source.TOOL,
        source_ref: str = "",
    ) -> WriteOutcome:
        """Store one memory, applying the category's merge rule against similar memories."""
        content = content.strip()
        if not content:
            raise InvalidArgumentError("content must not be empty", field="content")
        validate_scope(scope)
        candidate = self._new_memory(
            content, category, scope, importance, tags, headline, summary, source, source_ref
        )
        vector = self.embedder.embed_documents([content])[0]
        with self.store.write_lock():  # read-decide-write is atomic across processes
            duplicate = self.store.find_by_hash(scope, category, candidate.content_hash)
            if duplicate is not None:
                return WriteOutcome(Action.SKIPPED, duplicate, duplicate.id, "identical content")
            neighbours = self._neighbours(vector, scope, category)
            decision = self.judge.decide(candidate, neighbours)
            if decision.action is Action.SKIPPED and decision.target is not None:
                return WriteOutcome(
                    Action.SKIPPED, decision.target, decision.target.id, decision.reason
                )
            if decision.action is Action.MERGED and decision.target is not None:
                merged = self._merge(decision.target, candidate)
                self.store.upsert([merged], self.embedder.embed_documents([merged.content]))
                return WriteOutcome(Action.MERGED, merged, merged.id, decision.reason)
            self.store.upsert([candidate], [vector])
            return WriteOutcome(Action.CREATED, candidate, None, decision.reason)

    def _new_memory(
        self,
        content: str,
        category: Category,
        scope: str,
        importance: float,
        tags: Sequence[str] | None,
        headline: str | None,
        summary: str | None,
        source: Source,
        source_ref: str,
    ) -> Memory:
        generated_headline, generated_summary = self.summarizer.levels(content)
        now = self.clock()
        return Memory(
            scope=scope,
            category=category,
            headline=headline or generated_headline,
            summary=summary or generated_summary,
            content=content,
            importance=importance,
            tags=normalise_tags(list(tags or [])),
            created_at=now,
            updated_at=now,
            source=source,
            source_ref=source_ref,
            content_hash=content_hash(content),
        )

    def _neighbours(self, vector: Vector, scope: str, category: Category) -> list[Neighbour]:
        ranked = self.store.vector_search(
            vector, NEIGHBOURS_FOR_DEDUP, scopes=[scope], categories=[category]
        )
        memories = self.store.get([memory_id for memory_id, _ in ranked])
        return [Neighbour(memories[i], s) for i, s in ranked if i in memories]

    def _merge(self, existing: Memory, candidate: Memory) -> Memory:
        content = merge_contents(existing.content, candidate.content)
        headline, summary = self.summarizer.levels(content)
        return existing.model_copy(
            update={
                "content": content,
                "headline": headline,
                "summary": summary,
                "importance": max(existing.importance, candidate.importance),
                "tags": normalise_tags([*existing.tags, *candidate.tags]),
                "updated_at": self.clock(),
                "content_hash": content_hash(content),
            }
        )

    def get(self, memory_id: str) -> Memory:
        memory_id = validate_memory_id(memory_id)
        found = self.store.get([memory_id]).get(memory_id)
        if found is None:
            raise NotFoundError(f"no memory with id {memory_id}", field="id")
        return found

    def update(
        self,
        memory_id: str,
        *,
        content: str | None = None,
        summary: str | None = None,
        headline: str | None = None,
        importance: float | None = None,
        tags: Sequence[str] | None = None,
    ) -> Memory:
        """Change only the given fields; new content re-embeds and refreshes levels not given."""
        memory_id = validate_memory_id(memory_id)
        with self.store.write_lock():
            found = self.store.get_with_vectors([memory_id])
            if not found:
                raise NotFoundError(f"no memory with id {memory_id}", field="id")
            memory, vector = found[0]
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
            self.store.upsert([updated], [vector])
            return updated

    def forget(
        self,
        *,
        memory_id: str | None = None,
        query: str | None = None,
        scopes: Sequence[str] | None = None,
        categories: Sequence[Category] | None = None,
    ) -> ForgetOutcome:
        """Delete by id, or by query only where the match is confident; never guess."""
        if memory_id is not None:
            memory = self.get(memory_id)
            if (scopes and memory.scope not in scopes) or (
                categories and memory.category not in categories
            ):
                raise NotFoundError(
                    f"no memory with id {memory.id} in the given scope/categories", field="id"
                )
            self.store.delete([memory.id])
            return ForgetOutcome([memory])
        if not query or not query.strip():
            raise InvalidArgumentError("give either id or query", field="id")
        hits = self.recall(
            query,
            scopes=scopes or (GLOBAL_SCOPE,),
            categories=categories,
            limit=self.settings.forget_max_deletions * 3,
            min_score=0.0,
        )
        confident = [
            hit for hit in hits
            if hit.similarity is not None and hit.similarity >= self.settings.forget_min_similarity
        ][: self.settings.forget_max_deletions]  # fmt: skip
        if not confident:
            return ForgetOutcome([], hits)
        self.store.delete([hit.memory.id for hit in confident])
        return ForgetOutcome([hit.memory for hit in confident])
