"""The memories table's columns, and the conversion between Memory models and table rows."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa
from pydantic import ValidationError

from openclaw_tinmem.encoders.dense import Matrix, Vector
from openclaw_tinmem.errors import invalid_argument
from openclaw_tinmem.models import Category, Memory, Provenance, Source, readable_importance

MODEL_METADATA_KEY = b"tinmem.embedding_model"
DIMENSION_METADATA_KEY = b"tinmem.embedding_dimension"
SCHEMA_VERSION_KEY = b"tinmem.schema_version"
SCHEMA_VERSION = b"1"
# How the long text and binary columns are kept: zstd over blocks of values ("miniblock"),
# rather than Lance's defaults (binary values uncompressed, strings by FSST) or zstd value by
# value, which enlarges short strings. On the e2e stores' columns, written alone: token
# vectors 0.61 of their bytes, text 0.3-0.9 of what the defaults keep (LoCoMo 17.3 -> 16.7
# MB, BEAM 20.1 -> 17.0 MB); 20 rows taken by id 1.6 -> 2.1 ms. A table created before keeps
# its own encoding.
COMPRESSED = {
    "lance-encoding:compression": "zstd",
    "lance-encoding:structural-encoding": "miniblock",
}
# token vectors for late interaction (encoders.token_vectors); null when not encoded
TOKEN_VECTORS_FIELD = pa.field("token_vectors", pa.binary(), metadata=COMPRESSED)
# the conversational context a memory was written in (Memory.context); null in older tables
CONTEXT_FIELD = pa.field("context", pa.string(), metadata=COMPRESSED)
# characters from the end of a memory's context that the full-text index sees
SEARCH_CONTEXT_CHARACTERS = 300
# where a memory came from (Memory.provenance) as JSON; null when unknown or in older tables
PROVENANCE_FIELD = pa.field("provenance", pa.string(), metadata=COMPRESSED)
# embeddings are kept as float16, half the bytes of float32: a cosine moves by about 1e-4,
# and search runs on a float32 copy in memory (store.snapshot). A table created with float32
# embeddings keeps them (rows are written in the stored table's own schema).
EMBEDDING_TYPE = pa.float16()
# the table of every change to a memory (store.history), beside the memories table
HISTORY_TABLE = "memory_history"
# columns added since the first release, added with nulls when an older table is opened
ADDED_FIELDS = [TOKEN_VECTORS_FIELD, CONTEXT_FIELD, PROVENANCE_FIELD]
MEMORY_COLUMNS = [
    "id",
    "scope",
    "category",
    "headline",
    "summary",
    "content",
    "importance",
    "tags",
    "created_at",
    "updated_at",
    "last_accessed_at",
    "access_count",
    "source",
    "source_ref",
    "content_hash",
    "context",
    "provenance",
]


def memory_schema(model_name: str, dimension: int) -> pa.Schema:
    timestamp = pa.timestamp("us", tz="UTC")
    fields = [
        pa.field("id", pa.string(), nullable=False),
        pa.field("scope", pa.string(), nullable=False),
        pa.field("category", pa.string(), nullable=False),
        pa.field("headline", pa.string(), metadata=COMPRESSED),
        pa.field("summary", pa.string(), metadata=COMPRESSED),
        pa.field("content", pa.string(), metadata=COMPRESSED),
        pa.field("search_text", pa.string(), metadata=COMPRESSED),
        pa.field("importance", pa.float64()),
        pa.field("tags", pa.list_(pa.string())),
        pa.field("created_at", timestamp),
        pa.field("updated_at", timestamp),
        pa.field("last_accessed_at", timestamp),
        pa.field("access_count", pa.int64()),
        pa.field("source", pa.string()),
        pa.field("source_ref", pa.string()),
        pa.field("content_hash", pa.string()),
        pa.field("vector", pa.list_(EMBEDDING_TYPE, dimension)),
        TOKEN_VECTORS_FIELD,
        CONTEXT_FIELD,
        PROVENANCE_FIELD,
    ]
    metadata = {
        MODEL_METADATA_KEY: model_name.encode(),
        DIMENSION_METADATA_KEY: str(dimension).encode(),
        SCHEMA_VERSION_KEY: SCHEMA_VERSION,
    }
    return pa.schema(fields, metadata=metadata)


def search_text(memory: Memory) -> str:
    """What the full-text index sees: headline, content, tags and the end of the context.

    The context's words let a terse reply be found by the words of the question it answers
    (on LoCoMo, full-text frac@10 65.1 -> 72.8).
    """
    context = memory.context[-SEARCH_CONTEXT_CHARACTERS:]
    parts = [memory.headline, memory.content, " ".join(memory.tags), context]
    return "\n".join(part for part in parts if part)


def memory_to_row(memory: Memory, tokens: bytes | None = None) -> dict[str, Any]:
    """A memory's columns but its vector (``memories_to_table`` adds the vectors). A memory
    changed without validation (``model_copy``) is checked again: a row no reader can load
    is never written."""
    try:
        Memory.model_validate(memory.model_dump())
    except ValidationError as error:
        raise invalid_argument(error, noun="field") from None
    row = memory.model_dump(include=set(MEMORY_COLUMNS))
    row["category"] = memory.category.value
    row["source"] = memory.source.value
    row["provenance"] = (
        None if memory.provenance.is_empty() else json.dumps(memory.provenance.public_dict())
    )
    row["search_text"] = search_text(memory)
    row["token_vectors"] = tokens
    return row


def memories_to_table(
    memories: Sequence[Memory],
    vectors: Matrix | Sequence[Vector],
    tokens: Sequence[bytes | None],
    schema: pa.Schema,
) -> pa.Table:
    """Memories with their vectors and token vectors as a table of ``schema``, the vectors
    cast at once to the embedding type the table keeps (float16, or float32 in an older
    table)."""
    vector_field = schema.field("vector")
    others = pa.schema([field for field in schema if field.name != "vector"], schema.metadata)
    rows = [memory_to_row(memory, token) for memory, token in zip(memories, tokens, strict=True)]
    table = pa.Table.from_pylist(rows, schema=others)
    matrix = np.asarray(vectors, dtype=vector_field.type.value_type.to_pandas_dtype())
    column = pa.FixedSizeListArray.from_arrays(pa.array(matrix.ravel()), type=vector_field.type)
    return table.add_column(schema.get_field_index("vector"), vector_field, column)


def row_to_memory(row: dict[str, Any]) -> Memory:
    values = {column: row[column] for column in MEMORY_COLUMNS if column in row}
    values["tags"] = list(values.get("tags") or [])
    values["category"] = Category(values["category"])
    values["source"] = Source(values["source"])
    values["access_count"] = max(values.get("access_count") or 0, 0)
    # a row an older version wrote unchecked is read, not fatal to every reader
    values["importance"] = readable_importance(values.get("importance"))
    provenance = values.pop("provenance", None)
    if provenance:
        values["provenance"] = Provenance.model_validate_json(provenance)
    return Memory(**values)
