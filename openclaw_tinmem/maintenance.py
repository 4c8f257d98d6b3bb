"""Whole-store operations: JSONL export and import, re-embedding, statistics and health."""

from __future__ import annotations

import json
import logging
import os
import shutil
import sqlite3
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, TextIO

from pydantic import ValidationError

from openclaw_tinmem.config import Settings
from openclaw_tinmem.errors import InvalidArgumentError, invalid_argument
from openclaw_tinmem.import_checks import check_import_fields
from openclaw_tinmem.models import (
    EPISODE_TAG,
    MAX_CONTENT_CHARACTERS,
    Memory,
    Source,
    content_hash,
    normalise_tags,
    validate_memory_id,
    validate_scope,
)
from openclaw_tinmem.redaction import count_redactions
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.store.history import HistoryAction
from openclaw_tinmem.store.schema import row_to_memory
from openclaw_tinmem.store.table import MemoryStore
from openclaw_tinmem.text import is_well_formed, quoted
from openclaw_tinmem.write import reembedding
from openclaw_tinmem.write.trust import with_trust

logger = logging.getLogger("openclaw_tinmem")
Progress = Callable[[int], None]
IMPORT_NAMESPACE = uuid.UUID("6f0c5d1e-8f7a-4d2b-9c3e-2a1b0c9d8e7f")


def export_memories(
    store: MemoryStore, memories: Sequence[Memory] | None = None
) -> Iterator[dict[str, Any]]:
    """Every memory (or those given) as a JSON-ready dict (no vectors), oldest first."""
    if memories is None:
        memories = [row_to_memory(row) for batch in store.iterate() for row in batch.to_pylist()]
    for memory in sorted(memories, key=lambda memory: memory.created_at):
        yield memory.public_dict()


def write_jsonl(records: Iterable[dict[str, Any]], stream: TextIO) -> int:
    count = 0
    for record in records:
        stream.write(json.dumps(record, ensure_ascii=False) + "\n")
        count += 1
    return count


def write_jsonl_file(records: Iterable[dict[str, Any]], path: Path) -> int:
    """``write_jsonl`` to ``path``. A regular file (or what a link points at) is written
    under a temporary name beside it, synchronised and renamed once whole, keeping the
    permissions the old file had: an export that fails halfway leaves an earlier backup as it
    was. Anything else (``/dev/stdout``, a pipe) is written directly."""
    target = path.resolve()
    if target.exists() and not target.is_file():
        with open(target, "w", encoding="utf-8") as stream:
            return write_jsonl(records, stream)
    partial = target.with_name(f".{target.name}.partial")
    try:
        stream = open(partial, "w", encoding="utf-8")  # noqa: SIM115
    except OSError as error:  # named as the user gave it
        raise OSError(error.errno, error.strerror, str(path)) from None
    try:
        with stream:
            count = write_jsonl(records, stream)
            stream.flush()
            os.fsync(stream.fileno())
        if target.exists():
            shutil.copymode(target, partial)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return count


# fields a line may leave out (the import then gives its own values): compared only when given
KEPT_WHEN_GIVEN = ("created_at", "updated_at", "last_accessed_at", "access_count", "provenance")
# the fields of an import line that are text (a number, list or object there is refused, not
# stored as its Python spelling)
TEXT_FIELDS = ("id", "content", "headline", "summary", "scope", "source_ref", "context")


class ImportLine(NamedTuple):
    """One line of an import, read."""

    memory: Memory  # secrets redacted; a missing id derived from scope and content
    needs_levels: bool  # no headline or summary given: they are still to be written
    redacted: int  # secrets replaced
    given: frozenset[str]  # the fields the line gives


def parse_import_line(line: str, number: int) -> ImportLine:
    """One JSONL record as a Memory, with what else the import needs to know of it."""
    try:
        record = json.loads(line)
    except json.JSONDecodeError as error:
        raise InvalidArgumentError(
            f"line {number}: not valid JSON ({error.msg})", field="line"
        ) from None
    if not isinstance(record, dict):
        raise InvalidArgumentError(f"line {number}: expected a JSON object", field="line")
    given = frozenset(key for key, value in record.items() if value is not None)
    if unknown := [key for key in record if key not in Memory.model_fields]:
        raise InvalidArgumentError(  # a misspelt "scope" would put the memory in global
            f"line {number}: unknown field {quoted(unknown[0])}; allowed: "
            + ", ".join(Memory.model_fields),
            field=str(unknown[0]),
        )
    check_import_fields(record, number)
    tags = record.get("tags")
    if tags is not None and not (
        isinstance(tags, list) and all(isinstance(tag, str) for tag in tags)
    ):
        raise InvalidArgumentError(f"line {number}: tags must be a list of strings", field="tags")
    for key in TEXT_FIELDS:
        if (value := record.get(key)) is not None and not isinstance(value, str):
            raise InvalidArgumentError(
                f"line {number}: {key} must be text, not {type(value).__name__}", field=key
            )
    for key, value in record.items():
        if not is_well_formed(json.dumps(value, ensure_ascii=False)):
            raise InvalidArgumentError(
                f"line {number}: {key} is not valid Unicode text (a lone surrogate escape such "
                "as \\ud800); allowed: text that UTF-8 can hold",
                field=str(key),
            )
    content, redacted = count_redactions(str(record.get("content") or "").strip())
    if not content:
        raise InvalidArgumentError(f"line {number}: content is required", field="content")
    if len(content) > MAX_CONTENT_CHARACTERS:
        raise InvalidArgumentError(
            f"line {number}: content is {len(content):,} characters; at most "
            f"{MAX_CONTENT_CHARACTERS:,} are allowed",
            field="content",
        )
    try:
        scope = validate_scope(str(record.get("scope") or "global"))
    except InvalidArgumentError as error:
        raise InvalidArgumentError(f"line {number}: {error.message}", field="scope") from None
    (headline, in_headline), (summary, in_summary) = (
        count_redactions(str(record.get(key) or "")) for key in ("headline", "summary")
    )
    redacted += in_headline + in_summary
    if isinstance(record.get("context"), str):
        record["context"], in_context = count_redactions(record["context"])
        redacted += in_context
    record.setdefault("source", Source.IMPORT.value)
    record.update(
        scope=scope,
        content=content,
        headline=headline,
        summary=summary,
        tags=normalise_tags(record.get("tags")),
        content_hash=content_hash(content),
    )
    record.setdefault("id", str(uuid.uuid5(IMPORT_NAMESPACE, f"{scope}\n{content}")))
    try:
        record["id"] = validate_memory_id(str(record["id"]))
    except InvalidArgumentError as error:
        raise InvalidArgumentError(f"line {number}: {error.message}", field="id") from None
    try:
        memory = Memory.model_validate(record)
    except ValidationError as error:
        raise invalid_argument(error, noun="field", prefix=f"line {number}: ") from None
    # a text that instructs the model is kept, but not injected (write.trust)
    memory.provenance = with_trust(
        memory.provenance, content, headline, summary, episode=EPISODE_TAG in memory.tags
    )
    return ImportLine(memory, not (headline and summary), redacted, given)


@dataclass(frozen=True)
class ImportReport:
    imported: int
    batches: int
    unchanged: int = 0  # lines whose memory is already stored as they say: not written again
    problems: list[InvalidArgumentError] = field(default_factory=list)  # lines left out
    redacted: int = 0  # secrets replaced by [REDACTED] in the lines written


def _unchanged(line: ImportLine, stored: Memory | None) -> bool:
    """The stored memory is what the line says (of its times, provenance and access counts,
    what the line gives; of its levels, what the line gives both of)."""
    if stored is None:
        return False
    new = line.memory
    same: tuple[str, ...] = (
        "content_hash",
        "context",
        "scope",
        "category",
        "importance",
        "tags",
        "source",
        "source_ref",
    )
    if not line.needs_levels:
        same += ("headline", "summary")
    same += tuple(name for name in KEPT_WHEN_GIVEN if name in line.given)
    return all(getattr(new, name) == getattr(stored, name) for name in same)


def _different(one: Memory, other: Memory) -> bool:
    """Two lines with one id that say different things (a line repeated says the same)."""
    fields = ("content", "category", "scope", "headline", "summary", "importance", "tags")
    return any(getattr(one, name) != getattr(other, name) for name in fields)


def import_memories(
    service: MemoryService,
    lines: list[str],
    *,
    progress: Progress | None = None,
    skip_invalid: bool = False,
) -> ImportReport:
    """Validate every line first, then embed and upsert by id what is new or changed.

    Every invalid line is reported (line number, field, reason) and nothing is written,
    unless ``skip_invalid``, which writes the valid lines and reports the others. A line whose
    memory is stored exactly as it says is recognised by its content hash and skipped, so a
    repeated import writes nothing and embeds nothing.
    """
    parsed: dict[str, ImportLine] = {}
    line_of: dict[str, int] = {}
    problems: list[InvalidArgumentError] = []
    for number, line in enumerate(lines, start=1):
        if line.strip():
            try:
                read = parse_import_line(line, number)
                memory = read.memory
                earlier = parsed.get(memory.id)
                if earlier is not None and _different(earlier.memory, memory):
                    # the later line would silently replace the earlier one
                    raise InvalidArgumentError(
                        f"line {number}: id {memory.id} is also the id of line "
                        f"{line_of[memory.id]}; give each memory its own id",
                        field="id",
                    )
            except InvalidArgumentError as error:
                problems.append(error)
                continue
            parsed[memory.id] = read
            line_of[memory.id] = number
    if problems and not skip_invalid:
        listing = "\n".join(f"  {problem.message}" for problem in problems)
        raise InvalidArgumentError(
            f"{len(problems)} invalid line(s); nothing was written:\n{listing}",
            field=problems[0].field if len(problems) == 1 else "line",
        )
    stored = service.store.get(list(parsed))
    changed = [
        read.memory for read in parsed.values() if not _unchanged(read, stored.get(read.memory.id))
    ]
    for memory in changed:
        if parsed[memory.id].needs_levels:  # only then: with an LLM this is a call per line
            headline, summary = service.summarizer.levels(memory.content)
            memory.headline, memory.summary = memory.headline or headline, memory.summary or summary
    batch_size = service.settings.import_batch_size
    batches = 0
    if progress and len(changed) < len(parsed):
        progress(len(parsed) - len(changed))
    for start in range(0, len(changed), batch_size):
        batch = changed[start : start + batch_size]
        service.writer.put(
            batch,
            action=HistoryAction.IMPORTED,
            actor="administrator (import)",
            source="import",
        )
        batches += 1
        if progress:
            progress(len(batch))
    if batches > 1:  # fold the bulk of new rows into the indexes now, not at some later write
        service.store.optimize()
    redacted = sum(parsed[memory.id].redacted for memory in changed)
    unchanged = len(parsed) - len(changed)
    return ImportReport(len(changed), batches, unchanged, problems, redacted)


def reembed(service: MemoryService, *, progress: Progress | None = None) -> int:
    """Re-embed every memory with the configured models, in one commit (``write.reembedding``)."""
    return reembedding.reembed(service.writer, progress=progress)


def statistics(store: MemoryStore) -> dict[str, Any]:
    """Counts by scope, category and source, plus table health."""
    by_scope: Counter[str] = Counter()
    by_category: Counter[str] = Counter()
    by_source: Counter[str] = Counter()
    for batch in (
        store.table.search()
        .select(["scope", "category", "source"])
        .limit(None)
        .to_arrow()
        .to_batches()
    ):
        for row in batch.to_pylist():
            by_scope[row["scope"]] += 1
            by_category[row["category"]] += 1
            by_source[row["source"]] += 1
    model, dimension = store.stored_model()
    return {
        "total": sum(by_scope.values()),
        "by_scope": dict(by_scope.most_common()),
        "by_category": dict(by_category.most_common()),
        "by_source": dict(by_source.most_common()),
        "embedding_model": model,
        "embedding_dimension": int(dimension) if dimension.isdigit() else dimension,
        **table_health(store),
        "without_token_vectors": store.table.count_rows("token_vectors IS NULL"),
        "db_path": store.uri,
    }


def capture_counts(settings: Settings) -> dict[str, int]:
    """What automatic capture left out, by reason (see ``capture.filters``)."""
    from openclaw_tinmem.capture.filters import COUNTS_FILE, CaptureCounts

    directory = settings.resolved_journal_path()
    if not (directory / COUNTS_FILE).exists():
        return {}
    try:
        return CaptureCounts(directory).read()
    except sqlite3.Error as error:  # statistics: their loss is a warning, not a failed check
        logger.warning("capture counts in %s cannot be read: %s", directory / COUNTS_FILE, error)
        return {}


def table_health(store: MemoryStore) -> dict[str, int]:
    """What upkeep (``MemoryStore.optimize``) tidies: versions kept, data fragments, and rows
    not yet in the full-text index (searched by a slower scan until they are)."""
    fragments = store.table.stats()["fragment_stats"]["num_fragments"]
    text_index_name = next(
        (index.name for index in store.table.list_indices() if index.columns == ["search_text"]),
        None,
    )  # found by its column, whatever LanceDB named it
    text_index = store.table.index_stats(text_index_name) if text_index_name else None
    return {
        "table_versions": store.version_count(),
        "table_fragments": int(fragments),
        "unindexed_rows": int(text_index.num_unindexed_rows) if text_index else 0,
    }
