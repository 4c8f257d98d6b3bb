"""Workspace files as JSONL, for a backup or a move to another store: ``tinmem workspace
export`` and ``tinmem workspace import``.

A line is one file: ``scope`` (its workspace), ``path``, ``content``, and ``created_at`` and
``updated_at`` (ISO 8601; optional on import). An import checks every line first and writes
nothing if one is invalid, unless told to skip those; a file stored with the same content is
left as it is, so importing twice writes nothing. A new file keeps the line's times, a changed
one is replaced and updated now. Secrets are redacted as ``memory_write`` redacts them, and
identity files are refused as the tools refuse them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from openclaw_tinmem.errors import InvalidArgumentError
from openclaw_tinmem.import_checks import check_times
from openclaw_tinmem.models import validate_scope
from openclaw_tinmem.redaction import count_redactions
from openclaw_tinmem.text import is_well_formed, json_kind, quoted
from openclaw_tinmem.workspace.paths import PROTECTED_FILES, clash, is_protected, normalise_path
from openclaw_tinmem.workspace.store import WorkspaceStore
from openclaw_tinmem.workspace.tables import rfc3339

FIELDS = ("scope", "path", "content", "created_at", "updated_at")
REQUIRED = ("scope", "path", "content")


@dataclass(frozen=True)
class FileLine:
    """One line of an import, read and checked."""

    number: int
    scope: str
    path: str
    content: str  # secrets redacted
    created_at: datetime | None
    updated_at: datetime | None
    redacted: int


@dataclass
class FileImport:
    """What an import did."""

    imported: int = 0
    unchanged: int = 0
    redacted: int = 0
    problems: list[InvalidArgumentError] = field(default_factory=list)


def export_files(
    workspace: WorkspaceStore, scopes: Sequence[str] | None = None
) -> Iterator[dict[str, Any]]:
    """Every file of the workspaces ``scopes`` (None: every workspace) as a JSON-ready record,
    by workspace and path."""
    for document in workspace.documents_in(scopes):
        yield {
            "scope": document.scope,
            "path": document.path,
            "content": document.content,
            "created_at": rfc3339(document.created_at),
            "updated_at": rfc3339(document.updated_at),
        }


def parse_file_line(line: str, number: int) -> FileLine:
    """One JSONL record as a file to write, or ``InvalidArgumentError`` naming the field."""
    try:
        record = json.loads(line)
    except json.JSONDecodeError as error:
        raise InvalidArgumentError(
            f"line {number}: not valid JSON ({error.msg})", field="line"
        ) from None
    if not isinstance(record, dict):
        raise InvalidArgumentError(
            f"line {number}: expected a JSON object, not {json_kind(record)}", field="line"
        )
    if unknown := [key for key in record if key not in FIELDS]:
        raise InvalidArgumentError(
            f"line {number}: unknown field {quoted(unknown[0])}; allowed: " + ", ".join(FIELDS),
            field=str(unknown[0]),
        )
    for key in REQUIRED:
        value = record.get(key)
        if not isinstance(value, str):
            wanted = "is required" if value is None else f"must be text, not {json_kind(value)}"
            raise InvalidArgumentError(f"line {number}: {key} {wanted}", field=key)
        if not is_well_formed(value):
            raise InvalidArgumentError(
                f"line {number}: {key} holds a lone surrogate (a broken \\u escape)", field=key
            )
    try:
        scope = validate_scope(record["scope"])
        path = normalise_path(record["path"])
    except InvalidArgumentError as error:
        raise InvalidArgumentError(f"line {number}: {error.message}", field=error.field) from None
    if is_protected(path):
        raise InvalidArgumentError(
            f"line {number}: {path} is an identity file or a look-alike of one "
            f"({', '.join(sorted(PROTECTED_FILES))}), which tools do not write",
            field="path",
        )
    check_times(record, number)
    content, redacted = count_redactions(record["content"])
    times = [record.get(key) for key in ("created_at", "updated_at")]
    created, updated = (datetime.fromisoformat(time) if time else None for time in times)
    return FileLine(number, scope, path, content, created, updated, redacted)


def import_files(
    workspace: WorkspaceStore,
    lines: Sequence[str],
    *,
    skip_invalid: bool = False,
    progress: Callable[[int], None] | None = None,
) -> FileImport:
    """Check every line (also that no file would be another's folder), then write each file
    that is new or holds other content; see the module's text."""
    report = FileImport()
    chosen: dict[tuple[str, str], FileLine] = {}
    existing: dict[str, list[str]] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            read = parse_file_line(line, number)
            _check_place(read, chosen, existing, workspace)
        except InvalidArgumentError as error:
            report.problems.append(error)
            continue
        chosen[(read.scope, read.path)] = read
    if report.problems and not skip_invalid:
        listing = "\n".join(f"  {problem.message}" for problem in report.problems)
        raise InvalidArgumentError(
            f"{len(report.problems)} invalid line(s); nothing was written:\n{listing}",
            field=report.problems[0].field if len(report.problems) == 1 else "line",
        )
    for read in chosen.values():
        stored = workspace.get(read.path, read.scope)
        if stored is not None and stored.content == read.content:
            report.unchanged += 1
        else:
            workspace.write(
                read.path,
                read.content,
                read.scope,
                append=False,
                created_at=read.created_at,
                updated_at=read.updated_at,
            )
            report.imported += 1
            report.redacted += read.redacted
        if progress:
            progress(1)
    return report


def _check_place(
    read: FileLine,
    chosen: dict[tuple[str, str], FileLine],
    existing: dict[str, list[str]],
    workspace: WorkspaceStore,
) -> None:
    """Refuse a second line for one file with other content, and a file that would be the
    folder of another file (stored, or earlier in the import), or inside one."""
    earlier = chosen.get((read.scope, read.path))
    if earlier is not None:
        if earlier.content != read.content:
            raise InvalidArgumentError(
                f"line {read.number}: {read.path} in {read.scope} is also line "
                f"{earlier.number}, with other content; give each file one line",
                field="path",
            )
        return
    if read.scope not in existing:
        existing[read.scope] = workspace.paths(read.scope)
    others = [*existing[read.scope], *(path for scope, path in chosen if scope == read.scope)]
    problem = clash(read.path, [other for other in others if other != read.path])
    if problem:
        raise InvalidArgumentError(f"line {read.number}: {problem}", field="path")
