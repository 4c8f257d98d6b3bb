"""Post-turn capture: journalled turns -> cleaned text -> candidates -> dedup -> store.

``CaptureWorker`` runs in a background thread and drains the journal. A turn whose LLM
extraction fails is retried with backoff; after ``capture_max_attempts`` it is processed by
the no-LLM rules and the failure is recorded where ``tinmem doctor`` shows it.
"""

from __future__ import annotations

import atexit
import logging
import threading
import uuid
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from filelock import FileLock, Timeout

from openclaw_tinmem.access import Identity
from openclaw_tinmem.capture.episodes import (
    Exchange,
    episode_draft,
    is_substantive,
    message_key,
    provenance,
)
from openclaw_tinmem.capture.extraction import Extractor
from openclaw_tinmem.capture.filters import CaptureFilter
from openclaw_tinmem.capture.journal import Journal, TurnRecord
from openclaw_tinmem.capture.sanitize import clean, has_content, is_noise
from openclaw_tinmem.capture.trust import mark_turn
from openclaw_tinmem.config import Settings
from openclaw_tinmem.errors import describe_failure
from openclaw_tinmem.events import HookContext, Message
from openclaw_tinmem.models import Draft, Source, WriteOutcome
from openclaw_tinmem.process.priority import yield_to_the_host

if TYPE_CHECKING:
    from openclaw_tinmem.service import MemoryService

logger = logging.getLogger("openclaw_tinmem")
CAPTURE_NAMESPACE = uuid.UUID("0b7f3c2e-5a4d-4c1b-9e8f-7d6a5b4c3d2e")
WORKER_LOCK_NAME = ".worker.lock"
REPORTS_KEPT = 100
HELD_TURNS_KEPT = 1000  # turns kept in memory while the journal cannot be written


def memory_id_for(turn_id: str, index: int) -> str:
    """The id the ``index``-th memory of a turn always gets: replays overwrite, never duplicate."""
    return str(uuid.uuid5(CAPTURE_NAMESPACE, f"{turn_id}:{index}"))


def clean_messages(messages: Sequence[Message]) -> list[Message]:
    """User and assistant messages, cleaned; those left empty by cleaning are dropped."""
    spoken = (message for message in messages if message.role in ("user", "assistant"))
    cleaned = [message.with_content(clean(message.content)) for message in spoken]
    return [message for message in cleaned if message.content]


def turn_start(messages: Sequence[Message], kept: Callable[[Message], bool]) -> int | None:
    """Where the last turn begins: the first of the last run of user messages (those between
    the last reply and the end), among the messages ``kept`` says count; None without one."""
    users = (i for i in range(len(messages) - 1, -1, -1) if messages[i].role == "user")
    last_user = next((i for i in users if kept(messages[i])), None)
    if last_user is None:
        return None
    start = last_user
    for index in range(last_user - 1, -1, -1):
        message = messages[index]
        if kept(message):
            if message.role != "user":
                break
            start = index
    return start


def split_turn(
    messages: Sequence[Message], context_size: int
) -> tuple[list[Message], list[Message]]:
    """(the turn: the last run of user messages and what followed it, earlier context),
    both cleaned."""
    cleaned = clean_messages(messages)
    start = turn_start(cleaned, lambda message: True)
    if start is None:
        start = len(cleaned)
    return cleaned[start:], cleaned[max(0, start - context_size) : start]


def capture_window(messages: Sequence[Message], context_size: int) -> list[Message]:
    """The messages capture reads: the last turn, and the ``context_size`` user and
    assistant messages before it — exactly what ``split_turn`` keeps. ``agent_end`` journals
    only these, so its cost does not grow with the conversation."""

    def kept(message: Message) -> bool:
        return message.role in ("user", "assistant") and has_content(message.content)

    start = turn_start(messages, kept)
    if start is None:
        return list(messages)  # no user message: nothing will be extracted
    counted = 0
    while start > 0 and counted < context_size:
        start -= 1
        counted += kept(messages[start])
    return list(messages[start:])


@dataclass(frozen=True)
class CaptureReport:
    turn_id: str
    outcomes: list[WriteOutcome]
    used_fallback: bool = False


class CapturePipeline:
    """Processes one journalled turn with an extractor; idempotent for the same turn.

    A turn becomes its episode (the exchange itself, ``capture.episodes``) and the facts the
    extractor finds in it, each linked to the episode; all are written in one batch.
    """

    def __init__(
        self,
        service: MemoryService,
        extractor: Extractor,
        capture_filter: CaptureFilter | None = None,
    ) -> None:
        self.service = service
        self.extractor = extractor
        self.filter = capture_filter or CaptureFilter(service.settings)

    def process(self, record: TurnRecord) -> list[WriteOutcome]:
        ctx = record.ctx
        identity = Identity.from_context(ctx, via="capture")
        if not self.service.access(identity).can_write(record.scope):
            logger.warning(
                "%s may not write %s: turn %s is not captured",
                identity.describe(),
                record.scope,
                record.id,
            )
            self.filter.count("skipped_no_write_access")
            return []
        if not self.filter.is_conversation(ctx):
            return []
        if record.kind == "session":
            messages = clean_messages(record.messages)
            candidates = self.extractor.summarize_session(messages, record.created)
            keys = [message_key(message) for message in messages]
            summaries = [
                replace(
                    draft,
                    memory_id=memory_id_for(record.id, index),
                    created_at=record.created,
                    provenance=provenance(ctx, keys, ()),
                )
                for index, draft in enumerate(candidates)
            ]
            return self._write(record, mark_turn(record.messages, messages, summaries), identity)
        turn, context = split_turn(record.messages, self.service.settings.context_messages)
        turn = self.filter.messages(turn)
        if not any(m.role == "user" for m in turn) or not is_substantive(turn):
            return []  # nothing said worth keeping
        said = [m for m in turn if m.role == "user"]
        worth_facts = not all(is_noise(m.content) for m in said)
        found = self.extractor.extract(turn, context, record.created) if worth_facts else None
        exchange = Exchange.of(turn, ctx)
        episode = episode_draft(
            exchange,
            scope=record.scope,
            ctx=ctx,
            source=Source(record.source),
            context="",  # the exchange holds both sides: it is its own context
            fallback_time=record.created,
            levels=(found.episode_headline, found.episode_summary) if found else (None, None),
        )
        facts = found.facts if found else []
        linked = [_linked(fact, episode, ctx, index) for index, fact in enumerate(facts)]
        return self._write(record, mark_turn(record.messages, turn, [episode, *linked]), identity)

    def _write(
        self, record: TurnRecord, drafts: Sequence[Draft], identity: Identity
    ) -> list[WriteOutcome]:
        """The turn's drafts, filtered, written where the turn is captured."""
        captured = [
            # the writer redacts every text it keeps
            replace(draft, scope=record.scope, source=Source(record.source))
            for draft in self.filter.drafts(drafts)
            if draft.content.strip()
        ]
        return self.service.remember_many(captured, identity=identity)


def _linked(fact: Draft, episode: Draft, ctx: HookContext, index: int) -> Draft:
    """A fact of a turn with its id derived from its episode's, its time and its provenance:
    the messages it came from, naming the episode."""
    assert episode.memory_id is not None and episode.created_at is not None
    found = fact.provenance
    keys = found.message_ids or episode.provenance.message_ids
    return replace(
        fact,
        memory_id=str(uuid.uuid5(CAPTURE_NAMESPACE, f"{episode.memory_id}:{index}")),
        created_at=fact.created_at or episode.created_at,
        provenance=provenance(ctx, keys, found.speakers, episode_id=episode.memory_id),
    )


class RetryByRules(Exception):
    """A held turn tried again: the rules capture it, without another LLM call."""


class CaptureWorker:
    """Drains the journal in a background thread; one worker per journal across processes."""

    def __init__(
        self,
        journal: Journal,
        primary: CapturePipeline,
        fallback: CapturePipeline,
        settings: Settings,
    ) -> None:
        self.journal = journal
        self.primary = primary
        self.fallback = fallback
        self.settings = settings
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._busy = threading.Lock()
        self._thread: threading.Thread | None = None
        self._process_lock = FileLock(str(journal.directory / WORKER_LOCK_NAME))
        self.reports: deque[CaptureReport] = deque(maxlen=REPORTS_KEPT)
        self._held: deque[TurnRecord] = deque(maxlen=HELD_TURNS_KEPT)
        self._journal_problem = ""  # the last error the journal gave, reported once
        self._read_only_said = False

    def start(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._stop.clear()
            self._thread = threading.Thread(target=self._loop, name="tinmem-capture", daemon=True)
            self._thread.start()
            atexit.register(self._stop_at_exit)

    def notify(self) -> None:
        self._wake.set()

    def hold(self, record: TurnRecord) -> None:
        """Capture a turn the journal could not take (its directory gone, unwritable or
        full) from memory: not durable, but not lost while this process runs."""
        if len(self._held) == HELD_TURNS_KEPT:
            logger.error(
                "%d turns wait for a journal that cannot be written; the oldest is dropped",
                HELD_TURNS_KEPT,
            )
        self._held.append(record)
        self.start()
        self.notify()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop after the turn being captured (waiting at most ``timeout`` seconds); turns
        not yet captured stay in the journal for the next start."""
        atexit.unregister(self._stop_at_exit)
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
        if self._busy.acquire(timeout=timeout):  # a flush's drain stops after its turn too
            self._busy.release()

    def _stop_at_exit(self) -> None:
        # A host may exit without closing the plugin. Native code (ONNX Runtime, Lance) still
        # running on a daemon thread while the interpreter tears down aborts the process, so
        # the exit waits (bounded) for the turn in progress, and leaves the rest journalled.
        self.stop(self.settings.flush_timeout_seconds)
        while self._held:  # one more try to keep the turns held in memory
            record = self._held.popleft()
            try:
                self.journal.write(record)
            except OSError:
                logger.error("turn %s could not be journalled and is lost", record.id)

    def _loop(self) -> None:
        yield_to_the_host()
        while not self._stop.is_set():
            self._wake.wait(timeout=1.0)
            self._wake.clear()
            try:
                self.run_once()
            except Exception:  # the worker must survive anything and try again later
                logger.exception("capture worker iteration failed")

    def run_once(self) -> int:
        """Process every due turn; returns how many were finished."""
        if self.primary.service.store.read_only:  # nothing can be written: turns wait
            if not self._read_only_said:
                logger.error(
                    "the store is read-only for this user: turns stay in the capture "
                    "journal until it can be written"
                )
                self._read_only_said = True
            return 0
        with self._busy:
            held = self._capture_held()
            try:
                self._process_lock.acquire(timeout=0)
            except Timeout:
                return held  # another process is draining this journal
            except OSError as error:  # its directory is gone or unusable: held turns only
                if str(error) != self._journal_problem:
                    logger.error(
                        "cannot read the capture journal (%s); turns are captured "
                        "from memory until it can be written",
                        error,
                    )
                self._journal_problem = str(error)
                return held
            self._journal_problem = ""
            try:
                finished = held
                for record in self.journal.pending():
                    if self._stop.is_set():
                        break  # stopping: the rest stay journalled
                    finished += self._process(record)
                return finished
            finally:
                self._process_lock.release()

    def flush(self, timeout: float) -> bool:
        """Process what is due now, waiting at most ``timeout`` seconds; True if none is left
        (looked at between two passes, so a turn another pass has in hand is not missed)."""
        done = threading.Event()
        left: list[bool] = []

        def drain() -> None:
            try:
                self.run_once()
                with self._busy:
                    left.append(bool(self._held) or bool(self.journal.pending()))
            finally:
                done.set()

        threading.Thread(target=drain, name="tinmem-flush", daemon=True).start()
        return done.wait(timeout) and left == [False]

    def _capture_held(self) -> int:
        """Capture the turns held in memory: the LLM pipeline, else at once the rules (a
        held turn cannot wait in the journal for a retry). A turn that nothing could write
        (the store's disk full too) goes to the journal if it takes it now, else stays held
        and is tried again, by the rules, after ``capture_retry_seconds``, doubling."""
        finished = 0
        while self._held and not self._stop.is_set():
            record = self._held[0]
            if record.next_attempt_at and datetime.fromisoformat(record.next_attempt_at) > (
                datetime.now(UTC)
            ):
                break  # not due: it and those behind it wait
            self._held.popleft()
            try:
                try:
                    if record.attempts:  # the LLM had its turn: the rules alone now
                        raise RetryByRules
                    outcomes = self.primary.process(record)
                    used_fallback = False
                except RetryByRules:
                    outcomes, used_fallback = self.fallback.process(record), True
                except Exception as error:
                    logger.warning(
                        "capture of held turn %s failed (%s: %s); using the no-LLM rules",
                        record.id,
                        type(error).__name__,
                        error,
                    )
                    outcomes, used_fallback = self.fallback.process(record), True
            except Exception as error:
                if record.attempts == 0:
                    logger.error(
                        "held turn %s could not be captured (%s); it is kept and retried",
                        record.id,
                        describe_failure(error),
                    )
                delay = self.settings.capture_retry_seconds * 2 ** min(record.attempts, 6)
                record.attempts += 1
                record.next_attempt_at = (datetime.now(UTC) + timedelta(seconds=delay)).isoformat()
                try:
                    self.journal.write(record)
                except OSError:
                    self._held.appendleft(record)
                break  # the rest wait for the next pass, as this one does
            self.reports.append(CaptureReport(record.id, outcomes, used_fallback=used_fallback))
            finished += 1
        return finished

    def _process(self, record: TurnRecord) -> int:
        try:
            outcomes = self.primary.process(record)
        except Exception as error:  # LLM down, bad output, store hiccup: retry later
            message = f"{type(error).__name__}: {error}"
            if record.attempts + 1 < self.settings.capture_max_attempts:
                delay = self.settings.capture_retry_seconds * 2**record.attempts
                logger.warning(
                    "capture of turn %s failed (%s); retry in %.0fs", record.id, message, delay
                )
                self.journal.defer(record, message, delay)
                return 0
            logger.error(
                "capture of turn %s failed %d times; using the no-LLM rules",
                record.id,
                record.attempts + 1,
            )
            record.attempts += 1
            self.journal.record_failure(record, message)
            outcomes = self.fallback.process(record)
            self.reports.append(CaptureReport(record.id, outcomes, used_fallback=True))
        else:
            self.reports.append(CaptureReport(record.id, outcomes))
        self.journal.complete(record.id)
        return 1
