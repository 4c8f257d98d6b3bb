"""Workspace documents (IronClaw-style MEMORY.md, daily logs, notes) in the same LanceDB database.

Two tables: ``workspace_documents`` holds each file (path, id, content, times) and
``workspace_chunks`` holds its searchable pieces with a vector and a full-text index. Every
file belongs to one workspace, named by a scope (an agent's own by default:
``Access.workspace_scope``); one workspace never sees another's files. Writes hold the memory
store's write lock, so documents and memories share one cross-process lock, and are
conditional, so hosts sharing an object store do not overwrite each other's. A write embeds
its new chunks before it takes the lock, adds them (marked with the revision they were cut
from) before the document row, and drops the other revisions' after: search keeps only chunks
of a document's current revision, so a write cut short at any step leaves the file and what
search finds of it agreeing. A document's revisions only grow (a new one is later than the one
it replaces, whatever another host's clock says), so clearing up after a write removes older
revisions' chunks and never a newer one's that another host committed meanwhile.
"""

from __future__ import annotations

import logging
import secrets
import uuid
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import lancedb
import pyarrow as pa
from lancedb.index import FTS, BTree

from openclaw_tinmem.encoders.dense import Embedder
from openclaw_tinmem.errors import InvalidArgumentError, NotFoundError
from openclaw_tinmem.models import utc_now
from openclaw_tinmem.store.compaction import optimize_table
from openclaw_tinmem.store.conditional import (
    commit_until_it_lands,
    merge_on_id,
    timestamp_literal,
)
from openclaw_tinmem.store.filters import quote
from openclaw_tinmem.store.opening import ensure_indexes
from openclaw_tinmem.store.table import MemoryStore
from openclaw_tinmem.workspace.paths import clash
from openclaw_tinmem.workspace.search import ChunkHit, search_chunks
from openclaw_tinmem.workspace.tables import (
    CHUNK_REVISION_FIELD,
    CHUNKS_TABLE,
    DOCUMENTS_SCHEMA,
    DOCUMENTS_TABLE,
    SCOPE_FIELD,
    add_scope,
    chunks_schema,
    file_pieces,
    open_or_create,
)

# a revision written over one dated ahead of this host's clock is later by up to a second:
# two hosts behind it take the same revision once in a million
MAX_REVISION_STEP_MICROSECONDS = 1_000_000

logger = logging.getLogger("openclaw_tinmem")


@dataclass(frozen=True)
class Document:
    id: str
    path: str
    content: str
    created_at: datetime
    updated_at: datetime
    scope: str = ""


class WorkspaceStore:
    """Documents and their chunks, beside the memories table."""

    def __init__(self, store: MemoryStore, embedder: Embedder, legacy_scope: str) -> None:
        self.store = store
        self.embedder = embedder
        self.legacy_scope = legacy_scope
        database = store.database
        documents, chunks = DOCUMENTS_SCHEMA, chunks_schema(embedder.dimension)
        if store.read_only:  # read as they are; a store without them has no documents
            present = set(database.list_tables().tables)
            empty = lancedb.connect("memory://")
            self.documents = open_or_create(
                database if DOCUMENTS_TABLE in present else empty, DOCUMENTS_TABLE, documents
            )
            self.chunks = open_or_create(
                database if CHUNKS_TABLE in present else empty, CHUNKS_TABLE, chunks
            )
            return
        self.documents = open_or_create(database, DOCUMENTS_TABLE, documents)
        self.chunks = open_or_create(database, CHUNKS_TABLE, chunks)
        if CHUNK_REVISION_FIELD.name not in self.chunks.schema.names:  # an older table
            self.chunks.add_columns(pa.schema([CHUNK_REVISION_FIELD]))
        for table in (self.documents, self.chunks):
            add_scope(table, legacy_scope)
        ensure_indexes(self.documents, {"path": BTree()})
        ensure_indexes(self.chunks, {"text": FTS(with_position=False), "path": BTree()})

    def owned_by(self, table: Any, scope: str) -> str:
        """The filter of the files (or chunks) of workspace ``scope``; a read-only table from
        before owners holds the default agent's."""
        if SCOPE_FIELD.name not in table.schema.names:
            return "true" if scope == self.legacy_scope else "false"
        if scope == self.legacy_scope:  # also what a host of an older version wrote since
            return f"(scope = {quote(scope)} OR scope IS NULL)"
        return f"scope = {quote(scope)}"

    def get(self, path: str, scope: str) -> Document | None:
        where = f"path = {quote(path)} AND {self.owned_by(self.documents, scope)}"
        rows = self.documents.search().where(where).limit(1).to_list()
        if not rows:
            return None
        row = rows[0]
        return Document(
            row["id"], row["path"], row["content"], row["created_at"], row["updated_at"], scope
        )

    def read(self, path: str, scope: str) -> Document:
        document = self.get(path, scope)
        if document is None:
            raise NotFoundError(
                f"no workspace file {path!r}; see memory_tree for what exists", field="path"
            )
        return document

    def paths(self, scope: str) -> list[str]:
        query = self.documents.search().where(self.owned_by(self.documents, scope))
        rows = query.select(["path"]).limit(None).to_arrow()
        return [str(path) for path in rows.column("path").to_pylist()]

    def documents_in(self, scopes: Sequence[str] | None = None) -> list[Document]:
        """Every file of the workspaces ``scopes`` (None: of every workspace), by workspace
        and path."""
        query = self.documents.search()
        if scopes is not None:
            owned = [f"({self.owned_by(self.documents, scope)})" for scope in scopes]
            query = query.where(" OR ".join(owned) or "false")
        documents = [
            Document(
                row["id"],
                row["path"],
                row["content"],
                row["created_at"],
                row["updated_at"],
                row.get("scope") or self.legacy_scope,
            )
            for row in query.limit(None).to_list()
        ]
        return sorted(documents, key=lambda document: (document.scope, document.path))

    def write(
        self,
        path: str,
        content: str,
        scope: str,
        *,
        append: bool,
        separator: str = "\n",
        field: str = "path",
        created_at: datetime | None = None,
        updated_at: datetime | None = None,
    ) -> Document:
        """Create, append to or replace a document, re-indexing its chunks. A new file takes
        ``created_at`` and ``updated_at`` when given (an import keeps a file's times); a
        changed one is updated now.

        The document is written conditionally: created only if no other writer created the
        path first, changed only if nobody changed it since it was read; otherwise it is
        read again and the write re-applied, as memories are (``store.conditional``).
        """

        def body(existing: Document | None) -> str:
            if existing is not None and append and existing.content:
                return existing.content.rstrip("\n") + separator + content
            return content

        # embedded before the lock is taken: other writers wait only for the commit
        guess = self.get(path, scope)
        embedded: dict[str, Any] = {}
        self._vectors_for(file_pieces(body(guess)), guess.id if guess else None, embedded)

        def attempt() -> Document | None:
            existing = self.get(path, scope)
            if existing is None:  # a new file: under the lock, so no other can clash
                self._check_free(path, scope, field)
            now = utc_now()
            if existing is not None and now <= existing.updated_at:  # a clock behind
                # a random step: two hosts behind it must not both take the same revision
                step = secrets.randbelow(MAX_REVISION_STEP_MICROSECONDS) + 1
                now = existing.updated_at + timedelta(microseconds=step)
            document = Document(
                id=existing.id if existing else str(uuid.uuid4()),
                path=path,
                content=body(existing),
                created_at=existing.created_at if existing else created_at or now,
                updated_at=now if existing or updated_at is None else updated_at,
                scope=scope,
            )
            self._add_chunks(document, existing, embedded)
            try:
                committed = self._commit(document, existing)
            except BaseException:
                with suppress(Exception):  # search passes them over if they stay
                    if not self._holds(document):  # a commit may land and still report an error
                        self._drop_chunks(document, of_this_revision=True)
                raise
            if not committed:  # another writer came first: chunks of a revision no file holds
                self._drop_chunks(document, of_this_revision=True)
                return None
            try:  # the write landed: a failed clean-up leaves chunks search passes over
                self._drop_chunks(document, of_this_revision=False)
            except Exception:
                logger.warning("left older chunks of %s; the next write drops them", path)
            self.store.upkeep.wrote(
                "workspace",
                self.store.settings.optimize_every_writes,
                self.optimize,
                "workspace upkeep failed; retried later",
            )
            return document

        return commit_until_it_lands(
            self.store.write_lock,
            attempt,
            f"gave up writing {path}: other writers kept changing it; try again",
        )

    def _holds(self, document: Document) -> bool:
        """Whether ``document``'s revision is the one stored."""
        current = self.get(document.path, document.scope)
        return current is not None and (current.id, current.updated_at) == (
            document.id,
            document.updated_at,
        )

    def _check_free(self, path: str, scope: str, field: str) -> None:
        """A new file may not share its path with a folder, nor sit inside a file."""
        problem = clash(path, self.paths(scope))
        if problem:
            raise InvalidArgumentError(f"{problem}; choose another name", field=field)

    def _commit(self, document: Document, existing: Document | None) -> bool:
        """Write the document row; False if another writer came first (read and try again)."""
        row = pa.Table.from_pylist(
            [
                {
                    "id": document.id,
                    "path": document.path,
                    "content": document.content,
                    "created_at": document.created_at,
                    "updated_at": document.updated_at,
                    "scope": document.scope,
                }
            ],
            schema=self.documents.schema,
        )
        if existing is not None:
            unchanged = f"target.updated_at = {timestamp_literal(existing.updated_at)}"
            merge = merge_on_id(self.documents).when_matched_update_all(where=unchanged)
            return int(merge.execute(row).num_updated_rows) == 1
        self.documents.add(row)
        # Two hosts may create one path at once (an insert meets no conflict). The row
        # committed first (the lowest row address: appends get ever higher fragments) wins
        # for every host that looks; a later one is taken back and its write re-applied.
        query = self.documents.search().where(
            f"path = {quote(document.path)} AND {self.owned_by(self.documents, document.scope)}"
        )
        rows = query.select(["id"]).with_row_id(True).limit(None).to_list()
        first = min(rows, key=lambda row: row["_rowid"])
        if first["id"] != document.id:
            self.documents.delete(f"id = {quote(document.id)}")
            return False
        return True

    def _add_chunks(
        self, document: Document, existing: Document | None, embedded: dict[str, Any]
    ) -> None:
        """Add the chunks of this revision of the document (found by search once its row is
        committed: ``_current``)."""
        pieces = file_pieces(document.content)
        vectors = self._vectors_for(pieces, existing.id if existing else None, embedded)
        chunk_rows = [
            {
                "document_id": document.id,
                "path": document.path,
                "position": position,
                "text": piece,
                "vector": vector,
                "updated_at": document.updated_at,
                "scope": document.scope,
            }
            for position, (piece, vector) in enumerate(zip(pieces, vectors, strict=True))
        ]
        self.chunks.add(pa.Table.from_pylist(chunk_rows, schema=self.chunks.schema))

    def _drop_chunks(self, document: Document, *, of_this_revision: bool) -> None:
        """Drop the chunks of this revision (its row was not committed), or of the revisions
        before it. Never of a later one: another host may commit one between this write's
        commit and this clean-up, and its chunks are then the ones search needs."""
        revision = timestamp_literal(document.updated_at)
        if of_this_revision:
            where = f"updated_at = {revision}"
        else:
            where = f"(updated_at IS NULL OR updated_at < {revision})"
        self.chunks.delete(f"document_id = {quote(document.id)} AND {where}")

    def _vectors_for(
        self, pieces: Sequence[str], document_id: str | None, embedded: dict[str, Any]
    ) -> list[Any]:
        """Vectors for the chunks: reused where a chunk's text is unchanged or was embedded
        already (``embedded``, which gains those embedded now), embedded otherwise.

        Appending to a long file changes only its last chunk, so a write costs one embedding
        instead of one per chunk of the file.
        """
        known: dict[str, Any] = {}
        if document_id is not None:
            rows = (
                self.chunks.search()
                .where(f"document_id = {quote(document_id)}")
                .select(["text", "vector"])
                .limit(None)
                .to_list()
            )
            known = {row["text"]: row["vector"] for row in rows}
        known.update(embedded)
        missing = [piece for piece in dict.fromkeys(pieces) if piece not in known]
        if missing:
            fresh = dict(zip(missing, self.embedder.embed_documents(missing), strict=True))
            embedded.update(fresh)
            known.update(fresh)
        return [known[piece] for piece in pieces]

    def optimize(self) -> None:
        """Compact both tables, fold new chunks into the indexes, prune old versions."""
        retention = timedelta(seconds=self.store.settings.version_retention_seconds)
        with self.store.write_lock():
            optimize_table(self.documents, retention)
            optimize_table(self.chunks, retention)

    def search(self, query: str, limit: int, scope: str) -> list[ChunkHit]:
        """Hybrid full-text + vector search over the chunks of workspace ``scope``
        (``workspace.search``)."""
        return search_chunks(self, query, limit, scope)

    def count(self) -> int:
        return int(self.documents.count_rows())
