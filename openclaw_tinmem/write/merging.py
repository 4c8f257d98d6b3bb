"""A merge by the category's rule: the merged memory, and when appending would grow too long."""

from __future__ import annotations

from datetime import datetime

from openclaw_tinmem.config import Settings
from openclaw_tinmem.models import Action, Category, Memory, content_hash, normalise_tags
from openclaw_tinmem.redaction import redact_secrets
from openclaw_tinmem.write.dedup import Decision, Neighbour, decide_by_similarity, merge_contents
from openclaw_tinmem.write.levels import RuleSummarizer


def merged_memory(existing: Memory, candidate: Memory, decision: Decision, now: datetime) -> Memory:
    """``existing`` with ``candidate`` merged in: the judge's text and levels when an LLM wrote
    them (secrets redacted), else the candidate appended and levels by the rules."""
    written = decision.content and redact_secrets(decision.content)
    content = written or merge_contents(existing.content, candidate.content)
    headline = decision.headline and redact_secrets(decision.headline)
    summary = decision.summary and redact_secrets(decision.summary)
    if not (headline and summary):
        # The judge's one call writes merged levels; without them the rules do, so a merge
        # never costs an extra LLM call.
        generated_headline, generated_summary = RuleSummarizer().levels(content)
        headline, summary = headline or generated_headline, summary or generated_summary
    return existing.model_copy(
        update={
            "content": content,
            "headline": headline,
            "summary": summary,
            "importance": max(existing.importance, candidate.importance),
            "tags": normalise_tags([*existing.tags, *candidate.tags]),
            "updated_at": now,
            "content_hash": content_hash(content),
        }
    )


def too_long(category: Category, content: str, decision: Decision, limit: int) -> bool:
    """Whether merged ``content`` is an appended merge past ``limit`` characters
    (``merge_max_characters``): its new lines would lie beyond what the ranking models read
    (and every later merge would re-encode an ever longer text). Merged text an LLM wrote is
    its own judgement and is kept whatever its length."""
    if category is Category.PROFILE:
        return False  # one profile per scope, whatever its length: the skill's rule
    target = decision.target
    grew = target is not None and content != target.content
    return decision.content is None and grew and len(content) > limit


def likely_merged_texts(
    items: list[tuple[Memory, list[Neighbour]]], settings: Settings
) -> list[str]:
    """The merged texts the similarity rule would write for these candidates (embedded ahead
    while the judge decides: it mostly agrees)."""
    texts = []
    for candidate, neighbours in items:
        decision = decide_by_similarity(candidate, neighbours, settings)
        target = decision.target
        if decision.action is Action.MERGED and target is not None:
            text = merge_contents(target.content, candidate.content)  # the rule appends
            limit = settings.merge_max_characters
            if text != target.content and not too_long(target.category, text, decision, limit):
                texts.append(text)
    return texts
