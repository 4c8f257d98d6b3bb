"""A short GIL switch interval while the host's thread journals a turn.

``agent_end`` must return within a few milliseconds, but writing the turn durably takes
five system calls, and each releases the GIL. When the capture worker holds the GIL on
coming back (it runs Python while it stores earlier turns), the host's thread waits for
the interpreter's switch interval, 5 ms by default, before it may ask for it back; over
five calls that was the slow tail of ``agent_end`` when turns end back to back.

``urgent()`` lowers the interval to ``URGENT_SWITCH_SECONDS`` while the write runs, and
puts the host's own interval back when the last thread leaves. Only these milliseconds run
with the short interval; the worker then hands the GIL over sooner, which is the point.
"""

from __future__ import annotations

import sys
from contextlib import AbstractContextManager

from openclaw_tinmem.process.overrides import ProcessOverride

URGENT_SWITCH_SECONDS = 0.0005


def _shorten() -> float:
    """Lower the switch interval (never raise one the host set shorter); the host's before."""
    saved = sys.getswitchinterval()
    if saved > URGENT_SWITCH_SECONDS:
        sys.setswitchinterval(URGENT_SWITCH_SECONDS)
    return saved


_short_interval = ProcessOverride(_shorten, sys.setswitchinterval)


def urgent() -> AbstractContextManager[None]:
    """Run the block with a short switch interval (nestable, thread-safe)."""
    return _short_interval.held()
