"""The workspace's two tables (their columns, opening them, giving older ones their owners)
and the pieces a file is cut into for search."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pyarrow as pa

from openclaw_tinmem.store.filters import quote
from openclaw_tinmem.store.opening import retried_on_a_race

DOCUMENTS_TABLE = "workspace_documents"
# the document revision (its updated_at) a chunk was cut from; null in older tables
CHUNK_REVISION_FIELD = pa.field("updated_at", pa.timestamp("us", tz="UTC"))
CHUNKS_TABLE = "workspace_chunks"
# the workspace a file belongs to; tables written before workspaces had owners lack it, and
# their files are the default agent's (``legacy_scope``)
SCOPE_FIELD = pa.field("scope", pa.string())
CHUNK_CHARACTERS = 800
_TIMESTAMP = pa.timestamp("us", tz="UTC")
DOCUMENTS_SCHEMA = pa.schema(
    [
        pa.field("id", pa.string()),
        pa.field("path", pa.string()),
        pa.field("content", pa.string()),
        SCOPE_FIELD,
        pa.field("created_at", _TIMESTAMP),
        pa.field("updated_at", _TIMESTAMP),
    ]
)


def chunks_schema(dimension: int) -> pa.Schema:
    return pa.schema(
        [
            pa.field("document_id", pa.string()),
            pa.field("path", pa.string()),
            pa.field("position", pa.int32()),
            pa.field("text", pa.string()),
            pa.field("vector", pa.list_(pa.float32(), dimension)),
            CHUNK_REVISION_FIELD,
            SCOPE_FIELD,
        ]
    )


def chunk_text(content: str, size: int = CHUNK_CHARACTERS) -> list[str]:
    """Paragraph-aligned pieces of at most about ``size`` characters (long paragraphs are cut)."""
    chunks: list[str] = []
    current = ""
    for paragraph in (part.strip() for part in content.split("\n\n")):
        if not paragraph:
            continue
        if len(paragraph) > size and current:
            chunks.append(current)  # keep document order: flush before cutting a long paragraph
            current = ""
        while len(paragraph) > size:
            cut = paragraph.rfind(" ", 0, size)
            cut = cut if cut > size // 2 else size
            chunks.append(paragraph[:cut].strip())
            paragraph = paragraph[cut:].strip()
        if current and len(current) + len(paragraph) + 2 > size:
            chunks.append(current)
            current = ""
        current = f"{current}\n\n{paragraph}" if current else paragraph
    if current:
        chunks.append(current)
    return chunks


def add_scope(table: Any, legacy_scope: str) -> None:
    """Give a table from before workspaces had owners its scope column, the files in it the
    default agent's. Another host adding it at the same moment is not an error."""

    def add_missing() -> None:
        if SCOPE_FIELD.name not in table.schema.names:
            table.add_columns({SCOPE_FIELD.name: quote(legacy_scope)})

    retried_on_a_race(table, add_missing)


def open_or_create(database: Any, name: str, schema: pa.Schema) -> Any:
    """The table as it is (an older one may lack later columns), or a new one."""
    if name in database.list_tables().tables:
        return database.open_table(name)
    # exist_ok: another host may create the table at the same moment
    return database.create_table(name, schema=schema, exist_ok=True)


def file_pieces(content: str) -> list[str]:
    """What a file is searched by: its chunks (one, empty, for an empty file)."""
    return chunk_text(content) or [content]


def word_count(content: str) -> int:
    return len(content.split())


def rfc3339(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")
