"""The capture worker's thread below the host's: on a busy machine the agent runs first."""

from __future__ import annotations

import os
import threading

# How much lower than the host's threads the capture worker runs (Linux thread niceness).
WORKER_NICENESS = 10


def yield_to_the_host() -> None:
    """Lower the calling thread's scheduling priority, so that on a busy machine the agent's
    own threads run first and capture takes the time that is left. Linux only (elsewhere a
    no-op); the niceness applies to this thread, not to the process."""
    try:
        thread = threading.get_native_id()
        os.setpriority(
            os.PRIO_PROCESS, thread, os.getpriority(os.PRIO_PROCESS, thread) + WORKER_NICENESS
        )
    except (AttributeError, OSError):  # not Linux, or not permitted
        pass
