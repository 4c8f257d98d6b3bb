"""A broken configuration (a missing or malformed file, a bad value) degrades the plugin:
no exception in the host, a config_error from the tools, and every turn kept in the journal
to be captured once it is fixed."""

from collections.abc import Sequence
from pathlib import Path

import pytest

from openclaw_tinmem.events import HookContext, Message, SessionEvent, ToolRegistration
from openclaw_tinmem.plugin.hookimpls import TinmemPlugin, fallback_journal_path
from openclaw_tinmem.plugin.host import Host, load_plugins

pytestmark = pytest.mark.faults


def quiet_model(messages: Sequence[Message], tools: Sequence[ToolRegistration]) -> str:
    return "Noted."


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("TINMEM_CONFIG", "/nonexistent/tinmem.toml"),
        ("TINMEM_CONFIG", "MALFORMED"),
        ("TINMEM_RECALL_LIMIT", "ten"),
    ],
)
def test_a_broken_configuration_never_raises_into_the_host(
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
