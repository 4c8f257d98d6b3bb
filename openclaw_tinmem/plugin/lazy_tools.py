"""Tool handlers that build the service on their first call, not when the host registers them.

A host registers tools at start-up; building the service then would load models and open the
store before any tool is used. Every handler answers with a ``ToolResult`` (an error the
agent can read when memory is unavailable), never an exception.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Awaitable, Callable
from typing import Any

from openclaw_tinmem.access import Identity
from openclaw_tinmem.errors import TinmemError, describe_failure
from openclaw_tinmem.events import HookContext, ToolResult
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.tools.toolbox import Toolbox, build_toolbox

logger = logging.getLogger("openclaw_tinmem")


class LazyToolbox:
    """Tool handlers that build the service on their first call, not at registration."""

    def __init__(self, service: Callable[[], MemoryService]) -> None:
        self.service = service
        self._toolbox: Toolbox | None = None
        self._built_for: MemoryService | None = None
        self._lock = threading.Lock()

    def toolbox(self) -> Toolbox:
        """The tools of the plugin's current service: built again when the plugin was closed
        (and perhaps configured anew) since, so no tool works on a closed store."""
        with self._lock:  # concurrent first calls (a bridge serves several) build it once
            if self._toolbox is None or self._built_for is None or self._built_for.closed:
                service = self.service()
                self._toolbox, self._built_for = build_toolbox(service), service
            return self._toolbox

    def handler(self, name: str) -> Callable[[Any, HookContext | None], ToolResult]:
        """Runs the tool for the agent the host's context names (``main`` without one)."""

        def call(arguments: Any, ctx: HookContext | None = None) -> ToolResult:
            try:
                toolbox = self.toolbox()
            except TinmemError as error:  # a broken configuration, a model that will not load
                return ToolResult({"error": error.to_dict()}, f"Error: {error.message}")
            except Exception as error:  # the host must never see an exception from a tool
                logger.exception("memory tools unavailable")
                message = f"memory is unavailable: {describe_failure(error)}"
                details = {"type": "unavailable", "message": message}
                return ToolResult({"error": details}, f"Error: {details['message']}")
            if isinstance(ctx, dict):  # a host that passes its context as plain data
                ctx = HookContext.from_host(ctx)
            elif ctx is not None and not isinstance(ctx, HookContext):
                message = f"context must be a hook context or an object, not {type(ctx).__name__}"
                details = {"type": "invalid_argument", "message": message}
                return ToolResult({"error": details}, f"Error: {message}")
            return toolbox.call(name, arguments, Identity.from_context(ctx))

        return call

    def async_handler(
        self, name: str
    ) -> Callable[[Any, HookContext | None], Awaitable[ToolResult]]:
        async def call(arguments: Any, ctx: HookContext | None = None) -> ToolResult:
            return await asyncio.to_thread(self.handler(name), arguments, ctx)

        return call
