"""The workspace memory's commands: tree, read, write and search as the tools do, and the
administrator's JSONL export and import of its files."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from openclaw_tinmem.cli.app import (
    JSON_HELP,
    CliState,
    console,
    emit_json,
    friendly_errors,
    main,
    progress_bar,
    run_tool,
)

if TYPE_CHECKING:
    from openclaw_tinmem.workspace.store import WorkspaceStore


@main.group()
def workspace() -> None:
    """Browse and edit the workspace memory (MEMORY.md, daily logs, notes)."""


@workspace.command("tree")
@click.argument("path", default="")
@click.option(
    "--depth",
    default=2,
    show_default=True,
    type=click.IntRange(1, 10),
    help="Levels to show, from 1 to 10.",
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
@click.option(
    "--limit", default=5, show_default=True, type=click.IntRange(1, 20), help="Maximum results."
)
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
@click.pass_obj
def workspace_search(state: CliState, query: str, limit: int, as_json: bool) -> None:
    """Hybrid search over the workspace files."""
    run_tool(state, "memory_search", {"query": query, "limit": limit}, as_json)


def workspace_store(state: CliState) -> WorkspaceStore:
    """The workspace tables of the configured store."""
    from openclaw_tinmem.access import default_workspace_scope
    from openclaw_tinmem.workspace.store import WorkspaceStore

    service = state.service
    legacy = default_workspace_scope(service.settings.workspace_scope)
    return WorkspaceStore(service.store, service.embedder, legacy)


@workspace.command("export")
@click.argument("output", type=click.Path(dir_okay=False, allow_dash=True), default="-")
@click.option(
    "--scope",
    "scopes",
    multiple=True,
    help="Only this workspace, such as agent:main (repeatable; default: every workspace).",
)
@click.pass_obj
def workspace_export(state: CliState, output: str, scopes: tuple[str, ...]) -> None:
    """Write workspace files as JSONL (to OUTPUT, or stdout by default), a line a file:
    scope, path, content, created_at, updated_at."""
    state.require_administrator("workspace export")
    from openclaw_tinmem import maintenance
    from openclaw_tinmem.models import validate_scope
    from openclaw_tinmem.workspace.transfer import export_files

    with friendly_errors():
        for scope in scopes:
            validate_scope(scope)
        records = export_files(workspace_store(state), list(scopes) or None)
        if output == "-":
            count = maintenance.write_jsonl(records, sys.stdout)
        else:
            count = maintenance.write_jsonl_file(records, Path(output))
    console().print(f"Exported {count} workspace files.")


@workspace.command("import")
@click.argument("source", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.option(
    "--skip-invalid",
    is_flag=True,
    help="Write the valid lines and report the invalid ones (default: write nothing if any "
    "line is invalid).",
)
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
@click.pass_obj
def workspace_import(state: CliState, source: str, skip_invalid: bool, as_json: bool) -> None:
    """Write the files of a workspace export (JSONL) into their workspaces.

    Every line is checked first and every invalid one reported (line, field, reason); nothing
    is written then unless --skip-invalid. A file already stored with that content is left as
    it is; a new file keeps the line's times; a file with other content is replaced.
    """
    state.require_administrator("workspace import")
    from openclaw_tinmem.redaction import REDACTED
    from openclaw_tinmem.text import lines_of
    from openclaw_tinmem.workspace.transfer import import_files

    with friendly_errors():
        stream = sys.stdin if source == "-" else open(source, encoding="utf-8")  # noqa: SIM115
        with stream:
            lines = lines_of(stream.read().removeprefix("\ufeff"))
        with progress_bar("Importing") as bar:
            task = bar.add_task("import", total=sum(1 for line in lines if line.strip()))
            report = import_files(
                workspace_store(state),
                lines,
                skip_invalid=skip_invalid,
                progress=lambda count: bar.advance(task, count),
            )
    problems = [problem.message for problem in report.problems]
    if as_json:
        emit_json(
            {
                "imported": report.imported,
                "unchanged": report.unchanged,
                "invalid": problems,
                "redacted": report.redacted,
            }
        )
        return
    click.echo(f"Imported {report.imported} workspace files; {report.unchanged} unchanged.")
    if report.redacted:
        click.echo(f"{report.redacted} secret(s) replaced by {REDACTED} before storing.")
    for problem in problems:
        click.echo(f"skipped: {problem}", err=True)
