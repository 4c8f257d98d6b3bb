"""One identity, one view: through the reference host, what automatic memory keeps the
agent's own tools find, and another agent sees none of it."""

from collections.abc import Sequence

import pytest

from openclaw_tinmem.config import Settings
from openclaw_tinmem.events import HookContext, Message, PromptBuildEvent, ToolRegistration
from openclaw_tinmem.plugin.hookimpls import TinmemPlugin
from openclaw_tinmem.plugin.host import Host, load_plugins


def quiet_model(messages: Sequence[Message], tools: Sequence[ToolRegistration]) -> str:
    return "Noted."


@pytest.fixture
def host(plugin_settings: Settings, make_plugin) -> Host:  # type: ignore[no-untyped-def]
    plugin: TinmemPlugin = make_plugin(plugin_settings)
    return Host(load_plugins([plugin], entry_points=False), quiet_model)


def texts(result: object) -> list[str]:
    return [item["text"] for item in result.data["results"]]  # type: ignore[attr-defined]


def test_captured_and_stored_memories_are_one_view_for_their_agent_only(host: Host) -> None:
    alpha = host.start_session(agent_id="alpha", user_id="ana")
    host.turn(alpha, "Please remember that I am allergic to peanuts.")
    host.end_session(alpha)  # waits for the capture
    stored = host.call_tool(
        "memory_store",
        {
            "content": "Ana's editor of choice is Helix",
            "category": "preferences",
            "scope": "user:ana",
        },
        alpha,
    )
    assert stored.data["scope"] == "user:ana"
    again = host.start_session(agent_id="alpha", user_id="ana")
    found = texts(host.call_tool("memory_recall", {"query": "peanut allergy"}, again))
    assert any("peanuts" in text for text in found)
    found = texts(host.call_tool("memory_recall", {"query": "which editor"}, again))
    assert any("Helix" in text for text in found)

    beta = host.start_session(agent_id="beta", user_id="bob")
    for query in ("peanut allergy", "which editor"):
        assert texts(host.call_tool("memory_recall", {"query": query}, beta)) == []
    denied = host.call_tool("memory_recall", {"query": "peanuts", "scope": "agent:alpha"}, beta)
    assert denied.data["error"]["type"] == "access_denied"
    assert "agent:alpha" in denied.data["error"]["message"]
    denied = host.call_tool("memory_recall", {"query": "editor", "scope": ["user:ana"]}, beta)
    assert denied.data["error"]["type"] == "access_denied"


def test_automatic_recall_reads_the_same_scopes_as_the_tools(host: Host) -> None:
    alpha = host.start_session(agent_id="alpha", user_id="ana")
    host.call_tool(
        "memory_store",
        {"content": "Ana is allergic to peanuts", "category": "profile", "scope": "agent:alpha"},
        alpha,
    )
    again = host.start_session(agent_id="alpha", user_id="ana")
    host.turn(again, "Can you suggest a snack with peanuts?")
    assert again.last_injected and "peanuts" in again.last_injected
    beta = host.start_session(agent_id="beta")
    host.turn(beta, "Can you suggest a snack with peanuts?")
    assert beta.last_injected is None


def test_switches_turn_automatic_recall_and_capture_off(
    plugin_settings: Settings, make_plugin
) -> None:  # type: ignore[no-untyped-def]
    settings = plugin_settings.model_copy(
        update={"recall_exclude_agents": ["quiet-*"], "capture_exclude_agents": ["quiet-*"]}
    )
    plugin: TinmemPlugin = make_plugin(settings)
    host = Host(load_plugins([plugin], entry_points=False), quiet_model)
    quiet = host.start_session(agent_id="quiet-1")
    host.turn(quiet, "Please remember that I am allergic to peanuts.")
    host.end_session(quiet)
    assert plugin.service.store.count() == 0 and plugin.journal.pending(due_only=False) == []
    host.call_tool(
        "memory_store", {"content": "Peanuts are banned in the office", "category": "events"}, quiet
    )
    assert (
        host.manager.hook.before_prompt_build(
            event=PromptBuildEvent("any peanuts in the office?"),
            ctx=HookContext(agent_id="quiet-1"),
        )
        == []
    )
    off = make_plugin(
        plugin_settings.model_copy(update={"auto_capture": False, "auto_recall": False})
    )
    other = Host(load_plugins([off], entry_points=False), quiet_model)
    session = other.start_session(agent_id="main")
    other.turn(session, "Please remember that office peanuts are banned.")
    other.end_session(session)
    assert session.last_injected is None and off.journal.pending(due_only=False) == []
    assert off.service.store.count() == 1  # the memory stored above; nothing was captured
