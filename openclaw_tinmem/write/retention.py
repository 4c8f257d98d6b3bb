"""Episode retention: how long the exchanges automatic capture keeps live.

By default an episode lives as long as the store (a turn is never lost). With
``episode_retention_days`` set, the episodes said longer ago than that are first folded into
one memory per session (``folding.py``: what happened in it, an exchange a line; unless
``fold_expired_episodes`` is off), then forgotten — deleted with a ``forgotten`` event in
their history, so ``tinmem restore`` can bring one back while the history keeps it — and the
facts taken from them stay.

It runs in the background with the table's upkeep (``write.writer``) and at
``tinmem optimize``, so the store holds at most the episodes of the last so many days. On an
object store one host at a time runs it, the one holding its lease: the write lock serialises
only the processes of one machine, and two hosts folding one session from two readings of it
would write two folded memories, or one missing the other's lines.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from openclaw_tinmem.config import Settings
from openclaw_tinmem.models import EPISODE_TAG, Category, Memory
from openclaw_tinmem.store.table import MemoryStore
from openclaw_tinmem.write.folding import RETENTION, fold_sessions, folded_note
from openclaw_tinmem.write.forgetting import delete

if TYPE_CHECKING:
    from openclaw_tinmem.write.writer import MemoryWriter


def expired_episodes(
    store: MemoryStore, settings: Settings, now: datetime | None = None
) -> list[Memory]:
    """The episodes said more than ``episode_retention_days`` before ``now`` (none when it
    is 0)."""
    if settings.episode_retention_days <= 0:
        return []
    cutoff = (now or datetime.now(UTC)) - timedelta(days=settings.episode_retention_days)
    return store.page(
        categories=[Category.EVENTS], tags=[EPISODE_TAG], limit=None, created_before=cutoff
    )[1]


def expire_episodes(
    store: MemoryStore, settings: Settings, writer: MemoryWriter, now: datetime | None = None
) -> int:
    """Fold the expired episodes by session (written through ``writer``), then forget those
    folded in one commit; how many went. Under the store's write lock from the first read to
    the last write, so two upkeeps (or ``tinmem optimize`` beside a host) cannot fold the
    same session from two readings of it; on an object store, only while holding the
    retention lease (0 when another host holds it: that host is expiring the same episodes)."""
    lease = store.lease("episode retention")
    if lease is not None and not expired_episodes(store, settings, now):
        return 0  # nothing to do: no claim committed to the lease table
    if lease is not None and not lease.acquire():
        return 0
    try:
        return _expire(store, settings, writer, now)
    finally:
        if lease is not None:
            lease.release()


def _expire(
    store: MemoryStore, settings: Settings, writer: MemoryWriter, now: datetime | None
) -> int:
    with store.write_lock():
        expired = expired_episodes(store, settings, now)
        if expired and settings.fold_expired_episodes:
            expired = fold_sessions(store, writer, expired, now or datetime.now(UTC))
        folding = settings.fold_expired_episodes
        notes = {episode.id: folded_note(episode) for episode in expired} if folding else {}
        deleted = delete(
            store, expired, [], dry_run=False, purge=False, actor=RETENTION, notes=notes
        )
    return len(deleted.deleted)
