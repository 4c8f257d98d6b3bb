"""``tinmem mcp``: every enabled tool over the Model Context Protocol (official ``mcp`` SDK).

Tools are listed with their JSON Schemas and descriptions; each call runs through the same
``Toolbox`` as the plugin and the CLI, in a worker thread so the server's event loop never
blocks. Invalid input comes back as a tool error (``is_error``) with the same clear message.
"""

from __future__ import annotations

import json
from typing import Any

import anyio

from openclaw_tinmem.config import Settings
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.tools.toolbox import Toolbox, build_toolbox

SERVER_NAME = "openclaw-tinmem"
DEFAULT_HTTP_PORT = 8765


def build_server(toolbox: Toolbox) -> Any:
    """A low-level MCP server whose tools are the toolbox's tools."""
    import mcp_types as types
    from mcp.server.lowlevel import Server

    from openclaw_tinmem import __version__

    async def list_tools(context: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=[
            types.Tool(name=definition.name, description=definition.description,
                       input_schema=definition.parameters())
            for definition in toolbox.definitions()
        ])  # fmt: skip

    async def call_tool(context: Any, params: Any) -> Any:
        result = await toolbox.acall(params.name, params.arguments or {})
        payload = json.dumps(result.data, ensure_ascii=False, default=str)
        structured = result.data if isinstance(result.data, dict) else {"result": result.data}
        return types.CallToolResult(
            content=[types.TextContent(text=payload)],
            structured_content=structured,
            is_error=result.is_error,
        )

    instructions = (
        "Persistent memory: recall, store, forget and update memories; "
        "search, write, read and browse workspace files."
    )
    return Server(SERVER_NAME, version=__version__, instructions=instructions,
                  on_list_tools=list_tools, on_call_tool=call_tool)  # fmt: skip


async def serve_stdio(toolbox: Toolbox) -> None:
    from mcp.server.stdio import stdio_server

    server = build_server(toolbox)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def serve_http(toolbox: Toolbox, port: int) -> None:
    """Streamable HTTP on 127.0.0.1 only."""
    import uvicorn

    server = build_server(toolbox)
    uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=port, log_level="warning")


def run(settings: Settings, *, http_port: int | None = None) -> None:
    service = MemoryService.from_settings(settings)
    try:
        toolbox = build_toolbox(service)
        if http_port is None:
            anyio.run(serve_stdio, toolbox)
        else:
            serve_http(toolbox, http_port)
    finally:
        service.close()
