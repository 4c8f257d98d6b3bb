"""A draft becomes a memory: validated, its secrets redacted, its missing levels written."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from openclaw_tinmem.errors import InvalidArgumentError
from openclaw_tinmem.models import (
    EPISODE_TAG,
    Draft,
    Memory,
    content_hash,
    normalise_tags,
    validate_memory_id,
    validate_scope,
)
from openclaw_tinmem.redaction import count_redactions
from openclaw_tinmem.write.trust import AUTHORED, with_trust


def drafted(
    draft: Draft, levels: Callable[[str], tuple[str, str]], clock: Callable[[], datetime]
) -> tuple[Memory, int]:
    """The draft as a memory with its secrets redacted, and how many were. ``levels`` writes
    the headline and summary the draft does not give; the memory is dated after it has."""
    if not draft.content.strip():
        raise InvalidArgumentError("content must not be empty", field="content")
    validate_scope(draft.scope)
    content, redacted = count_redactions(draft.content.strip())
    given_headline, in_headline = count_redactions(draft.headline or "")
    given_summary, in_summary = count_redactions(draft.summary or "")
    context, in_context = count_redactions(draft.context)
    needs_levels = not (given_headline and given_summary)
    headline, summary = levels(content) if needs_levels else ("", "")
    now = clock()
    memory = Memory(
        scope=draft.scope,
        category=draft.category,
        content=content,
        headline=given_headline or headline,
        summary=given_summary or summary,
        importance=draft.importance,
        tags=normalise_tags(list(draft.tags)),
        created_at=draft.created_at or now,
        updated_at=now,
        source=draft.source,
        source_ref=draft.source_ref,
        content_hash=content_hash(content),
        context=context,
        provenance=with_trust(
            draft.provenance,
            content,
            given_headline,
            given_summary,
            episode=EPISODE_TAG in draft.tags,
        )
        if draft.source in AUTHORED
        else draft.provenance,
    )
    if draft.memory_id is not None:
        memory.id = validate_memory_id(draft.memory_id)
    return memory, redacted + in_headline + in_summary + in_context
