"""A durable on-disk journal of finished turns waiting to be turned into memories.

Each turn is one JSON file written atomically (a temporary file written synchronously, a
rename, the directory synchronised), so a crash at any moment leaves either the whole turn or
nothing. A turn's file is removed only after it was processed; processing is idempotent
(an episode's id derives from its scope and messages, a fact's from its episode's), so a turn
replayed after a crash creates no duplicate. A record keeps each message's time, speaker and
id, so what is written from it is dated by when it was said, however late that is.
"""

from __future__ import annotations

import json
import logging
import os
import uuid
import weakref
from dataclasses import asdict, dataclass, field, fields
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from openclaw_tinmem.directories import private_directory
from openclaw_tinmem.events import HookContext, Message
from openclaw_tinmem.models import Source, utc_now
from openclaw_tinmem.text import lines_of

logger = logging.getLogger(__name__)

SUFFIX = ".turn.json"
# a turn file that cannot be read is renamed to this, out of the worker's way, and kept
SET_ASIDE_SUFFIX = ".unreadable"
PRIVATE_FILE = 0o600
FAILURES_FILE = "failures.jsonl"


TurnKind = Literal["turn", "session"]  # a finished turn, or a session's messages to summarise


@dataclass
class TurnRecord:
    """One finished turn as the worker needs it: the record from ``agent_end`` to the writer —
    its messages, the scope it is written to, who and where it came from (``ctx``), what it
    is (``kind``), when it ended and how its processing went."""

    messages: list[Message]
    scope: str
    ctx: HookContext = field(default_factory=HookContext)
    kind: TurnKind = "turn"
    id: str = field(default_factory=lambda: str(uuid.uuid4()))
    created_at: str = field(default_factory=lambda: utc_now().isoformat())
    attempts: int = 0
    next_attempt_at: str | None = None
    last_error: str | None = None
    source: str = "auto-capture"  # a live turn, or "ingest": a past conversation read back

    @property
    def created(self) -> datetime:
        return datetime.fromisoformat(self.created_at)

    def is_due(self, moment: datetime) -> bool:
        """Whether its retry time (if it has one) has come by ``moment``."""
        return (
            self.next_attempt_at is None or datetime.fromisoformat(self.next_attempt_at) <= moment
        )

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON-ready data (``read_record`` reads it back)."""
        data = asdict(self)
        data["messages"] = [message.to_dict() for message in self.messages]
        data["context"] = data.pop("ctx")  # the file's name for it
        return data


RECORD_FIELDS = frozenset(item.name for item in fields(TurnRecord))


class UnreadableRecord(ValueError):
    """A turn file that is not a turn record (damaged, or written by something else)."""


def read_record(path: Path) -> TurnRecord:
    """A journalled turn as it was written — also by an earlier version, which kept the kind
    in the context beside keys nothing reads. OSError when the file is gone or unreadable;
    ``UnreadableRecord`` when what it holds is not a turn."""
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        data = json.loads(text)
        context = data.pop("context", None) or {}
        data["messages"] = [Message.from_dict(message) for message in data["messages"]]
        data["ctx"] = HookContext.from_dict(context)
        if "kind" not in data:
            data["kind"] = "session" if context.get("kind") == "session_summary" else "turn"
        record = TurnRecord(**{key: value for key, value in data.items() if key in RECORD_FIELDS})
        # what the worker reads of it, checked now rather than failing it later; a time
        # without an offset (a host's naive clock) is UTC
        record.created_at = _aware(record.created_at)
        if record.next_attempt_at is not None:
            record.next_attempt_at = _aware(record.next_attempt_at)
        if not isinstance(record.attempts, int) or not isinstance(record.scope, str):
            raise TypeError("attempts must be a number and scope a string")
        Source(record.source)  # ValueError: a source no memory can have
        for name, value in record.ctx.to_dict().items():
            if value is not None and not isinstance(value, str):
                raise TypeError(f"context {name} must be text")
    except (AttributeError, KeyError, TypeError, ValueError) as error:
        raise UnreadableRecord(f"{path.name}: {type(error).__name__}: {error}") from None
    return record


def _aware(moment: str) -> str:
    parsed = datetime.fromisoformat(moment)
    return (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).isoformat()


# The write itself synchronises the data where the platform can: one system call fewer. Each
# system call releases the GIL, and ``agent_end`` may then wait for the capture worker's thread
# to give it back (docs/benchmarks.md, "A cheaper turn").
SYNCHRONISED_WRITES = getattr(os, "O_DSYNC", 0)


class Journal:
    """Turn files in one directory."""

    def __init__(self, directory: Path) -> None:
        # turns are the user's words: the owner's only
        self.directory = private_directory(directory, setting="journal_path")
        self._directory_descriptor: int | None = None  # kept open to synchronise renames

    def _path(self, turn_id: str) -> Path:
        return self.directory / f"{turn_id}{SUFFIX}"

    def write(self, record: TurnRecord) -> None:
        """Atomically create or replace the record's file, in as few system calls as that
        takes: written and synchronised under a temporary name, renamed, the directory
        synchronised."""
        data = json.dumps(record.to_dict(), ensure_ascii=False).encode("utf-8")
        temporary = self.directory / f".tmp-{uuid.uuid4().hex}.json"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | SYNCHRONISED_WRITES
        descriptor = os.open(temporary, flags, PRIVATE_FILE)
        try:
            try:
                written = 0
                while written < len(data):
                    written += os.write(descriptor, data[written:])
                if not SYNCHRONISED_WRITES:
                    os.fsync(descriptor)
            finally:
                os.close(descriptor)
            os.replace(temporary, self._path(record.id))
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
        self._synchronise_directory()

    def _synchronise_directory(self) -> None:
        """Make renames and removals in the directory durable."""
        if self._directory_descriptor is None:
            descriptor = os.open(self.directory, os.O_RDONLY)
            weakref.finalize(self, os.close, descriptor)
            self._directory_descriptor = descriptor
        os.fsync(self._directory_descriptor)

    def pending(self, *, due_only: bool = True, now: datetime | None = None) -> list[TurnRecord]:
        """Journalled turns, oldest first; with ``due_only`` those whose retry time has come.

        A file that holds no turn is set aside (``set_aside``), with a warning in the log: it
        would otherwise fail every pass of the worker, or be skipped unseen."""
        moment = now or utc_now()
        records = []
        for path in self.directory.glob(f"*{SUFFIX}"):
            try:
                record = read_record(path)
            except UnreadableRecord as error:
                self._set_aside(path, str(error))
                continue
            except OSError:
                continue  # removed meanwhile
            if record.is_due(moment) or not due_only:
                records.append(record)
        return sorted(records, key=lambda record: record.created_at)

    def _set_aside(self, path: Path, reason: str) -> None:
        try:
            path.replace(path.with_name(path.name + SET_ASIDE_SUFFIX))
        except OSError:
            return  # removed meanwhile, or a read-only journal: left where it is
        logger.warning("set aside a journal file that holds no turn: %s", reason)

    def set_aside(self) -> list[Path]:
        """The turn files set aside as unreadable, for a person to look at."""
        return sorted(self.directory.glob(f"*{SUFFIX}{SET_ASIDE_SUFFIX}"))

    def complete(self, turn_id: str) -> None:
        self._path(turn_id).unlink(missing_ok=True)
        self._synchronise_directory()

    def defer(self, record: TurnRecord, error: str, delay_seconds: float) -> None:
        """Keep the turn for a later attempt and remember why this one failed."""
        record.attempts += 1
        record.last_error = error
        record.next_attempt_at = (datetime.now(UTC) + timedelta(seconds=delay_seconds)).isoformat()
        self.write(record)

    def record_failure(self, record: TurnRecord, error: str) -> None:
        """Append a visible trace of a turn that needed the fallback path."""
        entry = {
            "turn_id": record.id,
            "at": utc_now().isoformat(),
            "attempts": record.attempts,
            "error": error,
        }
        descriptor = os.open(
            self.directory / FAILURES_FILE, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600
        )
        with os.fdopen(descriptor, "a", encoding="utf-8") as stream:
            stream.write(json.dumps(entry) + "\n")

    def failures(self) -> list[dict[str, Any]]:
        """The recorded fallbacks, oldest first; lines that are not one are passed over."""
        path = self.directory / FAILURES_FILE
        if not path.exists():
            return []
        entries = []
        for line in lines_of(path.read_text(encoding="utf-8", errors="replace")):
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if isinstance(entry, dict):
                entries.append(entry)
        return entries
