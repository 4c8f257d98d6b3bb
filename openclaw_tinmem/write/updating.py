"""Explicit updates (``memory_update``): change only the given fields of one memory."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import ValidationError

from openclaw_tinmem.errors import NotFoundError, invalid_argument
from openclaw_tinmem.llm import Deadline
from openclaw_tinmem.models import (
    EPISODE_TAG,
    PERSONAL_SCOPE_PREFIXES,
    Memory,
    MemoryChanges,
    Provenance,
    content_hash,
    normalise_tags,
)
from openclaw_tinmem.redaction import redact_secrets
from openclaw_tinmem.store.conditional import COMMIT_ATTEMPTS, commit_until_it_lands
from openclaw_tinmem.store.history import HistoryAction
from openclaw_tinmem.write.trust import with_trust

if TYPE_CHECKING:
    from openclaw_tinmem.access import Access, Identity
    from openclaw_tinmem.encoders.dense import Vector
    from openclaw_tinmem.write.writer import MemoryWriter


def update(
    writer: MemoryWriter,
    access: Access,
    memory_id: str,
    *,
    content: str | None = None,
    summary: str | None = None,
    headline: str | None = None,
    importance: float | None = None,
    tags: Sequence[str] | None = None,
) -> Memory:
    """Change only the given fields of memory ``memory_id`` (a whole id, which the caller
    found readable); new content re-embeds and refreshes levels not given.

    What new content needs (levels from the LLM, embeddings) is made before the write lock
    is taken, within ``tool_timeout_seconds`` for the LLM. Under the lock the memory is read
    again and the given fields are written onto it — conditionally: if another host changed
    it in between, it is read again and the fields applied to what that host wrote.
    """
    try:  # what a memory cannot hold, from any front end, before anything is done
        MemoryChanges.model_validate(
            {
                "content": content,
                "summary": summary,
                "headline": headline,
                "importance": importance,
                # a string or a mapping is refused, not split into letters or keys
                "tags": list(tags) if isinstance(tags, list | tuple) else tags,
            }
        )
    except ValidationError as error:
        raise invalid_argument(error) from None
    content, summary, headline = (
        None if text is None else redact_secrets(text) for text in (content, summary, headline)
    )
    changes: dict[str, object] = {}
    vector: Vector | None = None
    if content is not None:
        deadline = Deadline(writer.settings.tool_timeout_seconds)
        generated_headline, generated_summary = writer.levels(content, deadline)
        changes.update(
            content=content,
            content_hash=content_hash(content),
            headline=generated_headline,
            summary=generated_summary,
        )
        vector = writer.embedder.embed_documents([content])[0]
    given = {"headline": headline, "summary": summary, "importance": importance}
    changes.update({name: value for name, value in given.items() if value is not None})
    if tags is not None:
        changes["tags"] = normalise_tags(list(tags))
    store = writer.store

    def attempt() -> Memory | None:
        found = store.get_with_vectors([memory_id])
        if not found or not access.can_read(found[0][0].scope):
            raise NotFoundError(f"no memory with id {memory_id}", field="id")
        memory, stored_vector = found[0]
        access.check_write(memory.scope, field="id")
        updated = memory.model_copy(update={**changes, "updated_at": writer.clock()})
        if {"content", "headline", "summary"} & changes.keys():  # is it now an instruction?
            updated.provenance = with_trust(
                author(memory, access.identity),
                updated.content,
                updated.headline,
                updated.summary,
                episode=EPISODE_TAG in updated.tags,
            )
        tokens = writer.tokens_after_update(updated, memory)
        conflicted = store.upsert(
            [updated],
            [stored_vector if vector is None else vector],
            tokens,
            expected={memory.id: memory.updated_at},
        )
        if conflicted:
            return None
        return writer.landed(
            memory,
            updated,
            tokens,
            action=HistoryAction.UPDATED,
            actor=access.identity.describe(),
            source="memory_update",
        )

    return commit_until_it_lands(
        store.write_lock,
        attempt,
        f"gave up updating {memory_id} after {COMMIT_ATTEMPTS} attempts: other writers kept "
        "changing it; try again",
    )


def author(memory: Memory, editor: Identity) -> Provenance:
    """Whose words ``memory`` holds once ``editor`` rewrote its text: still its author's,
    unless, in an agent's or a user's own scope, a user other than the one it was kept for
    rewrote it — then the editor's (agent, user, session), as a memory that user stored would
    be. Automatic recall shows a user's words to no other user there (``recall.exposure``):
    kept as the author's, the editor's words would be injected into the author's prompts as
    the author's own. An administrator's or an agent's edit (no user) keeps the author."""
    if (
        editor.user_id is None
        or editor.user_id == memory.provenance.user_id
        or not memory.scope.startswith(PERSONAL_SCOPE_PREFIXES)
    ):
        return memory.provenance
    return editor.provenance()
