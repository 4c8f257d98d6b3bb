"""Commands on memories: list, search, store, update, forget."""

from __future__ import annotations

import sys
from datetime import datetime
from typing import Any

import click

from openclaw_tinmem.categories import Category, Level
from openclaw_tinmem.cli.app import (
    CATEGORY_CHOICE,
    EXIT_FAILED,
    JSON_HELP,
    CliState,
    emit_json,
    friendly_errors,
    main,
    run_tool,
    say,
)
from openclaw_tinmem.errors import InvalidArgumentError
from openclaw_tinmem.text import terminal_safe


@main.command("list")
@click.option("--scope", "scopes", multiple=True, help="Only these scopes (repeatable).")
@click.option(
    "--category", "categories", multiple=True, type=CATEGORY_CHOICE, help="Only these categories."
)
@click.option(
    "--tag",
    "tags",
    multiple=True,
    help="Only memories with this tag (repeatable; 'instruction': the standing instructions).",
)
@click.option(
    "--limit", default=50, show_default=True, type=click.IntRange(1), help="Most recent N memories."
)
@click.option("--wide", is_flag=True, help="Show full ids (by default their first 8 characters).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per line.")
@click.pass_obj
def list_command(
    state: CliState,
    scopes: tuple[str, ...],
    categories: tuple[str, ...],
    tags: tuple[str, ...],
    limit: int,
    wide: bool,
    as_json: bool,
) -> None:
    """List stored memories, most recently updated first.

    Ids are shown by their first 8 characters, which every command that takes an id accepts
    (an ambiguous prefix is an error listing the matches); --wide or --json show them whole.
    """
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    with friendly_errors():
        memories = state.service.list_memories(
            scopes=list(scopes) or None,
            categories=[Category(c) for c in categories] or None,
            tags=list(tags),
            limit=limit,
            identity=state.identity,
        )
    if as_json:
        for memory in memories:
            emit_json(memory.public_dict())
        return
    table = Table("id", "scope", "category", "headline", "importance", "updated")
    table.columns[0].no_wrap = True
    for memory in memories:
        table.add_row(
            memory.id if wide else memory.id[:8],
            memory.scope,
            memory.category.value,
            Text(terminal_safe(memory.headline)),  # shown as written, never as markup
            f"{memory.importance:.2f}",
            memory.updated_at.strftime("%Y-%m-%d %H:%M"),
        )
    Console(width=max(200, Console().width) if wide else None).print(table)


@main.command()
@click.argument("memory_id")
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
@click.pass_obj
def show(state: CliState, memory_id: str, as_json: bool) -> None:
    """Show one memory whole: its three levels, where it came from, its statistics.

    MEMORY_ID is the id or its first 8 or more characters."""
    with friendly_errors():
        memory = state.service.get(memory_id, identity=state.identity)
    record = memory.public_dict()
    if as_json:
        emit_json(record)
        return
    for name in (
        "id",
        "scope",
        "category",
        "importance",
        "tags",
        "source",
        "source_ref",
        "created_at",
        "updated_at",
        "access_count",
        "last_accessed_at",
    ):
        say(f"{name}: {record[name]}")
    for name, value in memory.provenance.public_dict().items():
        shown = ", ".join(value) if isinstance(value, list) else value
        say(f"{name.replace('_', ' ')}: {shown}")
    say(f"\nL0 headline:\n  {memory.headline}\nL1 summary:\n  {memory.summary}")
    say(f"L2 content:\n  {memory.content}")
    if memory.context:
        say(f"context (what it answered):\n  {memory.context}")


@main.command()
@click.argument("query")
@click.option(
    "--scope",
    "scopes",
    multiple=True,
    help="Scopes to search (repeatable; default: every scope the caller may read).",
)
@click.option(
    "--category", "categories", multiple=True, type=CATEGORY_CHOICE, help="Only these categories."
)
@click.option(
    "--limit", default=10, show_default=True, type=click.IntRange(1, 100), help="Maximum results."
)
@click.option(
    "--level",
    type=click.Choice(["L0", "L1", "L2"]),
    default="L1",
    show_default=True,
    help="Detail shown: L0 headline, L1 summary, L2 full content.",
)
@click.option(
    "--rerank/--no-rerank", default=None, help="Override the configured cross-encoder setting."
)
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
        if not query.strip():
            raise InvalidArgumentError(
                "QUERY must not be empty: say what to look for", field="query"
            )
        hits = state.service.recall(
            query,
            scopes=list(scopes) or None,
            limit=limit,
            rerank=rerank,
            categories=[Category(c) for c in categories] or None,
            identity=state.identity,
            instructions=True,
        )
    results = [hit.to_dict(Level(level)) for hit in hits]
    if as_json:
        emit_json({"query": query, "results": results})
        return
    for result in results:
        where = f"({result['id']}, {result['match']})"
        say(f"{result['score']:.3f}  [{result['category']}] {result['text']}  {where}")
    if not results:
        say("No matching memories.")


@main.command()
@click.argument("content")
@click.option(
    "--category",
    required=True,
    type=CATEGORY_CHOICE,
    help="What kind of memory; it decides how similar memories are merged.",
)
@click.option("--scope", help="Memory namespace (default: store_scope, global).")
@click.option("--importance", default=0.5, show_default=True, type=float, help="From 0 to 1.")
@click.option("--tag", "tags", multiple=True, help="A tag (repeatable).")
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
@click.pass_obj
def store(
    state: CliState,
    content: str,
    category: str,
    scope: str | None,
    importance: float,
    tags: tuple[str, ...],
    as_json: bool,
) -> None:
    """Store a memory (the same path as memory_store)."""
    arguments: dict[str, Any] = {"content": content, "category": category, "importance": importance}
    if scope:
        arguments["scope"] = scope
    if tags:
        arguments["tags"] = list(tags)
    run_tool(state, "memory_store", arguments, as_json)


@main.command()
@click.argument("memory_id")
@click.option("--content", help="New full content (L2).")
@click.option("--summary", help="New summary (L1).")
@click.option("--headline", help="New headline (L0).")
@click.option("--importance", type=float, help="New importance, from 0 to 1.")
@click.option("--tag", "tags", multiple=True, help="Replace the tags (repeatable).")
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
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
@click.option("--scope", "scopes", multiple=True, help="Only in this scope (repeatable).")
@click.option(
    "--category",
    "categories",
    multiple=True,
    type=CATEGORY_CHOICE,
    help="Only in these categories (repeatable).",
)
@click.option(
    "--before",
    type=click.DateTime(formats=["%Y-%m-%d", "%Y-%m-%dT%H:%M:%S"]),
    help="Without an id or --query: every memory last updated before this date (UTC).",
)
@click.option("--tag", "tags", multiple=True, help="Without an id or --query: only with this tag.")
@click.option("--dry-run", is_flag=True, help="Show what would be deleted; delete nothing.")
@click.option("--yes", is_flag=True, help="Delete in bulk without asking for confirmation.")
@click.option(
    "--purge",
    is_flag=True,
    help="Also remove the deleted memories from the table's older versions now (for privacy "
    "requests; otherwise they go after version_retention_seconds).",
)
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
@click.pass_obj
def forget(
    state: CliState,
    memory_id: str | None,
    query: str | None,
    scopes: tuple[str, ...],
    categories: tuple[str, ...],
    before: datetime | None,
    tags: tuple[str, ...],
    dry_run: bool,
    yes: bool,
    purge: bool,
    as_json: bool,
) -> None:
    """Delete a memory by id, confident matches of --query (the path of memory_forget), or —
    with neither — every memory that matches --scope/--category/--before/--tag.

    A bulk deletion asks for confirmation unless --yes; --dry-run lists what would go."""
    filtered = bool(scopes or categories or before or tags)
    if memory_id is None and query is None and filtered:
        forget_in_bulk(state, scopes, categories, before, tags, dry_run, yes, purge, as_json)
        return
    with friendly_errors():
        if memory_id is None and query is None:
            raise InvalidArgumentError(
                "give a memory id, --query, or filters (--scope, --category, --before, --tag)",
                field="id",
            )
        if before or tags:
            raise InvalidArgumentError(
                "--before and --tag choose memories in bulk: give them without an id or --query",
                field="before" if before else "tag",
            )
    arguments: dict[str, Any] = {
        "id": memory_id,
        "query": query,
        "scope": list(scopes) or None,
        "categories": list(categories) or None,
        "dry_run": dry_run or None,
    }
    present = {key: value for key, value in arguments.items() if value is not None}
    purging = purge and not dry_run
    data = run_tool(state, "memory_forget", present, as_json, emit=not purging)
    if purging:
        with friendly_errors():
            purged = state.service.store.purge(forgotten=data.get("deleted", []))
        if as_json:
            emit_json({**data, "purged": purged})
        say_purged(purged)


def forget_in_bulk(
    state: CliState,
    scopes: tuple[str, ...],
    categories: tuple[str, ...],
    before: datetime | None,
    tags: tuple[str, ...],
    dry_run: bool,
    yes: bool,
    purge: bool,
    as_json: bool,
) -> None:
    with friendly_errors():
        chosen = state.matching(scopes, categories, before, tags)
        if dry_run or not chosen:
            listing = [{"id": m.id, "scope": m.scope, "headline": m.headline} for m in chosen]
            if as_json:
                emit_json({"dry_run": dry_run, "would_delete": listing, "deleted": []})
            else:
                say(f"Would delete {len(chosen)} memories:" if dry_run else "Nothing matches.")
                for item in listing:
                    say(f"  {item['id'][:8]}  {item['scope']}  {item['headline']}")
            return
        if not yes:
            click.confirm(f"Delete {len(chosen)} memories?", abort=True)
        outcome = state.service.forget_many(chosen, purge=purge, identity=state.identity)
    if as_json:
        report: dict[str, Any] = {"deleted": [memory.id for memory in outcome.deleted]}
        emit_json({**report, "purged": outcome.purged} if purge else report)
    else:
        say(f"Deleted {len(outcome.deleted)} memories.")
    if purge:
        say_purged(outcome.purged)


def say_purged(purged: bool) -> None:
    """Whether a purge removed the deleted memories from older versions and history, on
    standard error (standard output may be JSON); exit status 1 when it could not."""
    if purged:
        say("Purged: neither older versions nor history hold deleted memories.", err=True)
        return
    say(
        "Deleted, not purged yet: another host is tidying the store (it holds the upkeep "
        "lease). Their history is gone; older versions drop them with that upkeep, within "
        "version_retention_seconds.",
        err=True,
    )
    sys.exit(EXIT_FAILED)


@main.command()
@click.argument("memory_id")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per event.")
@click.pass_obj
def history(state: CliState, memory_id: str, as_json: bool) -> None:
    """Every change of a memory, oldest first: created, merged, updated, forgotten, imported,
    restored — who acted, from where, and what it said before and after.

    MEMORY_ID is the id or its first 8 or more characters (a forgotten memory too)."""
    with friendly_errors():
        events = state.service.history(memory_id, identity=state.identity)
    for event in events:
        if as_json:
            emit_json(event.to_dict())
            continue
        text = " ".join(str((event.after or event.before or {}).get("content", "")).split())
        note = " ".join(event.note.split())  # one line each, however many the content has
        say(
            f"{event.event_id[:8]}  {event.at:%Y-%m-%d %H:%M:%S}  {event.action.value:<9}"
            f"  {event.actor} via {event.source}"
        )
        say(f"          {text[:100]}" + (f"  ({note[:80]})" if note else ""))


@main.command()
@click.argument("memory_id")
@click.option(
    "--to",
    "to_event",
    help="Restore the state right after this event (its id or first characters; see "
    "'tinmem history'). Default: undo the last change.",
)
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
@click.pass_obj
def restore(state: CliState, memory_id: str, to_event: str | None, as_json: bool) -> None:
    """Bring a forgotten or badly changed memory back from its history (re-embedded, and
    recorded as an event itself)."""
    with friendly_errors():
        memory = state.service.restore(memory_id, to_event=to_event, identity=state.identity)
    if as_json:
        emit_json(memory.public_dict())
    else:
        say(f"Restored {memory.id}: {memory.headline}")
