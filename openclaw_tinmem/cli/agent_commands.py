"""Agent-facing commands: demo, mcp, workspace, tool."""

from __future__ import annotations

import json
import sys

import click

from openclaw_tinmem.cli.app import (
    EXIT_INVALID,
    JSON_HELP,
    CliState,
    emit_json,
    friendly_errors,
    main,
    run_tool,
)  # fmt: skip


@main.command()
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False),
    help="Keep the demo store here (default: a new temporary directory).",
)
@click.pass_obj
def demo(state: CliState, directory: str | None) -> None:
    """Run a scripted two-session conversation through the reference host and the plugin."""
    from openclaw_tinmem.plugin.demo import demo_settings, run_demo

    with friendly_errors():
        run_demo(demo_settings(state.settings, directory), click.echo)


@main.command()
@click.option(
    "--http",
    "http_port",
    type=int,
    default=None,
    help="Serve streamable HTTP on 127.0.0.1:PORT instead of stdio.",
)
@click.pass_obj
def mcp(state: CliState, http_port: int | None) -> None:
    """Serve every enabled tool over MCP (stdio by default) for any MCP client."""
    from openclaw_tinmem.tools.mcp import run

    with friendly_errors():
        run(state.settings, http_port=http_port)


@main.group()
def workspace() -> None:
    """Browse and edit the workspace memory (MEMORY.md, daily logs, notes)."""


@workspace.command("tree")
@click.argument("path", default="")
@click.option(
    "--depth", default=2, show_default=True, type=int, help="Levels to show, from 1 to 10."
)
@click.pass_obj
def workspace_tree(state: CliState, path: str, depth: int) -> None:
    """Show the workspace as a tree."""
    run_tool(state, "memory_tree", {"path": path, "depth": depth}, as_json=False)


@workspace.command("read")
@click.argument("path")
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
@click.pass_obj
def workspace_read(state: CliState, path: str, as_json: bool) -> None:
    """Print one workspace file."""
    run_tool(state, "memory_read", {"path": path}, as_json)


@workspace.command("write")
@click.argument("content")
@click.option(
    "--target",
    default="daily_log",
    show_default=True,
    help="memory, daily_log, heartbeat, or a path such as projects/alpha/notes.md",
)
@click.option("--replace", is_flag=True, help="Replace the file instead of appending.")
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
@click.pass_obj
def workspace_write(
    state: CliState, content: str, target: str, replace: bool, as_json: bool
) -> None:
    """Append to (or replace) a workspace file."""
    run_tool(
        state,
        "memory_write",
        {"content": content, "target": target, "append": not replace},
        as_json,
    )


@workspace.command("search")
@click.argument("query")
@click.option("--limit", default=5, show_default=True, type=int, help="Maximum results.")
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
@click.pass_obj
def workspace_search(state: CliState, query: str, limit: int, as_json: bool) -> None:
    """Hybrid search over the workspace files."""
    run_tool(state, "memory_search", {"query": query, "limit": limit}, as_json)


@main.command()
@click.argument("name")
@click.argument("arguments", default="{}")
@click.pass_obj
def tool(state: CliState, name: str, arguments: str) -> None:
    """Run one tool call: prints exactly one JSON object; exit 2 on invalid input or missing id."""
    try:
        parsed = json.loads(arguments)
    except json.JSONDecodeError as error:
        emit_json(
            {
                "error": {
                    "type": "invalid_argument",
                    "message": f"ARGUMENTS is not valid JSON: {error.msg}",
                    "field": None,
                }
            }
        )
        sys.exit(EXIT_INVALID)
    run_tool(state, name, parsed, as_json=True)
