"""The recall pipeline: fusion → late interaction → episodes → cross-encoder → final score.

Of a long memory, the cross-encoder reads, and the hit carries, the passage the query is
about (``passages.py``).

Each stage re-scores the head of the list the previous stage left (``apply_rerank``); what
each stage contributes, and why, is documented in the README's "Recall and scoring".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

import numpy as np

from openclaw_tinmem.config import Settings
from openclaw_tinmem.encoders.cross_encoder import Reranker
from openclaw_tinmem.encoders.dense import Embedder, Matrix, Vector
from openclaw_tinmem.encoders.late_interaction import LateInteraction
from openclaw_tinmem.models import Category, Hit, Memory
from openclaw_tinmem.recall.asking import about_the_user, plain_question, speaks_of_the_user
from openclaw_tinmem.recall.episodes import blend_with_episodes
from openclaw_tinmem.recall.fusion import Candidate, apply_rerank, fuse
from openclaw_tinmem.recall.passages import best_passage
from openclaw_tinmem.recall.scoring import (
    STANDING_KNOWLEDGE,
    final_score,
    is_related,
    rerank_text,
    sigmoid,
)
from openclaw_tinmem.recall.when import named_period
from openclaw_tinmem.store.table import MemoryStore


@dataclass(frozen=True)
class RecallRequest:
    """One validated recall: what to look for, where, how many, and under which settings."""

    settings: Settings
    query: str
    scopes: Sequence[str] | None  # None: every scope
    categories: Sequence[Category] | None
    limit: int
    min_score: float
    rerank: bool
    min_similarity: float = 0.0
    # a memory the cross-encoder read and found this relevant is related, however far in
    # meaning (None: closeness and shared words alone decide)
    min_relevance: float | None = None
    # which memories may be returned at all (automatic injection's trust and privacy)
    allows: Callable[[Memory], bool] | None = None
    # a query whose nearest memories are on average less close than this is about nothing
    # stored: closeness no longer admits a memory (``about_something_stored``)
    min_neighbourhood: float | None = None


NEIGHBOURS = 10  # the nearest memories whose closeness says whether a query is about the store
NEIGHBOURHOOD_MIN_MEMORIES = 50  # fewer, and the nearest are most of the store: no judgement


def neighbourhood(vector_ranked: Sequence[tuple[str, float]]) -> float | None:
    """The mean cosine of the query's ``NEIGHBOURS`` nearest memories (best first), or None
    when the search saw fewer than ``NEIGHBOURHOOD_MIN_MEMORIES``."""
    if len(vector_ranked) < NEIGHBOURHOOD_MIN_MEMORIES:
        return None
    return float(np.mean([similarity for _, similarity in vector_ranked[:NEIGHBOURS]]))


def about_something_stored(neighbourhood: float | None, floor: float | None) -> bool:
    """Whether a query is about something stored, by how close its nearest memories are.

    In a store of one person's conversations nearly every message is close to something
    said, about another matter: a message about nothing stored still finds memories at
    cosine 0.55-0.65, while its nearest ten are, on average, less close than those of a
    message about the store's subjects (BEAM and LoCoMo, docs/benchmarks.md). Without a
    floor, or for a store too small to tell, every query is."""
    return not floor or neighbourhood is None or neighbourhood >= floor


class RecallPipeline:
    """Ranks the memories of one store for a query; holds no state between recalls."""

    def __init__(
        self,
        store: MemoryStore,
        embedder: Embedder,
        late_interaction: LateInteraction,
        reranker: Callable[[], Reranker],
        executor: Executor,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.late_interaction = late_interaction
        self.reranker = reranker
        self.executor = executor

    def run(self, request: RecallRequest, now: datetime) -> list[Hit]:
        """The best hits for ``request``, best first, scored at ``now``.

        A query that names a time ("hiking in May") is searched whole, as a month or a date
        is often in the memory's words too; the cross-encoder reads it without the phrase (a
        memory's date is not in its words), and what was said in that time is favoured
        (``when.py``). Nor does it read the words that only ask to be reminded ("… again?",
        "remind me": ``asking.py``)."""
        settings = request.settings
        period = named_period(request.query, now) if settings.time_weight > 0 else None
        judged_query = plain_question(
            period.without_phrase(request.query) if period else request.query
        )
        late = self.late_interaction.enabled and settings.late_interaction
        depth = max(
            request.limit * 2,
            settings.rerank_candidates if request.rerank else 0,
            settings.late_interaction_candidates if late else 0,
        )
        # the query is token-encoded while the retrievers search
        query_tokens = (
            self.executor.submit(self.late_interaction.encode_query, request.query)
            if late
            else None
        )
        # Late interaction re-ranks a fused list of up to two pools: each retriever fills half.
        pool = max(settings.candidate_pool, request.limit, depth // 2 if late else 0)
        fused, query_vector, neighbourhood = self._fused(request, pool)
        # what the session may not be shown is left out before the list is cut, from twice
        # as many, so the stages below still get ``depth`` candidates in a shared scope
        allows = request.allows
        candidates = fused[: depth * 2] if allows else fused[:depth]
        memories = self.store.get([candidate.id for candidate in candidates])
        candidates = [
            candidate
            for candidate in candidates
            if candidate.id in memories and (allows is None or allows(memories[candidate.id]))
        ][:depth]
        if not candidates:
            return []
        if query_tokens is not None:
            candidates = self._late_interaction(settings, query_tokens, candidates, memories)
        if settings.episode_weight > 0:
            candidates = self._episodes(settings, candidates, memories, late)
        judged: set[str] = set()  # the memories the cross-encoder read
        if request.rerank:
            judged = {candidate.id for candidate in candidates[: settings.rerank_candidates]}
            candidates = self._cross_encoder(settings, judged_query, candidates, memories)
        hits = [
            Hit(
                memories[candidate.id],
                final_score(candidate.relevance, memories[candidate.id], now, settings),
                candidate.relevance,
                candidate.match,
                candidate.similarity,
            )
            for candidate in candidates
        ]
        if period is not None:  # a named time: what was said then comes first
            hits = [
                hit
                if period.holds(hit.memory.created_at)
                else replace(hit, score=hit.score * (1 - settings.time_weight))
                for hit in hits
            ]
        relevant = request.min_relevance
        hits = [
            hit
            for hit in hits
            if hit.score >= request.min_score
            and (
                is_related(hit, request.min_similarity)
                or (relevant is not None and hit.memory.id in judged and hit.relevance >= relevant)
            )
        ]
        best = sorted(hits, key=lambda hit: -hit.score)[: request.limit]
        if not about_something_stored(neighbourhood, request.min_neighbourhood):
            best = [  # of the best, what was judged relevant or bears on any subject: the
                # places of the others are not refilled from further down
                hit
                for hit in best
                if (relevant is not None and hit.relevance >= relevant)
                or hit.memory.category in STANDING_KNOWLEDGE
            ]
        best = [
            replace(hit, passage=best_passage(request.query, hit.memory.content)) for hit in best
        ]
        return self._with_similarities(best, query_vector)

    def _with_similarities(self, hits: list[Hit], query_vector: Vector) -> list[Hit]:
        """The hits, each with its cosine to the query: those full text alone found are not
        in the vector ranking, so theirs is computed here (a few dot products)."""
        missing = [hit.memory.id for hit in hits if hit.similarity is None]
        if not missing:
            return hits
        query = np.asarray(query_vector, dtype=np.float32)
        query_norm = float(np.linalg.norm(query)) or 1.0
        cosines = {}
        for memory, vector in self.store.get_with_vectors(missing):
            stored = np.asarray(vector, dtype=np.float32)
            cosines[memory.id] = float(stored @ query) / (
                (float(np.linalg.norm(stored)) or 1.0) * query_norm
            )
        return [
            replace(hit, similarity=cosines.get(hit.memory.id)) if hit.similarity is None else hit
            for hit in hits
        ]

    def _fused(
        self, request: RecallRequest, pool: int
    ) -> tuple[list[Candidate], Vector, float | None]:
        """Full-text and vector candidates fused (full text runs while the query is embedded),
        the query's vector, and the mean cosine of its nearest memories (``neighbourhood``)."""
        settings = request.settings
        scopes, categories = request.scopes, request.categories
        text_future = (
            self.executor.submit(
                self.store.text_search, request.query, pool, scopes=scopes, categories=categories
            )
            if settings.text_weight > 0
            else None
        )
        vector = self.embedder.embed_query(request.query)
        vector_ranked: list[tuple[str, float]] = []
        if settings.vector_weight > 0:
            vector_ranked = self.store.vector_search(
                vector, pool, scopes=scopes, categories=categories
            )
        fused = fuse(
            vector_ranked,
            text_future.result() if text_future else [],
            rrf_k=settings.rrf_k,
            vector_weight=settings.vector_weight,
            text_weight=settings.text_weight,
        )
        return fused, vector, neighbourhood(vector_ranked)

    def _late_interaction(
        self,
        settings: Settings,
        query_tokens: Future[Matrix],
        candidates: list[Candidate],
        memories: dict[str, Memory],
    ) -> list[Candidate]:
        head = candidates[: settings.late_interaction_candidates]
        scores = self.late_interaction.score(
            query_tokens.result(), [memories[candidate.id] for candidate in head], self.store
        )
        return apply_rerank(candidates, scores)

    def _episodes(
        self,
        settings: Settings,
        candidates: list[Candidate],
        memories: dict[str, Memory],
        late: bool,
    ) -> list[Candidate]:
        head = candidates[: settings.late_interaction_candidates] if late else candidates
        blended = blend_with_episodes(
            [candidate.relevance for candidate in head],
            [memories[candidate.id].created_at for candidate in head],
            gap=timedelta(minutes=settings.episode_gap_minutes),
            weight=settings.episode_weight,
        )
        return apply_rerank(candidates, blended)

    def _cross_encoder(
        self,
        settings: Settings,
        query: str,
        candidates: list[Candidate],
        memories: dict[str, Memory],
    ) -> list[Candidate]:
        head = [memories[candidate.id] for candidate in candidates[: settings.rerank_candidates]]
        characters = settings.rerank_context_characters
        passages = [best_passage(query, memory.content) for memory in head]
        # what speaks of "User" is read against the question about the user (``asking.py``)
        about_user = about_the_user(query)
        pairs = [
            (
                about_user
                if about_user and speaks_of_the_user(passage or memory.content)
                else query,
                rerank_text(memory, characters, passage),
            )
            for memory, passage in zip(head, passages, strict=True)
        ]
        logits = self.reranker().score_pairs(pairs)
        return apply_rerank(candidates, [sigmoid(logit) for logit in logits])
