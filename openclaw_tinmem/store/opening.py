"""Opening the memories table: create it with its indexes, or open it and check its model."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
from lancedb.index import FTS, Bitmap, BTree

from openclaw_tinmem.errors import ModelMismatchError
from openclaw_tinmem.store.schema import ADDED_FIELDS, DIMENSION_METADATA_KEY, MODEL_METADATA_KEY


def stored_model(schema: pa.Schema) -> tuple[str, str]:
    """(embedding model, dimension) a table's schema records ("?" when it records none)."""
    metadata = schema.metadata or {}
    return (
        metadata.get(MODEL_METADATA_KEY, b"?").decode(),
        metadata.get(DIMENSION_METADATA_KEY, b"?").decode(),
    )


def create_table(database: Any, name: str, data: pa.Table, schema: pa.Schema, mode: str) -> Any:
    """Create (``mode="overwrite"``: replace) the table from ``data``, with its indexes."""
    table = database.create_table(name, data=data, schema=schema, mode=mode)
    table.create_index("search_text", config=FTS(with_position=False))
    table.create_index("id", config=BTree())
    table.create_index("scope", config=Bitmap())
    table.create_index("category", config=Bitmap())
    return table


def open_or_create(
    database: Any, name: str, schema: pa.Schema, *, uri: str, verify_model: bool
) -> Any:
    """The table ``name``: opened (columns added since an older version are added), or
    created empty. Another host creating it at the same moment is not an error."""
    if name not in database.list_tables().tables:
        try:
            return create_table(database, name, schema.empty_table(), schema, "create")
        except ValueError as error:  # created meanwhile, by another process or host
            if "already exists" not in str(error):
                raise
    table = database.open_table(name)
    if verify_model:
        check_model(table.schema, schema, uri)
    missing = [field for field in ADDED_FIELDS if field.name not in table.schema.names]
    if missing:  # written by an older version
        table.add_columns(pa.schema(missing))
    return table


def check_model(stored: pa.Schema, configured: pa.Schema, uri: str) -> None:
    """Refuse a table written with another embedding model than the configured one."""
    model, dimension = stored_model(stored)
    wanted_model, wanted_dimension = stored_model(configured)
    if (model, dimension) != (wanted_model, wanted_dimension):
        raise ModelMismatchError(
            f"the store at {uri} was written with embedding model {model} "
            f"({dimension} dimensions) but the configured model is {wanted_model} "
            f"({wanted_dimension} dimensions). Configure the original model, or run "
            "'tinmem reembed' to re-embed every memory with the new one."
        )
