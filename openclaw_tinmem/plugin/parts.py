"""The plugin's parts, built on first use: its settings (``load_settings()`` unless given),
the service, the journal, the capture worker and the recall threads.

``PluginParts`` builds them and closes them; ``TinmemPlugin`` (``hookimpls``) adds the hooks.
A hook never waits for a part to be built: the worker (and the service it writes through) is
built in the background (``start_worker``), and recall runs time-boxed on its own threads.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import weakref
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from openclaw_tinmem.capture.extraction import Extractor, RuleExtractor, default_extractor
from openclaw_tinmem.capture.filters import CaptureCounts, CaptureFilter
from openclaw_tinmem.capture.journal import Journal, TurnRecord
from openclaw_tinmem.capture.pipeline import CapturePipeline
from openclaw_tinmem.capture.worker import HELD_TURNS_KEPT, CaptureWorker, at_exit
from openclaw_tinmem.config import Settings, load_settings
from openclaw_tinmem.errors import ConfigError, describe_failure
from openclaw_tinmem.locations import DEFAULT_JOURNAL_PATH, ENV_PREFIX
from openclaw_tinmem.service import MemoryService

logger = logging.getLogger("openclaw_tinmem")


def fallback_journal_path() -> Path:
    """Where turns wait while the configuration is broken: TINMEM_JOURNAL_PATH or the
    default journal, which a fixed configuration drains like any other."""
    return Path(os.environ.get(ENV_PREFIX + "JOURNAL_PATH") or DEFAULT_JOURNAL_PATH).expanduser()


class PluginParts:
    """What the plugin's hooks run on, built on first use and closed together."""

    def __init__(
        self,
        settings: Settings | None = None,
        service: MemoryService | None = None,
        extractor: Extractor | None = None,
    ) -> None:
        self._settings = settings
        self._service = service
        self._extractor = extractor
        self._worker: CaptureWorker | None = None
        self._journal: Journal | None = None
        self._build_lock = threading.RLock()
        self._pool_lock = threading.Lock()
        self._starting: threading.Thread | None = None  # building the worker for the hooks
        self._recall_pool: ThreadPoolExecutor | None = None
        self.config_error: ConfigError | None = None  # set while the configuration is broken
        # turns kept while journal_path cannot be a directory (a file in the way), journalled
        # once it can be
        self._unjournalled: deque[TurnRecord] = deque(maxlen=HELD_TURNS_KEPT)
        self._kept_lock = threading.Lock()

    # ----------------------------------------------------------------- wiring

    def configure(
        self,
        settings: Settings | None = None,
        service: MemoryService | None = None,
        extractor: Extractor | None = None,
    ) -> None:
        """Set what the plugin runs on; call before its first hook (the entry-point object)."""
        with self._build_lock:
            if self._service is not None or self._worker is not None:
                raise ConfigError(
                    "the tinmem plugin is already running: configure it before its first hook, "
                    "or close() it first"
                )
            self._settings, self._service, self._extractor = settings, service, extractor

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            if self._service is not None:
                self._settings = self._service.settings
            else:
                try:
                    self._settings = load_settings()
                except ConfigError as error:
                    if self.config_error is None or self.config_error.message != error.message:
                        logger.error(
                            "openclaw-tinmem is DEGRADED: %s. No memory is recalled or "
                            "captured; turns are journalled raw in %s for later; "
                            "'tinmem doctor' shows the problem",
                            error.message,
                            fallback_journal_path(),
                        )
                    self.config_error = error
                    raise
                self.config_error = None
        return self._settings

    def degraded(self) -> bool:
        """True while the configuration cannot be loaded (logged once, never raised)."""
        try:
            self.settings  # noqa: B018 - loading is the check
        except ConfigError:
            return True
        return False

    @property
    def service(self) -> MemoryService:
        with self._build_lock:
            if self._service is None:
                self._service = MemoryService.from_settings(self.settings)
            return self._service

    @property
    def journal(self) -> Journal:
        if self._journal is None:
            self._journal = Journal(self.settings.resolved_journal_path())
        return self._journal

    def journal_turn(self, record: TurnRecord) -> bool:
        """Journal ``record``, after the turns kept while the journal could not be made; False
        when it still cannot be (``journal_path`` is a file, say): the turn is kept in memory
        for the next one (lost only if the process ends first, which ``close`` reports). A
        journal that cannot be written raises ``OSError``; the turns kept stay kept
        (``take_unjournalled``)."""
        try:
            journal = self.journal
        except ConfigError as error:
            with self._kept_lock:
                if not self._unjournalled:
                    logger.error(
                        "cannot journal turns for capture: %s. Turns are kept in memory until "
                        "it is fixed (lost if the process ends first)",
                        error.message,
                    )
                self._unjournalled.append(record)
            return False
        if self._unjournalled:
            with self._kept_lock:  # one thread writes them, each once
                while self._unjournalled:
                    journal.write(self._unjournalled[0])
                    self._unjournalled.popleft()
        journal.write(record)
        return True

    def _journal_kept_turns(self) -> None:
        """At a close or an exit: a last try to journal the turns kept in memory (the next
        start captures them), else say how many are lost."""
        if not self._unjournalled:
            return
        with contextlib.suppress(OSError):
            self.journal_turn(self._unjournalled.pop())  # journals those before it first
        if self._unjournalled:
            logger.error(
                "%d turns were never journalled and are lost: journal_path cannot be used",
                len(self._unjournalled),
            )

    def take_unjournalled(self) -> list[TurnRecord]:
        """The turns kept for the journal, handed over (to be captured from memory)."""
        with self._kept_lock:
            taken = list(self._unjournalled)
            self._unjournalled.clear()
        return taken

    @property
    def worker(self) -> CaptureWorker:
        with self._build_lock:
            if self._worker is None:
                extractor = self._extractor or default_extractor(self.settings)
                capture_filter = CaptureFilter(self.settings, CaptureCounts(self.journal.directory))
                self._worker = CaptureWorker(
                    self.journal,
                    CapturePipeline(self.service, extractor, capture_filter),
                    CapturePipeline(self.service, RuleExtractor(), capture_filter),
                    self.settings,
                )
                self._worker.start()
            return self._worker

    def close(self) -> None:
        """Flush and stop the worker, release the service; the plugin can be configured again.
        A start under way is waited for first (bounded), so nothing is built after the close."""
        self.wait_for_start()
        self._journal_kept_turns()
        with self._build_lock:
            worker, service, pool = self._worker, self._service, self._recall_pool
            self._worker = self._journal = self._service = self._recall_pool = None
            steps: list[Callable[[], object]] = []
            if worker is not None:
                timeout = self.settings.flush_timeout_seconds
                steps += [lambda: worker.flush(timeout), worker.stop]
            if pool is not None:
                steps.append(lambda: pool.shutdown(wait=False))
            if service is not None:
                steps.append(service.close)
            for step in steps:
                try:
                    step()
                except Exception as error:  # a store gone at the last write: the host goes on
                    logger.error("closing tinmem: %s", describe_failure(error))

    def start_worker(self) -> None:
        """Wake the capture worker, building it (and the service it writes through) in the
        background first: a hook never waits for a store to open, on a slow disk or an object
        store that does not answer."""
        with self._pool_lock:
            worker = self._worker
            if worker is None:
                if self._starting is None:  # the first start: an exit waits for it
                    at_exit(weakref.WeakMethod(self._finish_at_exit))
                if self._starting is None or not self._starting.is_alive():
                    self._starting = threading.Thread(
                        target=self._start_now, name="tinmem-start", daemon=True
                    )
                    self._starting.start()
                return
        worker.notify()

    def wait_for_start(self) -> None:
        """Wait at most ``flush_timeout_seconds`` for a start under way (``start_worker``,
        which runs only once the settings are loaded)."""
        starting = self._starting
        if starting is not None and self._settings is not None:
            starting.join(self._settings.flush_timeout_seconds)

    def _finish_at_exit(self) -> None:
        """A host that exits without closing the plugin: the start under way finishes
        (bounded; native code must not run on while the interpreter tears down) and the
        worker stops after its turn, the rest journalled."""
        self.wait_for_start()
        self._journal_kept_turns()
        worker = self._worker
        if worker is not None:
            worker.stop_at_exit()

    def _start_now(self) -> None:
        try:
            self.worker.notify()  # starts the worker; replays turns a crash left behind
        except Exception:
            logger.exception("could not start the memory capture worker")

    @property
    def recall_pool(self) -> ThreadPoolExecutor:
        with self._pool_lock:  # not the build lock: a recall never waits for a build
            if self._recall_pool is None:
                self._recall_pool = ThreadPoolExecutor(2, thread_name_prefix="tinmem-recall")
            return self._recall_pool
