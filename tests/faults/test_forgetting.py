"""Forgetting deletes what it names and nothing else, and a purge leaves no trace in any
version of the table or any file of the store."""

from pathlib import Path

import lancedb
import pytest

from openclaw_tinmem.access import Identity
from openclaw_tinmem.config import Settings
from openclaw_tinmem.errors import NotFoundError
from openclaw_tinmem.models import Category
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.tools.toolbox import build_toolbox

pytestmark = pytest.mark.faults


def test_forget_by_query_removes_only_the_statement_it_names(service: MemoryService) -> None:
    tools = build_toolbox(service)
    alpha = Identity(agent_id="a")
    ana = service.remember(
        "Ana's launch code for the demo is 4451", Category.EVENTS, scope="agent:a"
    )
    bob = service.remember(
        "Bob's launch code for the demo is 9907", Category.EVENTS, scope="agent:b"
    )
    shared = service.remember("The launch code for the demo is 1234", Category.EVENTS)
    asked = {"query": "Bob's launch code for the demo is 9907", "scope": "agent:a"}
    assert tools.call("memory_forget", asked, alpha).data["deleted"] == []
    assert tools.call("memory_forget", {"query": asked["query"]}, alpha).data["deleted"] == []
    for memory in (ana, bob, shared):
        assert service.store.get([memory.memory.id])  # nothing went
    preview = tools.call(
        "memory_forget", {"query": "Ana's launch code for the demo is 4451", "dry_run": True}, alpha
    ).data
    assert [m["id"] for m in preview["would_delete"]] == [ana.memory.id]
    assert preview["deleted"] == [] and service.store.get([ana.memory.id])
    done = tools.call("memory_forget", {"query": "Ana's launch code for the demo is 4451"}, alpha)
    assert done.data["deleted"] == [ana.memory.id]
    assert all(c["id"] != ana.memory.id for c in done.data["candidates"])


def test_a_purged_memory_is_gone_from_every_version_of_the_table(
    service: MemoryService, settings: Settings
) -> None:
    secret = "The vault combination is 11-22-33 left right left"
    memory = service.remember(secret, Category.EVENTS).memory
    service.remember("Lunch is at noon", Category.EVENTS)
    service.update(memory.id, content=secret + " (kept in the safe)")  # a history of changes
    service.forget(memory_id=memory.id, purge=True)
    service.store.history.flush()  # whatever history is queued is on disk before we look
    with pytest.raises(NotFoundError):
        service.restore(memory.id)  # nothing is left to bring it back from
    table = lancedb.connect(settings.db_path).open_table(settings.table_name)
    for version in table.list_versions():
        table.checkout(version["version"])
        contents = table.to_arrow().column("content").to_pylist()
        assert secret not in contents, version
    files = b"".join(
        path.read_bytes() for path in Path(settings.db_path).rglob("*") if path.is_file()
    )
    assert b"vault combination" not in files
    assert oct(Path(settings.db_path).stat().st_mode & 0o777) == "0o700"
