"""What automatic capture leaves out, and the counts of what it left out.

Before extraction, user messages outside ``capture_min_characters`` ..
``capture_max_characters`` or matching a ``capture_skip_patterns`` expression are dropped.
After extraction, a candidate memory that reads as a prompt injection (an instruction to the
model, a fake system or tool tag) is dropped: stored, it would be injected into later
prompts. Every drop is counted in ``capture-counts.sqlite3`` beside the journal, which
``tinmem stats`` and ``tinmem doctor`` report, so nothing is left out silently.
"""

from __future__ import annotations

import fnmatch
import logging
import re
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from openclaw_tinmem.config import Settings
from openclaw_tinmem.events import HookContext, Message
from openclaw_tinmem.instructions import looks_like_injection, without_speakers
from openclaw_tinmem.models import EPISODE_TAG, Draft

logger = logging.getLogger("openclaw_tinmem")

COUNTS_FILE = "capture-counts.sqlite3"
BUSY_TIMEOUT_SECONDS = 10.0


class CaptureCounts:
    """Named counters shared by every process that captures into one journal."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / COUNTS_FILE
        try:  # statistics: a journal that cannot take them must not stop capture
            directory.mkdir(parents=True, exist_ok=True)
            with self._connect():
                pass
        except (OSError, sqlite3.Error) as error:
            logger.warning("capture counts cannot be kept in %s: %s", self.path, error)

    def _connect(self) -> sqlite3.Connection:
        connection = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_SECONDS)
        try:
            connection.execute(
                "CREATE TABLE IF NOT EXISTS counts (name TEXT PRIMARY KEY, value INTEGER NOT NULL)"
            )
        except sqlite3.Error:
            connection.close()
            raise
        return connection

    def add(self, name: str, amount: int = 1) -> None:
        if amount <= 0:
            return
        with self._connect() as connection:
            connection.execute(
                "INSERT INTO counts (name, value) VALUES (?, ?) "
                "ON CONFLICT(name) DO UPDATE SET value = value + excluded.value",
                (name, amount),
            )

    def read(self) -> dict[str, int]:
        with self._connect() as connection:
            rows = connection.execute("SELECT name, value FROM counts ORDER BY name")
            return {name: int(value) for name, value in rows}


class CaptureFilter:
    """Applies the capture switches to a turn's messages and to the drafts made from them."""

    def __init__(self, settings: Settings, counts: CaptureCounts | None = None) -> None:
        self.settings = settings
        self.counts = counts
        self._skip = [re.compile(pattern) for pattern in settings.capture_skip_patterns]
        self._sessions = list(settings.capture_skip_sessions)

    def count(self, name: str, amount: int = 1) -> None:
        if self.counts is None:
            return
        try:
            self.counts.add(name, amount)
        except sqlite3.Error:  # a statistic: never a reason to lose the turn
            logger.warning("could not count %d %s in %s", amount, name, self.counts.path)

    def is_conversation(self, ctx: HookContext) -> bool:
        """False (and counted) for a run that is not a conversation with a person: a session
        key of ``capture_skip_sessions`` or a trigger of ``capture_skip_triggers``."""
        key, trigger = ctx.session_key, ctx.trigger
        if trigger and trigger in self.settings.capture_skip_triggers:
            self.count("skipped_not_a_conversation")
            return False
        if key and any(fnmatch.fnmatchcase(key, pattern) for pattern in self._sessions):
            self.count("skipped_not_a_conversation")
            return False
        return True

    def messages(self, turn: Sequence[Message]) -> list[Message]:
        """The turn without the user messages capture must not keep."""
        kept: list[Message] = []
        for message in turn:
            reason = self._reason(message) if message.role == "user" else None
            if reason is None:
                kept.append(message)
            else:
                self.count(reason)
        return kept

    def _reason(self, message: Message) -> str | None:
        length = len(message.content)
        if length < self.settings.capture_min_characters:
            return "skipped_too_short"
        if length > self.settings.capture_max_characters:
            return "skipped_too_long"
        if any(pattern.search(message.content) for pattern in self._skip):
            return "skipped_by_pattern"
        return None

    def drafts(self, drafts: Sequence[Draft]) -> list[Draft]:
        """The drafts without those that read as a prompt injection (when the filter is on)."""
        if not self.settings.capture_filter_injections:
            return list(drafts)
        kept = [draft for draft in drafts if not _injected(draft)]
        self.count("filtered_injections", len(drafts) - len(kept))
        return kept


def _injected(draft: Draft) -> bool:
    texts: tuple[str, ...] = (draft.content, draft.headline or "", draft.summary or "")
    if EPISODE_TAG in draft.tags:  # "Assistant: …" names a speaker; what follows is checked
        texts = tuple(without_speakers(text) for text in texts)
    return any(looks_like_injection(text) for text in texts)
