"""A process-wide setting that tinmem changes only while one of its threads needs it.

Some settings belong to the whole process, the host's threads included: BLAS's thread count
(``encoders/blas.py``), the interpreter's switch interval (``capture/urgency.py``). tinmem
changes them around a few milliseconds of its own work and gives them back. When several of
its threads do that work at once, the first one in changes the setting and the last one out
restores what was there before, so no thread restores it under another that still needs it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

Saved = TypeVar("Saved")


class ProcessOverride(Generic[Saved]):
    """``apply()`` changes the setting and returns what ``restore(saved)`` puts back."""

    def __init__(self, apply: Callable[[], Saved], restore: Callable[[Saved], object]) -> None:
        self._apply = apply
        self._restore = restore
        self._lock = threading.Lock()
        self._depth = 0  # threads inside held() now
        self._saved: Saved | None = None

    @contextmanager
    def held(self) -> Iterator[None]:
        """The setting changed for the block (nestable, thread-safe)."""
        with self._lock:
            if self._depth == 0:
                self._saved = self._apply()
            self._depth += 1
        try:
            yield
        finally:
            with self._lock:
                self._depth -= 1
                if self._depth == 0:
                    saved, self._saved = self._saved, None
                    self._restore(saved)  # type: ignore[arg-type]
