"""Search over a workspace's files: full text and vectors over their chunks, fused by
reciprocal rank, keeping only chunks of the revision each file holds (``workspace.store``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lancedb.query import MatchQuery

from openclaw_tinmem.recall.fusion import fuse
from openclaw_tinmem.store.filters import quote
from openclaw_tinmem.workspace.tables import CHUNK_REVISION_FIELD

if TYPE_CHECKING:
    from openclaw_tinmem.workspace.store import WorkspaceStore

# how many chunks each of the two searches returns before they are fused
SEARCH_DEPTH = 50


@dataclass(frozen=True)
class ChunkHit:
    content: str
    score: float
    document_id: str
    path: str
    is_hybrid_match: bool


def search_chunks(workspace: WorkspaceStore, query: str, limit: int, scope: str) -> list[ChunkHit]:
    """Hybrid full-text + vector search over the chunks of workspace ``scope``, fused by
    reciprocal rank."""
    chunks = workspace.chunks
    columns = ["document_id", "path", "position", "text"]
    if CHUNK_REVISION_FIELD.name in chunks.schema.names:  # not in an older table read
        columns.append(CHUNK_REVISION_FIELD.name)
    owned = workspace.owned_by(chunks, scope)
    match = MatchQuery(query, "text")  # type: ignore[call-arg]
    text_query = chunks.search(match, query_type="fts").where(owned, prefilter=True)
    text_rows = text_query.select([*columns, "_score"]).limit(SEARCH_DEPTH).to_list()
    vector_query: Any = chunks.search(
        workspace.embedder.embed_query(query), vector_column_name="vector"
    )
    vector_rows = (
        vector_query.where(owned, prefilter=True)
        .distance_type("cosine")
        .select([*columns, "_distance"])
        .limit(SEARCH_DEPTH)
        .to_list()
    )
    current = _current(workspace, [*text_rows, *vector_rows])
    text_rows = [row for row in text_rows if current(row)]
    vector_rows = [row for row in vector_rows if current(row)]
    rows: dict[str, dict[str, Any]] = {}
    for row in [*text_rows, *vector_rows]:
        rows[f"{row['document_id']}#{row['position']}"] = row
    fused = fuse(
        [(f"{r['document_id']}#{r['position']}", 1.0 - r["_distance"]) for r in vector_rows],
        [(f"{r['document_id']}#{r['position']}", r["_score"]) for r in text_rows],
        rrf_k=60.0,
    )
    return [
        ChunkHit(
            rows[c.id]["text"],
            round(c.relevance, 4),
            rows[c.id]["document_id"],
            rows[c.id]["path"],
            c.match.value == "both",
        )
        for c in fused[:limit]
    ]


def _current(
    workspace: WorkspaceStore, chunks: Sequence[dict[str, Any]]
) -> Callable[[dict[str, Any]], bool]:
    """Whether a chunk is of its document's current revision (one of a table older than
    revisions always is): a write cut short leaves chunks of a revision never committed, or of
    one replaced."""
    ids = {chunk["document_id"] for chunk in chunks}
    if not ids:
        return lambda chunk: True
    listed = ", ".join(quote(document_id) for document_id in ids)
    query = workspace.documents.search().where(f"id IN ({listed})").select(["id", "updated_at"])
    revisions = {row["id"]: row["updated_at"] for row in query.limit(None).to_list()}
    return lambda chunk: (
        chunk.get("updated_at") is None
        or (revisions.get(chunk["document_id"]) == chunk["updated_at"])
    )
