"""The OpenClaw plugin (integrations/openclaw) inside the real OpenClaw 2026.9.6, driven
headless with ``openclaw agent --local`` — OpenClaw's own embedded agent runner, plugin loader
and hook runner, in its own process, a cold Python side each run — under OpenClaw's default
configuration plus the consent setting (see openclaw_home). What the model received is read
from the scripted server's record of requests.
"""

import json
import subprocess
from pathlib import Path

import pytest

from openclaw_tinmem.config import Settings
from openclaw_tinmem.models import Source
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.testing import FakeLLM, Reply
from tests.integrations.openclaw_home import (
    OPENCLAW,
    OPENCLAW_VERSION,
    TINMEM,
    OpenClaw,
    offered_tools,
    require_openclaw,
    system_text,
    user_text,
    wait_for_memories,
)

require_openclaw()

MEMORY_TOOLS = {
    "memory_recall",
    "memory_store",
    "memory_forget",
    "memory_update",
    "memory_search",
    "memory_write",
    "memory_read",
    "memory_tree",
}


@pytest.fixture
def model():  # type: ignore[no-untyped-def]
    with FakeLLM(default=Reply(raw="Noted.")) as server:
        yield server


@pytest.fixture
def tinmem_settings(settings: Settings, tmp_path: Path) -> Settings:
    return settings.model_copy(update={"journal_path": str(tmp_path / "journal")})


def test_under_the_default_configuration_a_first_turn_gets_memory_and_only_tinmem_is_memory(
    tmp_path: Path, model: FakeLLM, tinmem_settings: Settings
) -> None:
    openclaw = OpenClaw(tmp_path / "home", model, tinmem_settings)
    first, logged = openclaw.turn("first-session", "Please remember that I am allergic to peanuts.")
    assert first["meta"]["finalAssistantVisibleText"] == "Noted."
    request = model.requests[-1]
    # Tool Search is on by default: the memory tools stay in the model's direct tool list,
    # and memory-core (the dreaming sidecar) brings none of its own.
    assert offered_tools(request) >= MEMORY_TOOLS
    assert not {"memory_get", "intent"} & offered_tools(request)
    assert "## Memory (tinmem)" in system_text(request)
    assert "memory_get" not in system_text(request)
    assert "conflict" not in logged and "took longer" not in logged, logged
    captured = wait_for_memories(tinmem_settings, "agent:main", "peanuts")
    assert any("peanuts" in text for text in captured), captured

    # A new `agent --local` process: the Python side starts cold when the plugin registers,
    # and its first recall answers within the default 3000 ms budget.
    _, logged = openclaw.turn("second-session", "Can you suggest a snack for me?")
    prompt = user_text(model.requests[-1])
    assert "took longer" not in logged, logged
    assert "<agent-experience>" in prompt and "peanuts" in prompt
    assert prompt.index("</agent-experience>") < prompt.index("Can you suggest a snack for me?")


def test_with_dreaming_on_memory_core_keeps_its_tool_names_and_nothing_conflicts(
    tmp_path: Path, model: FakeLLM, tinmem_settings: Settings
) -> None:
    """An operator who turns dreaming on gets memory-core beside tinmem: memory_search is then
    memory-core's (behind Tool Search, as OpenClaw offers it), tinmem's own tools stay in the
    direct list, and no name is offered twice (a conflict was logged on every run)."""
    openclaw = OpenClaw(tmp_path / "home", model, tinmem_settings)
    openclaw.set_plugin_config({"dreaming": {"enabled": True}})
    _, logged = openclaw.turn("first-session", "Please remember that I am allergic to peanuts.")
    offered = offered_tools(model.requests[-1])
    assert offered >= MEMORY_TOOLS - {"memory_search"}, offered
    assert "conflict" not in logged, logged
    assert wait_for_memories(tinmem_settings, "agent:main", "peanuts")


def test_a_tool_call_from_the_openclaw_agent_runs_as_that_agent(
    tmp_path: Path, model: FakeLLM, tinmem_settings: Settings
) -> None:
    openclaw = OpenClaw(tmp_path / "home", model, tinmem_settings)
    arguments = {
        "content": "The deploy window is Tuesday 14:00 UTC",
        "category": "events",
        "scope": "agent:main",
    }
    model.script(
        Reply(tool_calls=({"name": "memory_store", "arguments": arguments},)),
        Reply(tool_calls=({"name": "memory_search", "arguments": {"query": "deploy window"}},)),
        Reply(raw="Done."),
    )
    openclaw.turn("tool-session", "Note the deploy window.")
    tool_results = [m for m in model.requests[-1]["messages"] if m["role"] == "tool"]
    assert json.loads(tool_results[0]["content"])["action"] == "created"
    found = json.loads(tool_results[1]["content"])["results"]  # the workspace tool finds it too
    assert any("Tuesday 14:00" in result["content"] for result in found), found
    service = MemoryService.from_settings(tinmem_settings)
    try:
        stored = service.store.list_memories(scopes=["agent:main"], limit=None)
        assert [memory.content for memory in stored if memory.source is Source.TOOL] == [
            "The deploy window is Tuesday 14:00 UTC"
        ]
    finally:
        service.close()


def test_the_readme_options_block_works_as_written(
    tmp_path: Path, model: FakeLLM, tinmem_settings: Settings
) -> None:
    """The plugin's README shows every option with an explicit command and environment."""
    openclaw = OpenClaw(tmp_path / "home", model, tinmem_settings)
    openclaw.set_plugin_config(
        {
            "command": [str(TINMEM), "bridge"],
            "env": {"TINMEM_DB_PATH": tinmem_settings.db_path},
            "recallTimeoutMs": 3000,
            "toolTimeoutMs": 15000,
            "toolSets": ["tinmem", "workspace"],
            "injectAs": "prependContext",
        }
    )
    openclaw.turn("first-session", "Please remember that I am allergic to peanuts.")
    assert wait_for_memories(tinmem_settings, "agent:main", "peanuts")
    openclaw.turn("second-session", "Can you suggest a snack for me?")
    assert "peanuts" in user_text(model.requests[-1])


def test_without_consent_the_plugin_says_automatic_memory_is_off_and_tools_still_work(
    tmp_path: Path, model: FakeLLM, tinmem_settings: Settings
) -> None:
    openclaw = OpenClaw(tmp_path / "home", model, tinmem_settings, consent=False)
    _, logged = openclaw.turn("first-session", "Please remember that I am allergic to peanuts.")
    assert logged.count("automatic memory is OFF") == 1, logged  # once, not per instance
    assert "plugins.entries.tinmem.hooks.allowConversationAccess true" in logged
    assert offered_tools(model.requests[-1]) >= MEMORY_TOOLS
    assert "<agent-experience>" not in user_text(model.requests[-1])


def test_without_the_python_side_the_turn_goes_on_and_the_failure_is_logged_once(
    tmp_path: Path, model: FakeLLM, tinmem_settings: Settings
) -> None:
    openclaw = OpenClaw(tmp_path / "home", model, tinmem_settings)
    openclaw.set_plugin_config({"command": ["/nonexistent/tinmem", "bridge"]})
    answer, logged = openclaw.turn("broken", "Can you suggest a snack for me?")
    assert answer["meta"]["finalAssistantVisibleText"] == "Noted."
    assert "<agent-experience>" not in user_text(model.requests[-1])
    assert logged.count("could not start /nonexistent/tinmem") == 1, logged
    version = subprocess.run(
        [str(OPENCLAW), "--version"], env=openclaw.environment, capture_output=True, text=True
    ).stdout
    assert OPENCLAW_VERSION in version
