"""Which stored memories a new one may be merged into, or skipped as a duplicate of.

A fact is a duplicate of a fact, never of the exchange it was taken from; words of doubtful
origin never join trusted ones (nor the other way); and in an agent's or a user's own scope
one user's words never join another's, as automatic recall shows a user's words to no other
user (``recall.exposure``).
"""

from __future__ import annotations

from openclaw_tinmem.models import EPISODE_TAG, PERSONAL_SCOPE_PREFIXES, Memory


def may_join(stored: Memory, candidate: Memory) -> bool:
    """Whether ``stored`` is a neighbour ``candidate`` may be merged into or skipped for: a
    fact is a duplicate of a fact, not of the exchange it was taken from; words of doubtful
    origin never merge into trusted ones (nor the other way), nor one user's words into
    another's."""
    trusted = candidate.provenance.untrusted is None
    return (
        EPISODE_TAG not in stored.tags
        and (stored.provenance.untrusted is None) == trusted
        and same_audience(stored, candidate)
    )


def same_audience(stored: Memory, candidate: Memory) -> bool:
    """Whether ``candidate`` may merge into ``stored`` (which keeps its provenance) without
    one user's words reaching another, or hiding them from whom they were for: in an agent's
    or a user's own scope, only what the same user said (both no user, too), as automatic
    recall shows another user's words to nobody else (``recall.exposure``); in a shared
    scope, anything."""
    return stored.provenance.user_id == candidate.provenance.user_id or not (
        candidate.scope.startswith(PERSONAL_SCOPE_PREFIXES)
    )


def shown_to_everyone_it_was_for(stored: Memory, candidate: Memory) -> bool:
    """Whether ``candidate`` may be skipped as a duplicate of identical ``stored`` words:
    when ``stored`` is shown to at least those ``candidate`` would be — the same user's, or
    written for no user in particular (an agent stored it)."""
    return stored.provenance.user_id is None or same_audience(stored, candidate)
