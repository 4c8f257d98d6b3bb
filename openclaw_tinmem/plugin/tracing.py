"""``TINMEM_TRACE=1``: every hook call of every plugin, with its arguments, result and time.

Built on pluggy's ``add_hookcall_monitoring`` (datasette's ``DATASETTE_TRACE_PLUGINS`` is the
model). Lines go to standard error, or to ``stream`` when one is given.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

import pluggy

from openclaw_tinmem.config.loading import switched_on
from openclaw_tinmem.locations import TRACE_VARIABLE

VALUE_CHARACTERS = 80


def tracing_requested(environ: Mapping[str, str] | None = None) -> bool:
    return switched_on(TRACE_VARIABLE, environ)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= VALUE_CHARACTERS else text[: VALUE_CHARACTERS - 1] + "…"


def trace_hook_calls(manager: pluggy.PluginManager, stream: TextIO | None = None) -> None:
    """Print each hook call: the plugins it reaches, its arguments, its result or error."""
    started = threading.local()

    def write(line: str) -> None:
        print(f"[tinmem trace] {line}", file=stream or sys.stderr, flush=True)

    def before(
        hook_name: str, hook_impls: Sequence[pluggy.HookImpl], kwargs: Mapping[str, Any]
    ) -> None:
        stack = started.__dict__.setdefault("stack", [])
        stack.append(time.perf_counter())
        plugins = ", ".join(impl.plugin_name for impl in hook_impls) or "no plugin"
        arguments = ", ".join(f"{name}={_short(value)}" for name, value in kwargs.items())
        write(f"{hook_name} -> {plugins} ({arguments})")

    def after(
        outcome: pluggy.Result[Any],
        hook_name: str,
        hook_impls: Sequence[pluggy.HookImpl],
        kwargs: Mapping[str, Any],
    ) -> None:
        elapsed = (time.perf_counter() - started.stack.pop()) * 1000
        error = outcome.exception
        result = f"raised {error!r}" if error else f"returned {_short(outcome.get_result())}"
        write(f"{hook_name} {result} in {elapsed:.1f} ms")

    manager.add_hookcall_monitoring(before, after)
