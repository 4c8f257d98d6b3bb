"""Post-turn capture in the background: ``CaptureWorker`` drains the journal, running each
turn through the capture pipeline (``pipeline.py``), in a thread of its own. A turn whose LLM
extraction fails is retried with backoff; after ``capture_max_attempts`` it is processed by
the no-LLM rules and the failure is recorded where ``tinmem doctor`` shows it.
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable
from datetime import UTC, datetime

from filelock import FileLock, Timeout

from openclaw_tinmem.capture.journal import Journal, TurnRecord
from openclaw_tinmem.capture.pipeline import CapturePipeline, CaptureReport
from openclaw_tinmem.config import Settings
from openclaw_tinmem.directories import PRIVATE, make_private
from openclaw_tinmem.errors import describe_failure
from openclaw_tinmem.models import WriteOutcome
from openclaw_tinmem.process.priority import yield_to_the_host

logger = logging.getLogger("openclaw_tinmem")

WORKER_LOCK_NAME = ".worker.lock"
REPORTS_KEPT = 100
HELD_TURNS_KEPT = 1000  # turns kept in memory while the journal cannot be written


def at_exit(method: weakref.WeakMethod[Callable[[], None]]) -> None:
    """Call ``method`` (while its object lives, never raising) as the interpreter exits,
    once the host's own threads are done (``atexit``): turns they end are still captured."""

    def call() -> None:
        bound = method()
        try:
            if bound is not None:
                bound()
        except Exception:  # the other exit hooks run all the same
            logger.exception("stopping memory capture at exit failed")

    atexit.register(call)


def interpreter_exiting(error: BaseException) -> bool:
    """Whether ``error`` is a thread pool refusing work because the interpreter is exiting
    (its pools stop before ``atexit`` runs the worker's stop): the turn is left for the next
    start, not counted as a failed attempt and put off."""
    return isinstance(error, RuntimeError) and "after interpreter shutdown" in str(error)


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
        self._exit_hooked = False

    def start(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._stop.clear()
            self._thread = threading.Thread(target=self._loop, name="tinmem-capture", daemon=True)
            self._thread.start()
            if not self._exit_hooked:
                self._exit_hooked = True
                at_exit(weakref.WeakMethod(self.stop_at_exit))

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
        """Stop after the turn being captured (waiting at most ``timeout`` seconds in all);
        turns not yet captured stay in the journal for the next start."""
        deadline = time.monotonic() + timeout
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
        left = max(0.0, deadline - time.monotonic())
        if self._busy.acquire(timeout=left):  # a flush's drain stops after its turn too
            self._busy.release()

    def stop_at_exit(self) -> None:
        """Stop as the interpreter exits, keeping every turn (journalled or held)."""
        # A host may exit without closing the plugin. Native code (ONNX Runtime, Lance) still
        # running on a daemon thread while the interpreter tears down aborts the process, so
        # the exit waits (bounded) for the turn in progress, and leaves the rest journalled.
        running = self._thread is not None and self._thread.is_alive()
        if self._stop.is_set() and not running and not self._held:
            return  # stopped already
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
            try:  # a journal directory removed meanwhile is made again, private
                self.journal.directory.mkdir(PRIVATE, parents=True, exist_ok=True)
                self._process_lock.acquire(timeout=0)
                make_private(self.journal.directory)  # the lock makes a missing one open to all
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
        """Process what is due now, waiting at most ``timeout`` seconds; True if nothing due
        is left (looked at between two passes, so a turn another pass has in hand is not
        missed). A turn that failed and waits for its retry is not due: it stays journalled."""
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
            if not record.is_due(datetime.now(UTC)):
                break  # not due: it and those behind it wait
            self._held.popleft()
            try:
                outcomes, used_fallback = self._capture_from_memory(record)
            except Exception as error:
                if record.attempts == 0:
                    logger.error(
                        "held turn %s could not be captured (%s); it is kept and retried",
                        record.id,
                        describe_failure(error),
                    )
                delay = self._retry_delay(record.attempts, most_doublings=6)
                try:  # defer counts the attempt and dates the next one before it writes
                    self.journal.defer(record, describe_failure(error), delay)
                except OSError:
                    self._held.appendleft(record)
                break  # the rest wait for the next pass, as this one does
            self.reports.append(CaptureReport(record.id, outcomes, used_fallback=used_fallback))
            finished += 1
        return finished

    def _capture_from_memory(self, record: TurnRecord) -> tuple[list[WriteOutcome], bool]:
        """A held turn's outcomes and whether the rules made them: the LLM pipeline on the
        first attempt, else (and on every later one) the rules."""
        if not record.attempts:
            try:
                return self.primary.process(record), False
            except Exception as error:
                logger.warning(
                    "capture of held turn %s failed (%s: %s); using the no-LLM rules",
                    record.id,
                    type(error).__name__,
                    error,
                )
        return self.fallback.process(record), True

    def _retry_delay(self, attempts: int, most_doublings: int | None = None) -> float:
        """``capture_retry_seconds``, doubled for each attempt made (at most ``most_doublings``
        times)."""
        doublings = attempts if most_doublings is None else min(attempts, most_doublings)
        return float(self.settings.capture_retry_seconds * 2**doublings)

    def _process(self, record: TurnRecord) -> int:
        try:
            outcomes = self.primary.process(record)
        except Exception as error:  # LLM down, bad output, store hiccup: retry later
            if interpreter_exiting(error):  # not the turn's fault: journalled as it was
                self._stop.set()
                return 0
            message = f"{type(error).__name__}: {error}"
            if record.attempts + 1 < self.settings.capture_max_attempts:
                delay = self._retry_delay(record.attempts)
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
            try:
                outcomes = self.fallback.process(record)
            except Exception as failure:  # the store cannot take it now (a full disk): kept
                # (a file that is no turn was set aside when read); the turns behind it go on
                delay = self._retry_delay(record.attempts, most_doublings=10)
                logger.error(
                    "turn %s could not be captured by the rules either (%s); retry in %.0fs",
                    record.id,
                    describe_failure(failure),
                    delay,
                )
                self.journal.defer(record, describe_failure(failure), delay)
                return 0
            self.reports.append(CaptureReport(record.id, outcomes, used_fallback=True))
        else:
            self.reports.append(CaptureReport(record.id, outcomes))
        self.journal.complete(record.id)
        return 1
