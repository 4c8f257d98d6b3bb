"""The toolbox: one dispatch for every tool, used by the plugin, the CLI and the MCP server.

``Toolbox.call`` never raises: invalid input, missing ids and internal failures all come back
as a ``ToolResult`` whose ``data`` holds an ``error`` object (type, message, field).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from openclaw_tinmem.access import Identity
from openclaw_tinmem.errors import TinmemError, UnknownToolError, describe_failure
from openclaw_tinmem.events import ToolResult
from openclaw_tinmem.tools.arguments import parse_arguments
from openclaw_tinmem.tools.definitions import (
    Handler,
    ToolDefinition,
    enabled_sets,
    tool_definitions,
)

if TYPE_CHECKING:
    from openclaw_tinmem.config import Settings
    from openclaw_tinmem.service import MemoryService

logger = logging.getLogger("openclaw_tinmem")


class Toolbox:
    """Tools by name, each a definition and the handler that runs it.

    Every call runs for an identity: the one given to ``call``, else the toolbox's own (an
    agent for the plugin, the flags or token for MCP, the administrator for the CLI).
    """

    def __init__(
        self,
        tools: Iterable[tuple[ToolDefinition, Handler]] = (),
        *,
        identity: Identity | None = None,
    ) -> None:
        self.tools: dict[str, tuple[ToolDefinition, Handler]] = {}
        self.identity = identity or Identity()
        self.extend(tools)

    def names(self) -> list[str]:
        return list(self.tools)

    def definitions(self) -> list[ToolDefinition]:
        return [definition for definition, _ in self.tools.values()]

    def openai_tools(self) -> list[dict[str, Any]]:
        return [definition.openai_schema() for definition in self.definitions()]

    def extend(self, tools: Iterable[tuple[ToolDefinition, Handler]]) -> None:
        """Add tools (a host's own, say) to this toolbox."""
        for definition, handler in tools:
            self.tools[definition.name] = (definition, handler)

    def call(self, name: str, arguments: Any, identity: Identity | None = None) -> ToolResult:
        """Run one tool call; every failure becomes an error result, never an exception."""
        entry = self.tools.get(name)
        if entry is None:
            unknown = UnknownToolError.naming(name, self.tools)
            return ToolResult({"error": unknown.to_dict()}, f"Error: {unknown.message}")
        try:
            definition, handler = entry
            return handler(
                parse_arguments(definition.arguments, arguments), identity or self.identity
            )
        except TinmemError as error:
            return ToolResult({"error": error.to_dict()}, f"Error: {error.message}")
        except Exception as error:  # the host must never see an exception from a tool
            logger.exception("tool %s failed", name)
            details = {"type": "internal_error", "message": describe_failure(error)}
            return ToolResult({"error": details}, f"Error: {details['message']}")

    async def acall(
        self, name: str, arguments: Any, identity: Identity | None = None
    ) -> ToolResult:
        """``call`` for async hosts: runs in a worker thread so the event loop never blocks."""
        return await asyncio.to_thread(self.call, name, arguments, identity)


def build_toolbox(service: MemoryService, *, identity: Identity | None = None) -> Toolbox:
    """The tools the configuration asks for (``tool_sets``), bound to ``service``, acting for
    ``identity`` unless a call names another (the default agent, ``main``, for None)."""
    from openclaw_tinmem.tools.memory import MemoryTools
    from openclaw_tinmem.tools.workspace import WorkspaceTools

    toolbox = Toolbox(identity=identity)
    settings = service.settings
    for tool_set in enabled_sets(settings.tool_sets, settings.history_tool):
        if tool_set == "tinmem":
            toolbox.extend(MemoryTools(service).handlers())
        elif tool_set == "workspace":
            toolbox.extend(WorkspaceTools(service).handlers())
        else:
            toolbox.extend(MemoryTools(service).history_handlers())
    return toolbox


def unavailable_toolbox(
    settings: Settings, error: TinmemError, *, identity: Identity | None = None
) -> Toolbox:
    """The configured tools, each answering with ``error``: a server whose store cannot be
    opened still starts, lists its tools and says why on every call, as the plugin does."""

    def refuse(arguments: Any, caller: Identity) -> ToolResult:
        return ToolResult({"error": error.to_dict()}, f"Error: {error.message}")

    offered = tool_definitions(settings.tool_sets, settings.history_tool)
    return Toolbox([(definition, refuse) for definition in offered], identity=identity)
