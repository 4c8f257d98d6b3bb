"""Matrix products on the calling thread only.

numpy hands a large enough product to its BLAS library (OpenBLAS in numpy's wheels), which
splits it over every core and then keeps its helper threads spinning, waiting for more
work, for about a tenth of a second. Inside an agent's host that is a core taken from the
agent after every recall and every captured turn: on a 2-core machine, one late-interaction
scoring at 10,000 memories took 1.6 ms and then burned about 100 ms of the other core
(docs/benchmarks.md, "BLAS threads that spin").

tinmem's products are small, so it runs them on one thread: ``single_threaded()`` lowers
the BLAS libraries' thread count for the products inside it (through ``threadpoolctl``)
and restores it when the last of tinmem's threads leaves. A host's own numpy work keeps
its threads, except while one of tinmem's products runs at the same moment.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import numpy as np
import numpy.typing as npt

from openclaw_tinmem.process.overrides import ProcessOverride

logger = logging.getLogger("openclaw_tinmem")

Restorers = list[tuple[Callable[[int], Any], int]]  # (a library's setter, its thread count)
_libraries: list[Any] | None = None  # the BLAS libraries loaded, found once


def _blas_libraries() -> list[Any]:
    global _libraries
    if _libraries is None:
        try:
            from threadpoolctl import ThreadpoolController

            _libraries = list(ThreadpoolController().select(user_api="blas").lib_controllers)
        except Exception:  # an unusual platform: products keep BLAS's own threads
            logger.debug("threadpoolctl could not inspect the BLAS libraries", exc_info=True)
            _libraries = []
    return _libraries


def _setter(library: Any) -> Callable[[int], Any]:
    # Recent threadpoolctl (3.8 here) lets only the first thread that limited OpenBLAS change
    # it again while that thread lives; tinmem changes it from whichever thread runs a
    # product, and counts those threads itself (overrides.py), so it calls the library's own
    # setter.
    return getattr(library, "_real_set_num_threads", library.set_num_threads)  # type: ignore[no-any-return]


def _lower() -> Restorers:
    saved: Restorers = []
    try:
        for library in _blas_libraries():
            count = library.get_num_threads()
            if count is not None and count > 1:
                setter = _setter(library)
                setter(1)
                saved.append((setter, count))
    except Exception:  # never fail a recall over this: the product keeps BLAS's threads
        logger.debug("could not lower the BLAS thread count", exc_info=True)
    return saved


def _restore(saved: Restorers) -> None:
    for setter, count in reversed(saved):
        try:
            setter(count)
        except Exception:
            logger.debug("could not restore the BLAS thread count", exc_info=True)


_one_thread = ProcessOverride(_lower, _restore)


def single_threaded() -> AbstractContextManager[None]:
    """Matrix products inside run on the calling thread (nestable, thread-safe)."""
    return _one_thread.held()


def matrix_vector(
    matrix: npt.NDArray[np.float32], vector: npt.NDArray[np.float32]
) -> npt.NDArray[np.float32]:
    """``matrix @ vector`` without BLAS: numpy's own vectorised loop, on this thread, was as
    fast as OpenBLAS's single-threaded product at 2,000 to 50,000 rows of 384 dimensions."""
    product: npt.NDArray[np.float32] = np.einsum("ij,j->i", matrix, vector)
    return product
