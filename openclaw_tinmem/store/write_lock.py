"""The store's write lock: threads of one process by an RLock, processes by a lock file."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from filelock import FileLock, Timeout

from openclaw_tinmem.errors import StoreError

LOCK_FILE_NAME = ".tinmem-write.lock"


class WriteLock:
    """Re-entrant across the threads of a process, exclusive across processes.

    ``directory`` None (a remote store) leaves processes unserialised. ``on_acquire`` runs
    each time a thread takes the outermost lock.
    """

    def __init__(
        self, directory: Path | None, timeout_seconds: float, on_acquire: Callable[[], None]
    ) -> None:
        self._thread_lock = threading.RLock()
        self._file_lock = FileLock(str(directory / LOCK_FILE_NAME)) if directory else None
        self._timeout_seconds = timeout_seconds
        self._on_acquire = on_acquire
        self._depth = 0
        self._holder: int | None = None

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        with self._thread_lock:
            self._depth += 1
            try:
                if self._depth == 1:
                    with self._acquire_file_lock():
                        self._on_acquire()
                        self._holder = threading.get_ident()
                        try:
                            yield
                        finally:
                            self._holder = None
                else:
                    yield
            finally:
                self._depth -= 1

    def held_by_another_thread(self) -> bool:
        """True while a different thread of this process holds the lock."""
        return self._holder not in (None, threading.get_ident())

    @contextlib.contextmanager
    def _acquire_file_lock(self) -> Iterator[None]:
        if self._file_lock is None:
            yield
            return
        try:
            with self._file_lock.acquire(timeout=self._timeout_seconds):
                yield
        except Timeout as error:
            raise StoreError(
                f"timed out after {self._timeout_seconds}s waiting for the write lock "
                f"{self._file_lock.lock_file}; another process is writing"
            ) from error
