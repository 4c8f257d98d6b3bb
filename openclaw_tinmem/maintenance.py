"""Whole-store operations: JSONL export and import, re-embedding, statistics and health."""

from __future__ import annotations

import json
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TextIO

import pyarrow as pa
from pydantic import ValidationError

from openclaw_tinmem.config import Settings
from openclaw_tinmem.errors import InvalidArgumentError, invalid_argument
from openclaw_tinmem.models import Memory, Source, content_hash, normalise_tags, validate_scope
from openclaw_tinmem.redaction import redact_secrets
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.store.schema import memory_to_row, row_to_memory
from openclaw_tinmem.store.table import MemoryStore

Progress = Callable[[int], None]
IMPORT_NAMESPACE = uuid.UUID("6f0c5d1e-8f7a-4d2b-9c3e-2a1b0c9d8e7f")


def export_memories(store: MemoryStore) -> Iterator[dict[str, Any]]:
    """Every memory as a JSON-ready dict (no vectors), oldest first."""
    memories = [row_to_memory(row) for batch in store.iterate() for row in batch.to_pylist()]
    for memory in sorted(memories, key=lambda memory: memory.created_at):
        yield memory.public_dict()


def write_jsonl(records: Iterable[dict[str, Any]], stream: TextIO) -> int:
    count = 0
    for record in records:
        stream.write(json.dumps(record, ensure_ascii=False) + "\n")
        count += 1
    return count


def parse_import_line(line: str, number: int, service: MemoryService) -> Memory:
    """One JSONL record as a Memory; missing levels are generated, a missing id is derived."""
    try:
        record = json.loads(line)
    except json.JSONDecodeError as error:
        raise InvalidArgumentError(
            f"line {number}: not valid JSON ({error.msg})", field="line"
        ) from None
    if not isinstance(record, dict):
        raise InvalidArgumentError(f"line {number}: expected a JSON object", field="line")
    content = redact_secrets(str(record.get("content") or "").strip())
    if not content:
        raise InvalidArgumentError(f"line {number}: content is required", field="content")
    scope = validate_scope(str(record.get("scope") or "global"))
    headline, summary = (
        redact_secrets(str(record.get(key) or "")) for key in ("headline", "summary")
    )
    if isinstance(record.get("context"), str):
        record["context"] = redact_secrets(record["context"])
    if not (headline and summary):  # only then: with an LLM this is a call per line
        generated_headline, generated_summary = service.summarizer.levels(content)
        headline, summary = headline or generated_headline, summary or generated_summary
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
        return Memory.model_validate(record)
    except ValidationError as error:
        raise invalid_argument(error, noun="field", prefix=f"line {number}: ") from None


@dataclass(frozen=True)
class ImportReport:
    imported: int
    batches: int


def import_memories(
    service: MemoryService, lines: list[str], *, progress: Progress | None = None
) -> ImportReport:
    """Validate every line first (nothing is written if one is bad), then embed and upsert by id.

    Upserting by id makes a repeated import idempotent.
    """
    memories = [
        parse_import_line(line, number, service)
        for number, line in enumerate(lines, start=1)
        if line.strip()
    ]
    unique = list({memory.id: memory for memory in memories}.values())
    batch_size = service.settings.import_batch_size
    batches = 0
    for start in range(0, len(unique), batch_size):
        batch = unique[start : start + batch_size]
        vectors = service.embedder.embed_documents([memory.content for memory in batch])
        service.store.upsert(batch, vectors, service.late_interaction.encode(batch))
        batches += 1
        if progress:
            progress(len(batch))
    if batches > 1:  # fold the bulk of new rows into the indexes now, not at some later write
        service.store.optimize()
    return ImportReport(imported=len(unique), batches=batches)


def reembed(service: MemoryService, *, progress: Progress | None = None) -> int:
    """Re-embed every memory (vector and token vectors) with the configured models, one commit."""
    store = service.store
    memories = [row_to_memory(row) for batch in store.iterate() for row in batch.to_pylist()]
    rows: list[dict[str, Any]] = []
    batch_size = service.settings.import_batch_size
    for start in range(0, len(memories), batch_size):
        batch = memories[start : start + batch_size]
        contents = [memory.content for memory in batch]
        vectors = service.embedder.embed_documents(contents)
        tokens = service.late_interaction.encode(batch)
        rows.extend(
            memory_to_row(memory, vector, token)
            for memory, vector, token in zip(batch, vectors, tokens, strict=True)
        )
        if progress:
            progress(len(batch))
    store.replace_all(pa.Table.from_pylist(rows, schema=store.schema()))
    service.late_interaction.cache.clear()  # the same texts now have new token vectors
    return len(memories)


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
    return CaptureCounts(directory).read()


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
