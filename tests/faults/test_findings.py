"""The fault and abuse findings of issue 18, each reproduced and shown fixed.

1 ids that shared a scope; 2 forget by query deleting the wrong memory; 3 secrets at rest
(see also tests/test_redaction.py); 4 a broken configuration raising into the host; 5 the
write lock held across an LLM wait; 6 tool calls without a time box; 7 an unclosed block
tag losing the message, and validation errors that named no field.
"""

import threading
import time
from collections.abc import Sequence
from pathlib import Path

import lancedb
import pytest

from openclaw_tinmem.access import Identity
from openclaw_tinmem.config import Settings
from openclaw_tinmem.events import (
    HookContext,
    Message,
    SessionEvent,
    ToolRegistration,
)
from openclaw_tinmem.models import Category
from openclaw_tinmem.plugin.hookimpls import TinmemPlugin, fallback_journal_path
from openclaw_tinmem.plugin.host import Host, load_plugins
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.testing import FakeLLM, Reply
from openclaw_tinmem.tools.toolbox import build_toolbox

pytestmark = pytest.mark.faults


def quiet_model(messages: Sequence[Message], tools: Sequence[ToolRegistration]) -> str:
    return "Noted."


# 1 ---------------------------------------------------------------- ids sharing a scope
@pytest.mark.parametrize(
    ("first", "second"), [("张三", "李四"), ("team/alpha", "team_alpha"), ("josé", "josè")]
)
def test_1_agents_whose_ids_used_to_collide_see_only_their_own_captures(
    plugin_settings: Settings, make_plugin, first: str, second: str
) -> None:  # type: ignore[no-untyped-def]
    host = Host(load_plugins([make_plugin(plugin_settings)], entry_points=False), quiet_model)
    owner = host.start_session(agent_id=first)
    host.turn(owner, "Please remember that the launch code is 7310.")
    host.end_session(owner)
    other = host.start_session(agent_id=second)
    found = host.call_tool("memory_recall", {"query": "launch code"}, other).data["results"]
    assert found == []
    again = host.start_session(agent_id=first)
    assert host.call_tool("memory_recall", {"query": "launch code"}, again).data["results"]


# 2 ---------------------------------------------------------------- forget by query
def test_2_forget_by_query_removes_only_the_statement_it_names(service: MemoryService) -> None:
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


# 3 ---------------------------------------------------------------- true forgetting
def test_3_a_purged_memory_is_gone_from_every_version_of_the_table(
    service: MemoryService, settings: Settings
) -> None:
    secret = "The vault combination is 11-22-33 left right left"
    memory = service.remember(secret, Category.EVENTS).memory
    service.remember("Lunch is at noon", Category.EVENTS)
    service.forget(memory_id=memory.id, purge=True)
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


# 4 ---------------------------------------------------------------- broken configuration
@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("TINMEM_CONFIG", "/nonexistent/tinmem.toml"),
        ("TINMEM_CONFIG", "MALFORMED"),
        ("TINMEM_RECALL_LIMIT", "ten"),
    ],
)
def test_4_a_broken_configuration_never_raises_into_the_host(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, variable: str, value: str
) -> None:
    if value == "MALFORMED":
        value = str(tmp_path / "broken.toml")
        Path(value).write_text("recall_limit = = 3\n")
    monkeypatch.setenv(variable, value)
    monkeypatch.setenv("TINMEM_JOURNAL_PATH", str(tmp_path / "journal"))
    plugin = TinmemPlugin()
    host = Host(load_plugins([plugin], entry_points=False), quiet_model)  # register_tools
    assert set(host.tools) >= {"memory_recall", "memory_store"}
    session = host.start_session(agent_id="alpha")
    assert host.turn(session, "Please remember that I am allergic to peanuts.") == "Noted."
    assert session.last_injected is None and plugin.degraded()
    result = host.call_tool("memory_recall", {"query": "allergy"}, session)
    assert result.data["error"]["type"] == "config_error"
    host.end_session(session)
    plugin.before_reset(event=SessionEvent("s"), ctx=HookContext())
    plugin.before_compaction(event=SessionEvent("s"), ctx=HookContext())
    (turn,) = (tmp_path / "journal").glob("*.turn.json")  # kept raw for later
    assert "peanuts" in turn.read_text() and fallback_journal_path() == tmp_path / "journal"
    plugin.close()


# 5 and 6 ------------------------------------------------------ no lock across an LLM wait
def test_5_6_a_hanging_llm_neither_holds_the_lock_nor_the_tool_call(
    llm_settings: Settings, fake_llm: FakeLLM, make_service
) -> None:  # type: ignore[no-untyped-def]
    settings = llm_settings.model_copy(
        update={"tool_timeout_seconds": 1.0, "llm_timeout_seconds": 6.0, "llm_max_retries": 0}
    )
    fake_llm.default = Reply({"headline": "h", "summary": "s"}, delay=5.0)
    service: MemoryService = make_service(settings)
    existing = service.remember("Short note", Category.EVENTS).memory  # short: no LLM call
    long_text = " ".join(["The deployment pipeline now runs integration tests first."] * 4)
    started = time.perf_counter()
    updating = threading.Thread(
        target=service.update, args=(existing.id,), kwargs={"content": long_text}
    )
    updating.start()
    time.sleep(0.3)  # the update is now waiting for the LLM
    other = make_service(settings)  # another writer of the same store
    lock_free = time.perf_counter()
    with other.store.write_lock():
        waited = time.perf_counter() - lock_free
    updating.join(timeout=30)
    assert waited < 0.5  # nobody held the lock while the LLM hung
    assert time.perf_counter() - started < 4.0  # the time box, not the 5 s LLM, decided
    assert service.get(existing.id).content == long_text
    stored = build_toolbox(service).call(
        "memory_store", {"content": long_text + " Also on Fridays.", "category": "patterns"}
    )
    assert stored.data["action"] in ("created", "merged")


# 7 ---------------------------------------------------------------- messages and fields
def test_7_an_unclosed_block_tag_keeps_the_message(service: MemoryService) -> None:
    from openclaw_tinmem.capture.worker import split_turn

    turn, _ = split_turn([Message("user", "<agent-experience> I live in Oslo, remember that.")], 0)
    assert "I live in Oslo" in turn[0].content


def test_7_validation_errors_name_their_field(service: MemoryService) -> None:
    tools = build_toolbox(service)
    surrogate = tools.call("memory_store", {"content": "x", "category": "events", "\ud800": 1})
    assert surrogate.data["error"]["field"] == "'\\ud800'"
    nan = tools.call(
        "memory_store", {"content": "x", "category": "events", "importance": float("nan")}
    )
    assert nan.data["error"]["field"] == "importance"
    assert "finite" in nan.data["error"]["message"]
