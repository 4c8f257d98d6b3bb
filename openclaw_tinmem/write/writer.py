"""The write path: prepare memories, let the judge decide, then commit under the write lock.

Deciding may call an LLM, so it happens before the lock is taken; under the lock every
decision is re-checked against the store as it is then and falls back to the similarity rule
when it no longer holds: a merge whose target changed or went meanwhile, and a decision to
create when a memory it may merge into has been written since (by another writer, or earlier
in the same batch: ten profile facts stored at once make one profile memory, as ten stored
one after another do).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import replace
from datetime import datetime

from openclaw_tinmem.config import Settings
from openclaw_tinmem.encoders.dense import Embedder, Vector, cosine
from openclaw_tinmem.encoders.late_interaction import LateInteraction
from openclaw_tinmem.encoders.token_vectors import current
from openclaw_tinmem.llm import Deadline
from openclaw_tinmem.models import (
    EPISODE_TAG,
    Action,
    Draft,
    Memory,
    Source,
    WriteOutcome,
)
from openclaw_tinmem.store.conditional import COMMIT_ATTEMPTS, commit_until_it_lands
from openclaw_tinmem.store.history import HistoryAction, HistoryEvent, state_of
from openclaw_tinmem.store.table import MemoryStore
from openclaw_tinmem.write.batch import PendingBatch, Prepared
from openclaw_tinmem.write.dedup import (
    Decision,
    MergeJudge,
    Neighbour,
    SimilarityJudge,
    Summarizer,
    decide_by_similarity,
    merge_contents,
)
from openclaw_tinmem.write.drafting import drafted
from openclaw_tinmem.write.levels import RuleSummarizer
from openclaw_tinmem.write.merging import likely_merged_texts, merged_memory, too_long
from openclaw_tinmem.write.neighbours import may_join, shown_to_everyone_it_was_for
from openclaw_tinmem.write.retention import expire_episodes

logger = logging.getLogger("openclaw_tinmem")

NEIGHBOURS_FOR_DEDUP = 5
NEIGHBOURS_SEARCHED_FACTOR = 4


def _memory_id(outcome: WriteOutcome | None) -> str | None:
    return outcome.memory.id if outcome is not None and outcome.memory is not None else None


def _source(memory: Memory) -> str:
    """Where a memory came from, as history records it: the source and its reference."""
    source = memory.source.value
    return f"{source}:{memory.source_ref}" if memory.source_ref else source


class MemoryWriter:
    """Turns drafts into stored memories by the category rules and the judge's decisions."""

    def __init__(
        self,
        settings: Settings,
        store: MemoryStore,
        embedder: Embedder,
        late_interaction: LateInteraction,
        summarizer: Summarizer,
        judge: MergeJudge,
        clock: Callable[[], datetime],
        executor: Executor | None = None,
    ) -> None:
        self.settings = settings
        self.executor = executor
        self.store = store
        self.embedder = embedder
        self.late_interaction = late_interaction
        self.summarizer = summarizer
        self.judge = judge
        self.clock = clock

    def prepare(self, drafts: Sequence[Draft], deadline: Deadline | None = None) -> list[Prepared]:
        """Validate, write the missing levels and embed every draft (one batch)."""
        made = [
            drafted(draft, lambda content: self.levels(content, deadline), self.clock)
            for draft in drafts
        ]
        vectors = self.embedder.embed_documents([memory.content for memory, _ in made])
        return [
            Prepared(memory, vector, redacted)
            for (memory, redacted), vector in zip(made, vectors, strict=True)
        ]

    def levels(self, content: str, deadline: Deadline | None) -> tuple[str, str]:
        """Headline and summary of ``content``: the summarizer's, within the deadline."""
        if deadline is None or isinstance(self.summarizer, RuleSummarizer):
            return self.summarizer.levels(content)
        rules = RuleSummarizer()
        return deadline.run(lambda: self.summarizer.levels(content), lambda: rules.levels(content))

    def write(
        self, prepared: Sequence[Prepared], deadline: Deadline | None = None, actor: str = ""
    ) -> list[WriteOutcome]:
        """Decide for all (one judge call), then re-check and commit all in one write."""
        candidates = [item.memory for item in prepared]
        # Token vectors are encoded while the neighbours are read and the judge decides (an LLM
        # call, when one is set): the encoder runs outside the GIL, beside this thread's work.
        encode = self.late_interaction.encode
        encoding = self.executor.submit(encode, candidates) if self.executor else None
        items = [(item.memory, self.neighbours(item.vector, item.memory)) for item in prepared]
        # So is the text the similarity rule would merge each one into (the judge mostly agrees).
        likely = likely_merged_texts(items, self.settings)
        ahead = self.executor.submit(self._embed, likely) if self.executor and likely else None
        decisions = self._decide(items, deadline)
        encoded = encoding.result() if encoding else encode(candidates)
        embedded = ahead.result() if ahead else {}
        tokens = {item.memory.id: value for item, value in zip(prepared, encoded, strict=True)}
        outcomes: list[WriteOutcome | None] = [None] * len(prepared)
        pending = list(range(len(prepared)))
        written: dict[str, tuple[Memory, bytes | None]] = {}

        def attempt() -> list[WriteOutcome] | None:  # re-check against the store as it is now
            nonlocal pending
            batch = PendingBatch(embedded=embedded)
            for index in pending:
                item = prepared[index]
                seen = frozenset(neighbour.memory.id for neighbour in items[index][1])
                decision = self._still_new(item, decisions[index], batch, seen)
                outcome = self._commit(item, decision, batch, tokens[item.memory.id])
                outcomes[index] = replace(outcome, redacted=item.redacted)
            conflicted = self._commit_batch(batch, actor, written)
            # Another host changed or deleted a memory this batch merged into: those items are
            # read and decided again (by the rule, as ``_commit`` does for any stale target).
            pending = [i for i in pending if _memory_id(outcomes[i]) in conflicted]
            return None if pending else [outcome for outcome in outcomes if outcome is not None]

        landed = commit_until_it_lands(
            self.store.write_lock,
            attempt,
            f"gave up after {COMMIT_ATTEMPTS} attempts: other writers kept changing the "
            "memories this write merges into; those merges were not written, try again",
        )
        memories = [memory for memory, _ in written.values()]
        self.late_interaction.written(memories, [token for _, token in written.values()])
        return landed

    def _commit_batch(
        self, batch: PendingBatch, actor: str, written: dict[str, tuple[Memory, bytes | None]]
    ) -> frozenset[str]:
        """Write the batch conditionally and record the history of what was written; returns
        the ids not written because another writer changed them (``MemoryStore.upsert``)."""
        memories = list(batch.memories.values())
        batch.encode_missing(self.late_interaction)
        tokens = [batch.tokens[memory.id] for memory in memories]
        vectors = [batch.vectors[memory.id] for memory in memories]
        conflicted = self.store.upsert(memories, vectors, tokens, expected=batch.expected)
        events = [event for event in batch.events if event.memory_id not in conflicted]
        self.store.record([replace(event, actor=actor) for event in events])
        for memory, token in zip(memories, tokens, strict=True):
            if memory.id not in conflicted:
                written[memory.id] = (memory, token)
        if self.settings.episode_retention_days > 0:
            self.store.upkeep.wrote(
                "episode retention",
                self.settings.optimize_every_writes,
                lambda: expire_episodes(self.store, self.settings, self),
                "episode retention failed; retried after further writes",
            )
        return conflicted

    def _decide(
        self, items: list[tuple[Memory, list[Neighbour]]], deadline: Deadline | None
    ) -> list[Decision]:
        """The judge's decisions, within the deadline; else the similarity rule's, saying so."""
        if deadline is None or isinstance(self.judge, SimilarityJudge):
            return self.judge.decide_batch(items)
        rule = SimilarityJudge(self.settings)
        decisions = deadline.run(
            lambda: self.judge.decide_batch(items), lambda: rule.decide_batch(items)
        )
        if deadline.timed_out:
            note = deadline.note()
            return [
                replace(d, reason=f"{d.reason}; {note}" if d.reason else note) for d in decisions
            ]
        return decisions

    def put(
        self, memories: Sequence[Memory], *, action: HistoryAction, actor: str, source: str
    ) -> None:
        """Write these memories as they are, in one commit — embedded, their token vectors
        encoded — replacing any stored under their ids (an import: the file is the truth, no
        merge rule), with a history event each from the one it replaced, read under the write
        lock (another writer may have changed it since the caller looked)."""
        vectors = self.embedder.embed_documents([memory.content for memory in memories])
        tokens = self.late_interaction.encode(memories)
        with self.store.write_lock():  # events stamped in the order their writes landed
            before = self.store.get([memory.id for memory in memories])
            self.store.upsert(memories, vectors, tokens)
            self.store.record(
                [
                    HistoryEvent(
                        memory.id,
                        action,
                        state_of(before.get(memory.id)),
                        state_of(memory),
                        actor=actor,
                        source=source,
                    )
                    for memory in memories
                ]
            )

    def landed(
        self,
        before: Memory | None,
        after: Memory,
        tokens: Sequence[bytes | None],
        *,
        action: HistoryAction,
        actor: str,
        source: str,
    ) -> Memory:
        """A single memory's change that landed (an update, a restore): its history event
        recorded and its token vectors handed to the cache; returns ``after``."""
        self.store.record(
            [
                HistoryEvent(
                    after.id,
                    action,
                    state_of(before),
                    state_of(after),
                    actor=actor,
                    source=source,
                )
            ]
        )
        self.late_interaction.written([after], tokens)
        return after

    def rename_scope(self, old: str, new: str) -> int:
        """Move every memory of scope ``old`` into ``new`` in one commit; returns how many."""
        return self.store.rename_scope(old, new)

    def tokens_after_update(self, updated: Memory, before: Memory) -> list[bytes | None]:
        """Token vectors of an updated memory: the stored ones while its text is unchanged."""
        if (updated.content, updated.context) == (before.content, before.context):
            stored = {row["id"]: row["token_vectors"] for row in self.store.token_rows([before.id])}
            if stored.get(before.id):
                return [current(stored[before.id])]  # an older store's in the smaller form
        return self.late_interaction.encode([updated])

    def neighbours(self, vector: Vector, memory: Memory) -> list[Neighbour]:
        if EPISODE_TAG in memory.tags:
            return []  # an exchange as it was said: appended, never merged or judged
        ranked = self.store.vector_search(  # more than needed: another user's are passed over
            vector,
            NEIGHBOURS_FOR_DEDUP * NEIGHBOURS_SEARCHED_FACTOR,
            scopes=[memory.scope],
            categories=[memory.category],
        )
        stored = self.store.get([memory_id for memory_id, _ in ranked])
        return [
            Neighbour(stored[i], score)
            for i, score in ranked
            if i in stored and i != memory.id and may_join(stored[i], memory)
        ][:NEIGHBOURS_FOR_DEDUP]

    def _still_new(
        self, item: Prepared, decision: Decision, batch: PendingBatch, seen: frozenset[str]
    ) -> Decision:
        """A decision to create, re-checked under the write lock: when memories the candidate
        may merge into were written after the decision was made (by another writer, or earlier
        in this batch), the rule decides against those (the judge saw the others)."""
        candidate = item.memory
        if decision.action is not Action.CREATED or not candidate.category.policy.merges:
            return decision
        written = [
            Neighbour(memory, cosine(batch.vectors[memory.id], item.vector))
            for memory in batch.memories.values()
            if (memory.scope, memory.category) == (candidate.scope, candidate.category)
            and memory.id != candidate.id
            and may_join(memory, candidate)
        ]
        unseen = [
            n for n in self.neighbours(item.vector, candidate) + written if n.memory.id not in seen
        ]
        if not unseen:
            return decision
        unseen.sort(key=lambda neighbour: neighbour.similarity, reverse=True)
        return decide_by_similarity(candidate, unseen[:NEIGHBOURS_FOR_DEDUP], self.settings)

    def _current(self, memory_id: str, batch: PendingBatch) -> Memory | None:
        """A memory as it is now: written earlier in this batch, or in the store."""
        return batch.memories.get(memory_id) or self.store.get([memory_id]).get(memory_id)

    def _commit(
        self, item: Prepared, decision: Decision, batch: PendingBatch, tokens: bytes | None
    ) -> WriteOutcome:
        candidate = item.memory
        existing = self._current(candidate.id, batch)
        if existing is not None:  # a replayed capture: already written
            return WriteOutcome(Action.SKIPPED, existing, existing.id, "already written")
        identical = [
            batch.find_hash(candidate),
            *self.store.find_by_hash(candidate.scope, candidate.category, candidate.content_hash),
        ]
        trusted = candidate.provenance.untrusted is None
        duplicate = next(
            (
                memory
                for memory in identical
                if memory is not None
                and (memory.provenance.untrusted is None) == trusted
                and shown_to_everyone_it_was_for(memory, candidate)
            ),
            None,
        )
        if duplicate is not None:
            return WriteOutcome(Action.SKIPPED, duplicate, duplicate.id, "identical content")
        if decision.target is not None:
            current = self._current(decision.target.id, batch)
            # changed since it was chosen, or moved by a scope rename (which keeps updated_at)
            if current is None or not same_state(current, decision.target):
                if current is not None and decision.target.id in batch.memories:
                    decision = replace(decision, target=current)  # merged into earlier in this turn
                else:
                    neighbours = self.neighbours(item.vector, candidate)
                    decision = decide_by_similarity(candidate, neighbours, self.settings)
        if decision.action is Action.SKIPPED and decision.target is not None:
            return WriteOutcome(
                Action.SKIPPED, decision.target, decision.target.id, decision.reason
            )
        if decision.action is Action.MERGED and decision.target is not None:
            merged = merged_memory(decision.target, candidate, decision, self.clock())
            limit = self.settings.merge_max_characters
            if not too_long(merged.category, merged.content, decision, limit):
                vector = batch.embedded.get(merged.content)
                if vector is None:
                    vector = self.embedder.embed_documents([merged.content])[0]
                target = decision.target
                joined = self._merged_tokens(target, candidate, merged, batch, tokens)
                batch.add(merged, vector, joined, expected=target.updated_at)
                batch.events.append(
                    HistoryEvent(
                        merged.id,
                        HistoryAction.MERGED,
                        state_of(decision.target),
                        state_of(merged),
                        source=_source(candidate),
                        note=f"merged in: {candidate.content}",
                    )
                )
                return WriteOutcome(Action.MERGED, merged, merged.id, decision.reason)
            reason = f"{decision.reason}; created instead: merging would exceed the length limit"
            decision = replace(decision, reason=reason)
        batch.add(candidate, item.vector, tokens)
        action = (
            HistoryAction.IMPORTED if candidate.source is Source.IMPORT else HistoryAction.CREATED
        )
        note = f"{item.redacted} secret(s) redacted" if item.redacted else ""
        event = HistoryEvent(
            candidate.id, action, None, state_of(candidate), note=note, source=_source(candidate)
        )
        batch.events.append(event)
        return WriteOutcome(Action.CREATED, candidate, None, decision.reason)

    def _embed(self, texts: list[str]) -> dict[str, Vector]:
        """Embeddings of likely merged texts; none if that fails (a guess must not fail the
        write: a merge that needs its text embeds it itself)."""
        try:
            return dict(zip(texts, self.embedder.embed_documents(texts), strict=True))
        except Exception:
            logger.debug("could not embed likely merged texts ahead", exc_info=True)
            return {}

    def _merged_tokens(
        self,
        target: Memory,
        candidate: Memory,
        merged: Memory,
        batch: PendingBatch,
        candidate_tokens: bytes | None,
    ) -> bytes | None:
        """Token vectors of a merge by the rules, without encoding: the target's own when
        nothing was appended, else the target's followed by the candidate's. None when an LLM
        wrote the merged text (it is encoded with the batch), or when the target's are not at
        hand."""
        unchanged = merged.content == target.content
        if not unchanged and merged.content != merge_contents(target.content, candidate.content):
            return None
        if target.id in batch.memories:  # merged into earlier in this turn
            stored = batch.tokens.get(target.id)
        else:
            stored = self.late_interaction.stored([target], self.store).get(target.id)
        return stored if unchanged else self.late_interaction.appended(stored, candidate_tokens)


def same_state(current: Memory, chosen: Memory) -> bool:
    """Whether the stored memory is still the one chosen as a merge target: not changed (its
    ``updated_at``) and not moved (a scope rename keeps ``updated_at``)."""
    return (current.updated_at, current.scope) == (chosen.updated_at, chosen.scope)
