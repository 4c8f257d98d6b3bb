"""The workspace store's revisions: search finds only the revision a file holds, and clearing
up after one write never removes what a later write, from another host, committed."""

from datetime import timedelta
from typing import Any

import pyarrow as pa
import pytest

from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.workspace.store import WorkspaceStore

SCOPE = "agent:main"


def _chunk_rows(workspace: WorkspaceStore, document_id: str) -> list[dict[str, Any]]:
    query = workspace.chunks.search().where(f"document_id = '{document_id}'")
    return query.limit(None).to_list()


def test_search_finds_only_the_revision_a_file_holds(service: MemoryService) -> None:
    """What a write cut short leaves (chunks of a revision whose row was never committed;
    chunks of the revision replaced, not yet dropped) is never found."""
    workspace = WorkspaceStore(service.store, service.embedder, SCOPE)
    document = workspace.write("notes/trip.md", "We fly to Oslo on Friday.", SCOPE, append=False)
    (chunk,) = _chunk_rows(workspace, document.id)
    never_committed = {
        **chunk,
        "text": "We fly to Quito on Monday.",
        "updated_at": document.updated_at + timedelta(minutes=5),
    }
    replaced = {
        **chunk,
        "text": "We sail to Tromso.",
        "updated_at": document.updated_at - timedelta(seconds=5),
    }
    workspace.chunks.add(
        pa.Table.from_pylist([never_committed, replaced], schema=workspace.chunks.schema)
    )
    assert [hit.content for hit in workspace.search("Quito Monday", 5, SCOPE)] == [
        "We fly to Oslo on Friday."
    ]
    assert [hit.content for hit in workspace.search("sail Tromso", 5, SCOPE)] == [
        "We fly to Oslo on Friday."
    ]
    # the next write drops the revisions before its own; a later one (perhaps another host's
    # write in flight) stays, and search passes it over
    written = workspace.write("notes/trip.md", "Back on Sunday.", SCOPE, append=True)
    revisions = {row["updated_at"] for row in _chunk_rows(workspace, written.id)}
    assert revisions == {written.updated_at, never_committed["updated_at"]}
    assert [hit.content for hit in workspace.search("Quito Monday", 5, SCOPE)] == [
        "We fly to Oslo on Friday.\nBack on Sunday."
    ]


def test_a_write_committed_while_another_clears_up_keeps_its_chunks(
    service: MemoryService,
) -> None:
    """Hosts sharing an object store write without a common lock: host B's whole write may
    land between host A's commit and A's clearing up of the older revisions' chunks."""
    host_a = WorkspaceStore(service.store, service.embedder, SCOPE)
    host_b = WorkspaceStore(service.store, service.embedder, SCOPE)
    host_a.write("notes/shared.md", "host a was here", SCOPE, append=True)
    delete = host_a.chunks.delete
    interleaved: list[str] = []

    def host_b_writes_first(where: str) -> Any:
        if not interleaved and "<" in where:  # host A clearing up after its commit
            interleaved.append(where)
            host_b.write("notes/shared.md", "host b was here", SCOPE, append=True)
        return delete(where)

    host_a.chunks.delete = host_b_writes_first
    host_a.write("notes/shared.md", "host a again", SCOPE, append=True)
    assert interleaved
    current = host_b.read("notes/shared.md", SCOPE)
    assert current.content.splitlines() == ["host a was here", "host a again", "host b was here"]
    assert {row["updated_at"] for row in _chunk_rows(host_b, current.id)} == {current.updated_at}
    (hit,) = host_b.search("host b was here", 5, SCOPE)
    assert hit.path == "notes/shared.md" and "host b was here" in hit.content


def test_a_revision_is_later_than_the_one_it_replaces_whatever_the_clock(
    service: MemoryService,
) -> None:
    """A host whose clock is behind still writes a later revision, so the clearing up
    after it removes the one replaced and not its own."""
    workspace = WorkspaceStore(service.store, service.embedder, SCOPE)
    first = workspace.write("notes/clock.md", "one", SCOPE, append=False)
    ahead = first.updated_at + timedelta(hours=1)  # written by a host an hour ahead
    workspace.documents.update(where=f"id = '{first.id}'", values={"updated_at": ahead})
    workspace.chunks.update(where=f"document_id = '{first.id}'", values={"updated_at": ahead})
    second = workspace.write("notes/clock.md", "two", SCOPE, append=True)
    assert second.updated_at > ahead
    assert {row["updated_at"] for row in _chunk_rows(workspace, second.id)} == {second.updated_at}
    (hit,) = workspace.search("two", 5, SCOPE)
    assert hit.content == "one\ntwo"


def test_a_write_that_landed_is_reported_written_when_its_clean_up_fails(
    service: MemoryService,
) -> None:
    """Raising after the commit would have an agent append the same line again."""
    workspace = WorkspaceStore(service.store, service.embedder, SCOPE)
    workspace.write("notes/log.md", "first line", SCOPE, append=True)
    delete = workspace.chunks.delete

    def failing_clean_up(where: str) -> Any:
        if "<" in where:
            raise OSError("the object store timed out")
        return delete(where)

    workspace.chunks.delete = failing_clean_up
    written = workspace.write("notes/log.md", "second line", SCOPE, append=True)
    assert workspace.read("notes/log.md", SCOPE).content == "first line\nsecond line"
    (hit,) = workspace.search("second line", 5, SCOPE)  # the older revision's chunk passed over
    assert hit.content == written.content
    workspace.chunks.delete = delete
    latest = workspace.write("notes/log.md", "third line", SCOPE, append=True)
    assert {row["updated_at"] for row in _chunk_rows(workspace, latest.id)} == {latest.updated_at}


def test_a_commit_that_landed_but_reported_an_error_keeps_its_chunks(
    service: MemoryService,
) -> None:
    """An object store may apply a write and still fail the request: the file it wrote stays
    searchable."""
    workspace = WorkspaceStore(service.store, service.embedder, SCOPE)
    merge_insert = workspace.documents.merge_insert

    class LandsThenFails:
        def __init__(self, merge: Any) -> None:
            self.merge = merge

        def __getattr__(self, name: str) -> Any:
            attribute = getattr(self.merge, name)
            if name != "execute":
                return lambda *arguments, **named: LandsThenFails(attribute(*arguments, **named))

            def execute(data: Any) -> Any:
                attribute(data)
                raise OSError("connection reset after the commit")

            return execute

    workspace.write("notes/plan.md", "Ship on Friday.", SCOPE, append=False)
    workspace.documents.merge_insert = lambda on: LandsThenFails(merge_insert(on))
    with pytest.raises(OSError):
        workspace.write("notes/plan.md", "Then rest.", SCOPE, append=True)
    workspace.documents.merge_insert = merge_insert
    stored = workspace.read("notes/plan.md", SCOPE)
    assert stored.content == "Ship on Friday.\nThen rest."
    (hit,) = workspace.search("rest", 5, SCOPE)
    assert hit.content == stored.content
