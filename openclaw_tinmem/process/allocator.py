"""Fewer malloc arenas in the long-running processes tinmem runs itself.

Upkeep compacts the table on Lance's worker threads, and glibc gives each thread a memory
arena of its own; what those threads free stays spread over the arenas, so a process that
runs for days grows by hundreds of megabytes it does not use (docs/benchmarks.md, "Where
that growth comes from"). Capping the arenas at two, as ``MALLOC_ARENA_MAX=2`` does, cut the
growth over 120 upkeeps from about 500 to 195 MB. ``tinmem bridge``, ``tinmem mcp`` and
``tinmem ui`` do it at start; the plugin inside someone else's host never changes its
allocator, and an explicit ``MALLOC_ARENA_MAX`` is always left alone.
"""

from __future__ import annotations

import ctypes
import os
import platform
import sys

M_ARENA_MAX = -8  # glibc's mallopt parameter number for the arena cap
ARENAS = 2


def limit_arenas(count: int = ARENAS) -> bool:
    """Cap glibc's malloc arenas at ``count`` for threads that start from now on; True if
    capped. Elsewhere (not Linux, not glibc, ``MALLOC_ARENA_MAX`` already set): nothing."""
    if sys.platform != "linux" or os.environ.get("MALLOC_ARENA_MAX"):
        return False
    if platform.libc_ver()[0] != "glibc":
        return False
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return False
    return bool(libc.mallopt(M_ARENA_MAX, count))
