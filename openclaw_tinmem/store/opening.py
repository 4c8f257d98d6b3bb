"""Opening the store: connect to the database, create the memories table with its indexes,
or open it and check its model."""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import lancedb
import pyarrow as pa
from lancedb.index import FTS, Bitmap, BTree

from openclaw_tinmem.config import Settings
from openclaw_tinmem.directories import private_directory
from openclaw_tinmem.errors import ConfigError, ModelMismatchError
from openclaw_tinmem.store.conditional import back_off, lost_a_race
from openclaw_tinmem.store.object_storage import check_shared_store
from openclaw_tinmem.store.schema import (
    ADDED_FIELDS,
    DIMENSION_METADATA_KEY,
    HISTORY_TABLE,
    MODEL_METADATA_KEY,
)
from openclaw_tinmem.store.write_lock import LOCK_FILE_NAME


def connect(settings: Settings) -> Any:
    """The LanceDB database of ``settings.db_path``: a private local directory, or an object
    store checked for several writers (``store.object_storage``). Reads see other writers'
    commits at once (``read_consistency_interval`` 0; the store rations its version checks)."""
    uri = settings.resolved_db_path()
    if settings.is_local_store():
        # memories are the user's: readable by the owner only
        directory = private_directory(Path(uri.removeprefix("file://")), setting="db_path")
        if not os.access(directory, os.R_OK | os.X_OK):
            raise ConfigError(
                f"db_path {str(directory)!r} cannot be read by this user: run as the store's "
                "owner, or give this user read access",
                field="db_path",
            )
    else:
        check_shared_store(
            uri, settings.object_store_options(), single_writer=settings.object_store_single_writer
        )
    return lancedb.connect(
        uri,
        read_consistency_interval=timedelta(0),
        storage_options=settings.object_store_options() or None,
    )


def stored_model(schema: pa.Schema) -> tuple[str, str]:
    """(embedding model, dimension) a table's schema records ("?" when it records none)."""
    metadata = schema.metadata or {}
    return (
        metadata.get(MODEL_METADATA_KEY, b"?").decode(),
        metadata.get(DIMENSION_METADATA_KEY, b"?").decode(),
    )


MEMORY_INDEXES: dict[str, Any] = {
    "search_text": FTS(with_position=False),
    "id": BTree(),
    "scope": Bitmap(),
    "category": Bitmap(),
}
INDEX_ATTEMPTS = 5  # hosts creating one table at once meet on its indexes: retried


def retried_on_a_race(table: Any, complete: Callable[[], None]) -> None:
    """Run ``complete`` (which adds to ``table`` what it lacks) and, when another host adding
    the same at that moment came first, look again after a back-off: not an error."""
    for attempt in range(INDEX_ATTEMPTS):
        try:
            complete()
            return
        except (RuntimeError, ValueError, OSError) as error:
            if not lost_a_race(error) or attempt == INDEX_ATTEMPTS - 1:
                raise
            back_off(attempt)
            table.checkout_latest()


def ensure_indexes(table: Any, indexes: dict[str, Any]) -> None:
    """Create whichever of ``indexes`` (column -> index config) ``table`` lacks. Another host
    creating the same index at the same moment is not an error: it is checked again."""

    def create_missing() -> None:
        present = {column for index in table.list_indices() for column in index.columns}
        for column in indexes:
            if column not in present:
                table.create_index(column, config=indexes[column])

    retried_on_a_race(table, create_missing)


def create_table(database: Any, name: str, data: pa.Table, schema: pa.Schema, mode: str) -> Any:
    """Create (``mode="overwrite"``: replace) the table from ``data``, with its indexes."""
    table = database.create_table(name, data=data, schema=schema, mode=mode)
    ensure_indexes(table, MEMORY_INDEXES)
    return table


def open_or_create(
    database: Any, name: str, schema: pa.Schema, *, uri: str, verify_model: bool
) -> Any:
    """The table ``name``: opened (columns and indexes added since an older version are
    added), or created empty. Another host creating it at the same moment is not an error."""
    if name not in database.list_tables().tables:
        try:
            database.create_table(name, schema=schema, mode="create")
        except (RuntimeError, ValueError, OSError) as error:  # created meanwhile elsewhere
            if not lost_a_race(error):
                raise
    table = database.open_table(name)
    if verify_model:
        check_model(table.schema, schema, uri)
    missing = [field for field in ADDED_FIELDS if field.name not in table.schema.names]
    if missing:  # written by an older version
        table.add_columns(pa.schema(missing))
    ensure_indexes(table, MEMORY_INDEXES)
    return table


def open_current(
    database: Any, name: str, schema: pa.Schema, *, uri: str, verify_model: bool
) -> Any | None:
    """The table ``name`` if nothing need be created or added (then it is opened without the
    write lock: a read never waits for a writer); None otherwise."""
    tables = database.list_tables().tables
    if name not in tables or HISTORY_TABLE not in tables:
        return None
    table = database.open_table(name)
    if verify_model:
        check_model(table.schema, schema, uri)
    indexed = {column for index in table.list_indices() for column in index.columns}
    if any(field.name not in table.schema.names for field in ADDED_FIELDS) or any(
        column not in indexed for column in MEMORY_INDEXES
    ):
        return None
    return table


def is_writable(directory: Path) -> bool:
    """Whether this process may write the store directory (and its lock file, if any)."""
    lock = directory / LOCK_FILE_NAME
    if not directory.exists():
        return True  # created by ``connect``, which says why when it cannot
    return os.access(directory, os.W_OK) and (not lock.exists() or os.access(lock, os.W_OK))


def open_existing(
    database: Any, name: str, schema: pa.Schema, *, uri: str, verify_model: bool
) -> Any:
    """The table ``name`` of a store opened read-only, as it is (nothing added); one that an
    older version wrote (columns or the history table missing) cannot be read so."""
    if name not in database.list_tables().tables:
        raise ConfigError(
            f"the store at db_path {uri!r} is read-only for this user and holds no memories "
            "yet: point db_path at a store, or at a directory this user may write",
            field="db_path",
        )
    table = database.open_table(name)
    if verify_model:
        check_model(table.schema, schema, uri)
    older = [field.name for field in ADDED_FIELDS if field.name not in table.schema.names]
    if older or HISTORY_TABLE not in database.list_tables().tables:
        raise ConfigError(
            f"the store at db_path {uri!r} was written by an older version and is read-only "
            "for this user: run any tinmem command once as a user who may write it, to bring "
            "it up to date",
            field="db_path",
        )
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
