"""MemoryService: the one place that wires store, embedder, summarizer, dedup and ranking.

Tools, hooks, the CLI and the MCP server all call these methods; nothing else writes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime

from openclaw_tinmem.access import Access, Identity
from openclaw_tinmem.config import Settings
from openclaw_tinmem.encoders.cross_encoder import Reranker, shared_reranker
from openclaw_tinmem.encoders.dense import Embedder, FastEmbedEmbedder
from openclaw_tinmem.encoders.late_interaction import LateInteraction
from openclaw_tinmem.errors import InvalidArgumentError, NotFoundError
from openclaw_tinmem.llm import Deadline, LLMClient
from openclaw_tinmem.models import (
    Category,
    Draft,
    Hit,
    Memory,
    Source,
    WriteOutcome,
    normalise_tags,
    utc_now,
)
from openclaw_tinmem.recall.instructions import (
    ConditionVectors,
    instructions_first,
    standing_instructions,
)
from openclaw_tinmem.recall.pipeline import RecallPipeline, RecallRequest
from openclaw_tinmem.store import references
from openclaw_tinmem.store.history import HistoryEvent
from openclaw_tinmem.store.table import MemoryStore
from openclaw_tinmem.text import is_small_talk
from openclaw_tinmem.write import restoring, updating
from openclaw_tinmem.write.access_stats import AccessRecorder
from openclaw_tinmem.write.dedup import (
    FallbackJudge,
    LLMJudge,
    MergeJudge,
    SimilarityJudge,
    Summarizer,
)
from openclaw_tinmem.write.forgetting import ForgetOutcome, chosen, delete, forget_one
from openclaw_tinmem.write.levels import LLMSummarizer, RuleSummarizer
from openclaw_tinmem.write.writer import MemoryWriter


def searchable(text: str) -> str:
    """``text`` as recall searches for it: what is not valid Unicode (bytes a terminal could
    not decode) replaced, not refused by the tokenizers."""
    return text.encode("utf-8", "replace").decode("utf-8")


# Python code that owns the service acts for the store's owner unless it names an identity.
OWNER = Identity.administrator(via="python")


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
        self.closed = False  # close() was called: a holder of this service builds another
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
        # A write encodes ahead while its judge decides, on threads of its own: never queued
        # before a recall's search.
        self._write_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="tinmem-write")
        self.writer = MemoryWriter(
            settings,
            store,
            embedder,
            self.late_interaction,
            self.summarizer,
            self.judge,
            clock,
            self._write_pool,
        )
        self.access_stats = AccessRecorder(store, settings.access_write_seconds)
        self._conditions = ConditionVectors(embedder)

    @classmethod
    def from_settings(cls, settings: Settings) -> MemoryService:
        """The service with the fastembed models, and the LLM when one is configured."""
        embedder = FastEmbedEmbedder(settings)
        store = open_store(settings, embedder)
        if not settings.llm_configured():
            return cls(settings, store, embedder)
        llm = LLMClient(settings)
        return cls(
            settings,
            store,
            embedder,
            summarizer=LLMSummarizer(llm, fallback=RuleSummarizer()),
            judge=FallbackJudge(LLMJudge(llm, settings), SimilarityJudge(settings)),
        )

    def close(self) -> None:
        """Write the access statistics gathered, finish background work (table upkeep) and
        release threads."""
        self.closed = True
        self.access_stats.close()
        self._search_pool.shutdown(wait=True)
        self._write_pool.shutdown(wait=True)
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
        min_relevance: float | None = None,
        identity: Identity | None = None,
        allows: Callable[[Memory], bool] | None = None,
        min_neighbourhood: float | None = None,
        instructions: bool = False,
    ) -> list[Hit]:
        """The best memories for ``query`` in ``scopes`` (none named: every scope the caller
        may read), best first; nothing for small talk. With ``instructions`` (a search: the
        ``memory_recall`` tool, ``tinmem recall``), the standing instructions for requests
        such as ``query`` come first (``standing_instructions``). ``allows`` narrows what may be
        returned further (automatic injection's trust and privacy, ``recall.exposure``).

        Only memories related to the query are returned: those that share words with it and
        those whose embedding's cosine to it reaches ``min_similarity`` (default
        ``recall_min_similarity``; 0 returns the best ``limit`` whatever they are), and, with
        ``min_relevance``, those the cross-encoder read and found at least that relevant
        (of a query about nothing stored, ``min_neighbourhood``, only those and standing
        knowledge: ``recall.pipeline.about_something_stored``).
        """
        readable = self.access(identity).scopes_to_read(scopes)
        query = searchable(query)
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
            min_relevance=min_relevance,
            allows=allows,
            min_neighbourhood=min_neighbourhood,
        )
        now = self.clock()
        hits = self.pipeline.run(request, now)
        tracked = settings.track_access and not self.store.read_only
        if hits and tracked:
            self.access_stats.recalled([hit.memory.id for hit in hits], now)
        if instructions and (not categories or Category.PREFERENCES in categories):
            given = self.standing_instructions(query, scopes=scopes, identity=identity)
            return instructions_first(given, hits, request.limit)
        return hits

    def standing_instructions(
        self,
        message: str,
        *,
        scopes: Sequence[str] | None = None,
        identity: Identity | None = None,
        allows: Callable[[Memory], bool] | None = None,
    ) -> list[Hit]:
        """The user's standing instructions in ``scopes`` (none named: every readable one) for
        requests such as ``message``: those whose condition is close to it
        (``recall.instructions``; none with the floor at 0)."""
        floor = self.settings.injection_instruction_min_similarity
        readable = self.access(identity).scopes_to_read(scopes)
        message = searchable(message)
        if not floor or not message.strip() or is_small_talk(message) or readable == []:
            return []
        return standing_instructions(
            self.store,
            self._conditions,
            lambda: self.embedder.embed_query(message),
            scopes=readable,
            allows=allows,
            min_similarity=floor,
        )

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
            content,
            category,
            target,
            importance,
            tuple(tags or ()),
            headline,
            summary,
            source,
            source_ref,
            memory_id,
            provenance=self.access(identity).identity.provenance(),
        )
        deadline = Deadline(self.settings.tool_timeout_seconds)
        return self.remember_many([draft], identity=identity, deadline=deadline)[0]

    def remember_many(
        self,
        drafts: Sequence[Draft],
        *,
        identity: Identity | None = None,
        deadline: Deadline | None = None,
    ) -> list[WriteOutcome]:
        """Store several memories with one judge decision for all of them.

        With a ``deadline`` (a tool call's), LLM decisions that have not come when it passes
        are made by the no-LLM rules instead, and the result's reason says so."""
        access = self.access(identity)
        for draft in drafts:
            access.check_write(draft.scope)
        if not drafts:
            return []
        actor = access.identity.describe()
        return self.writer.write(self.writer.prepare(drafts, deadline), deadline, actor)

    def resolve_id(self, memory_id: str, *, identity: Identity | None = None) -> str:
        """The full id a UUID or a unique prefix (8+ characters) names, among the memories the
        caller may read (``store.references``)."""
        return references.resolve_id(self.store, memory_id, self.access(identity).can_read)

    def get(self, memory_id: str, *, identity: Identity | None = None) -> Memory:
        """The memory with this id (or unique id prefix), if the caller may read its scope."""
        memory_id = self.resolve_id(memory_id, identity=identity)
        found = self.store.get([memory_id]).get(memory_id)
        if found is None or not self.access(identity).can_read(found.scope):
            raise NotFoundError(f"no memory with id {memory_id}", field="id")
        return found

    def page(
        self,
        *,
        scopes: Sequence[str] | None = None,
        categories: Sequence[Category] | None = None,
        before: datetime | None = None,
        tags: Sequence[str] = (),
        offset: int = 0,
        limit: int | None = 50,
        identity: Identity | None = None,
    ) -> tuple[int, list[Memory]]:
        """How many memories the caller may read in ``scopes`` (none named: every readable
        one) and ``categories``, last updated before ``before`` and carrying all of ``tags``;
        and the page of them from ``offset``, most recently updated first (all: ``limit=None``).
        """
        readable = self.access(identity).scopes_to_read(scopes)
        if readable == []:
            return 0, []
        return self.store.page(
            scopes=readable,
            categories=categories,
            before=before,
            tags=normalise_tags(list(tags)),
            offset=offset,
            limit=limit,
        )

    def tally(self, *, identity: Identity | None = None) -> tuple[dict[str, int], dict[str, int]]:
        """How many memories the caller may read there are of each category, and how many were
        created in each ISO week (``2026-W49``)."""
        readable = self.access(identity).scopes_to_read(None)
        return self.store.tally(scopes=readable) if readable != [] else ({}, {})

    def list_memories(
        self,
        *,
        scopes: Sequence[str] | None = None,
        categories: Sequence[Category] | None = None,
        before: datetime | None = None,
        tags: Sequence[str] = (),
        limit: int | None = 50,
        identity: Identity | None = None,
    ) -> list[Memory]:
        """The memories of ``page``: the most recently updated first (every one for None)."""
        return self.page(
            scopes=scopes,
            categories=categories,
            before=before,
            tags=tags,
            limit=limit,
            identity=identity,
        )[1]

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
        """Change only the given fields of a memory (``write.updating.update``); a value a
        memory cannot hold (importance outside 0–1, empty text) is refused."""
        memory_id = self.resolve_id(memory_id, identity=identity)
        self.get(memory_id, identity=identity)  # exists and readable, before any LLM call
        return updating.update(
            self.writer,
            self.access(identity),
            memory_id,
            content=content,
            summary=summary,
            headline=headline,
            importance=importance,
            tags=tags,
        )

    def forget(
        self,
        *,
        memory_id: str | None = None,
        query: str | None = None,
        scopes: Sequence[str] | None = None,
        categories: Sequence[Category] | None = None,
        dry_run: bool = False,
        purge: bool = False,
        identity: Identity | None = None,
    ) -> ForgetOutcome:
        """Delete by id, or by query only where the match is confident; never guess.

        By query, a memory is deleted only when it is close to the query in meaning
        (``forget_min_similarity``) *and* holds every detail that distinguishes the query
        (its numbers, codes, names and quoted words): "Bob's code is 9907" never deletes
        "Ana's code is 4451". Only scopes the caller may write are touched; with no scope
        named, every scope it may both read and write is searched. ``dry_run`` deletes
        nothing and says what would go; ``purge`` also removes the deleted rows from the
        table's older versions at once (see ``MemoryStore.purge``)."""
        access = self.access(identity)
        targets = access.scopes_to_read(scopes)
        if memory_id is not None:
            memory = self.get(memory_id, identity=identity)
            return forget_one(
                self.store, access, memory, targets, categories, dry_run=dry_run, purge=purge
            )
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
        memories, others = chosen(query, hits, access, self.settings)
        return delete(
            self.store, memories, others, dry_run=dry_run, purge=purge, actor=access.identity
        )

    def history(self, memory_id: str, *, identity: Identity | None = None) -> list[HistoryEvent]:
        """Every change of a memory, oldest first (``write.restoring.history``)."""
        return restoring.history(self.store, self.access(identity), memory_id)

    def restore(
        self, memory_id: str, *, to_event: str | None = None, identity: Identity | None = None
    ) -> Memory:
        """Bring a memory back from its history (``write.restoring.restore``)."""
        return restoring.restore(self.writer, self.access(identity), memory_id, to_event=to_event)

    def forget_many(
        self, memories: Sequence[Memory], *, purge: bool = False, identity: Identity | None = None
    ) -> ForgetOutcome:
        """Delete these memories in one commit, if the caller may write every one of them."""
        access = self.access(identity)
        for memory in memories:
            access.check_write(memory.scope, field="scope")
        return delete(
            self.store, list(memories), [], dry_run=False, purge=purge, actor=access.identity
        )
