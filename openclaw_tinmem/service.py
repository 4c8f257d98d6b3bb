"""MemoryService: the one place that wires store, embedder, summarizer, dedup and ranking.

Tools, hooks, the CLI and the MCP server all call these methods; nothing else writes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from openclaw_tinmem.config import Settings
from openclaw_tinmem.dedup import FallbackJudge, LLMJudge, MergeJudge, SimilarityJudge, Summarizer
from openclaw_tinmem.embeddings import (
    Embedder,
    FastEmbedEmbedder,
    Matrix,
    Reranker,
    shared_reranker,
)
from openclaw_tinmem.episodes import blend_with_episodes
from openclaw_tinmem.errors import InvalidArgumentError, ModelError, NotFoundError
from openclaw_tinmem.late_interaction import (
    TokenEncoder,
    encode_memories,
    maxsim,
    shared_encoder,
)
from openclaw_tinmem.levels import LLMSummarizer, RuleSummarizer
from openclaw_tinmem.llm import LLMClient
from openclaw_tinmem.models import (
    GLOBAL_SCOPE,
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
from openclaw_tinmem.recall import (
    Candidate,
    apply_rerank,
    final_score,
    fuse,
    is_small_talk,
    rerank_text,
    sigmoid,
)
from openclaw_tinmem.store import MemoryStore
from openclaw_tinmem.writer import Draft, MemoryWriter

logger = logging.getLogger("openclaw_tinmem")


@dataclass(frozen=True)
class ForgetOutcome:
    """What memory_forget deleted, and the candidates it did not dare to delete."""

    deleted: list[Memory]
    candidates: list[Hit] = field(default_factory=list)


def open_store(settings: Settings, embedder: Embedder, *, verify_model: bool = True) -> MemoryStore:
    """The store for ``embedder``, encoding token vectors when late interaction is on.

    A late-interaction model that cannot be loaded (say, an offline machine provisioned by an
    older version) turns late interaction off with a warning instead of failing: recall
    falls back to fusion and the cross-encoder, and ``tinmem doctor`` reports the model.
    """
    encoder: TokenEncoder | None = None
    if settings.late_interaction:
        try:
            encoder = shared_encoder(settings)
        except ModelError as error:
            logger.warning("late interaction is off for this process: %s", error.message)
    return MemoryStore(
        settings,
        model_name=embedder.model_name,
        dimension=embedder.dimension,
        verify_model=verify_model,
        token_encoder=encoder,
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
        reranker_factory: Callable[[], Reranker] | None = None,
        clock: Callable[[], datetime] = utc_now,
    ) -> None:
        self.settings = settings
        self.store = store
        self.embedder = embedder
        self.summarizer: Summarizer = summarizer or RuleSummarizer()
        self.judge: MergeJudge = judge or SimilarityJudge(settings)
        self._reranker_factory = reranker_factory or (lambda: shared_reranker(settings))
        self._reranker: Reranker | None = None
        self.clock = clock
        self._search_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="tinmem-search")
        self.writer = MemoryWriter(
            settings, store, embedder, self.summarizer, self.judge, clock, self._search_pool
        )
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
        settings = self.settings
        limit = limit or settings.recall_limit
        use_rerank = settings.rerank if rerank is None else rerank
        encoder = self.store.token_encoder if settings.late_interaction else None
        depth = max(
            limit * 2,
            settings.rerank_candidates if use_rerank else 0,
            settings.late_interaction_candidates if encoder else 0,
        )
        query_tokens = self._search_pool.submit(encoder.encode_query, query) if encoder else None
        # Late interaction re-ranks a fused list of up to two pools: each retriever fills half.
        pool = max(settings.candidate_pool, limit, depth // 2 if encoder else 0)
        candidates = self._candidates(query, scopes, categories, pool)
        candidates = candidates[:depth]
        memories = self.store.get([candidate.id for candidate in candidates])
        candidates = [candidate for candidate in candidates if candidate.id in memories]
        if encoder and query_tokens and candidates:
            head = candidates[: settings.late_interaction_candidates]
            scores = self._late_interaction_scores(encoder, query_tokens.result(), head, memories)
            candidates = apply_rerank(candidates, scores)
        if settings.episode_weight > 0 and candidates:
            head = candidates[: settings.late_interaction_candidates] if encoder else candidates
            candidates = apply_rerank(candidates, self._episode_blend(head, memories))
        if use_rerank and candidates:
            head = candidates[: settings.rerank_candidates]
            texts = [rerank_text(memories[c.id], settings.rerank_context_characters) for c in head]
            logits = self.reranker.score(query, texts)
            candidates = apply_rerank(candidates, [sigmoid(logit) for logit in logits])
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

    def _late_interaction_scores(
        self,
        encoder: TokenEncoder,
        query_tokens: Matrix,
        head: Sequence[Candidate],
        memories: dict[str, Memory],
    ) -> list[float]:
        """Token-level relevance in [0, 1]; memories stored without token vectors are encoded."""
        stored = self.store.token_vectors_of([memories[candidate.id] for candidate in head])
        missing = [candidate.id for candidate in head if candidate.id not in stored]
        if missing:
            encoded = encode_memories(encoder, [memories[memory_id] for memory_id in missing])
            stored.update(zip(missing, encoded, strict=True))
        documents = [stored[candidate.id] for candidate in head]
        scores = maxsim(query_tokens, documents, encoder.dimension)
        return [min(max(score, 0.0), 1.0) for score in scores]

    def _episode_blend(self, head: Sequence[Candidate], memories: dict[str, Memory]) -> list[float]:
        return blend_with_episodes(
            [candidate.relevance for candidate in head],
            [memories[candidate.id].created_at for candidate in head],
            gap=timedelta(minutes=self.settings.episode_gap_minutes),
            weight=self.settings.episode_weight,
        )

    def _candidates(
        self, query: str, scopes: Sequence[str], categories: Sequence[Category] | None, pool: int
    ) -> list[Candidate]:
        """Full-text and vector candidates fused; full text runs while the query is embedded."""
        settings = self.settings
        text_future = (
            self._search_pool.submit(
                self.store.text_search, query, pool, scopes=scopes, categories=categories
            )
            if settings.text_weight > 0
            else None
        )
        vector_ranked: list[tuple[str, float]] = []
        if settings.vector_weight > 0:
            vector = self.embedder.embed_query(query)
            vector_ranked = self.store.vector_search(
                vector, pool, scopes=scopes, categories=categories
            )
        return fuse(
            vector_ranked,
            text_future.result() if text_future else [],
            rrf_k=settings.rrf_k,
            vector_weight=settings.vector_weight,
            text_weight=settings.text_weight,
        )

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
        memory_id: str | None = None,
    ) -> WriteOutcome:
        """Store one memory, applying the category's merge rule against similar memories.

        ``memory_id`` makes a replayed write idempotent (automatic capture derives it from the
        turn id): a memory that already exists with that id is reported as skipped.
        """
        draft = Draft(
            content, category, scope, importance, tuple(tags or ()), headline, summary,
            source, source_ref, memory_id,
        )  # fmt: skip
        return self.remember_many([draft])[0]

    def remember_many(self, drafts: Sequence[Draft]) -> list[WriteOutcome]:
        """Store several memories with one judge decision for all of them."""
        if not drafts:
            return []
        return self.writer.write(self.writer.prepare(drafts))

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
            found = self.store.get_with_vectors([memory_id])  # under the lock: no lost update
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
