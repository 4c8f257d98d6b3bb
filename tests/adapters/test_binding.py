"""``MemoryBinding``, the adapters' common part: its tool calls answer errors as the tools do."""

import json
import shutil
from pathlib import Path

import pytest

from openclaw_tinmem.adapters.binding import MemoryBinding
from openclaw_tinmem.config import Settings
from openclaw_tinmem.errors import InvalidArgumentError
from openclaw_tinmem.plugin.hookimpls import TinmemPlugin


def test_a_call_the_binding_cannot_make_is_an_error_naming_the_field(
    plugin_settings: Settings, make_plugin
) -> None:  # type: ignore[no-untyped-def]
    plugin: TinmemPlugin = make_plugin(plugin_settings)
    binding = MemoryBinding(plugin, agent_id="support", user_id="ana")
    unknown = json.loads(binding.call_tool("memory_nope", {}))["error"]
    assert (unknown["type"], unknown["field"]) == ("unknown_tool", "name")
    assert unknown["message"].startswith("no tool 'memory_nope'; tools: memory_recall")
    garbled = json.loads(binding.call_tool("memory_recall", '{"query": '))["error"]
    assert (garbled["type"], garbled["field"]) == ("invalid_argument", "arguments")
    missing = json.loads(binding.call_tool("memory_recall", {}))["error"]
    assert (missing["type"], missing["field"]) == ("invalid_argument", "query")


def test_a_turn_given_as_openai_chat_dicts_is_captured(
    plugin_settings: Settings, make_plugin
) -> None:  # type: ignore[no-untyped-def]
    plugin: TinmemPlugin = make_plugin(plugin_settings)
    binding = MemoryBinding(plugin, agent_id="support", user_id="ana")
    binding.turn_ended(
        [
            {"role": "user", "content": "Our office moved to 12 Harbour Street."},
            {"role": "assistant", "content": [{"type": "text", "text": "Noted, Harbour Street."}]},
        ]
    )
    assert binding.flush()
    kept = plugin.service.store.list_memories(scopes=["agent:support"])
    assert any("Harbour Street" in memory.content for memory in kept)


def test_a_blank_user_id_is_refused_not_taken_for_no_user(
    plugin_settings: Settings, make_plugin
) -> None:  # type: ignore[no-untyped-def]
    plugin: TinmemPlugin = make_plugin(plugin_settings)
    for blank in ("", "  "):
        with pytest.raises(InvalidArgumentError) as refused:
            MemoryBinding(plugin, agent_id="support", user_id=blank)
        assert refused.value.field == "user_id"


def test_arguments_that_are_not_an_object_name_the_field(
    plugin_settings: Settings, make_plugin
) -> None:  # type: ignore[no-untyped-def]
    binding = MemoryBinding(make_plugin(plugin_settings), agent_id="support")
    for arguments in ("[1, 2]", '"query"'):
        error = json.loads(binding.call_tool("memory_recall", arguments))["error"]
        assert (error["type"], error["field"]) == ("invalid_argument", "arguments")
        assert "query" in error["message"]  # what is allowed


def test_closing_after_the_store_is_gone_logs_and_never_raises(
    plugin_settings: Settings, make_plugin, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:  # type: ignore[no-untyped-def]
    settings = plugin_settings.model_copy(update={"db_path": str(tmp_path / "gone")})
    binding = MemoryBinding(settings=settings, agent_id="support", user_id="ana")
    stored = binding.call_tool(
        "memory_store", {"content": "Likes green tea", "category": "preferences"}
    )
    assert json.loads(stored)["action"] == "created"
    shutil.rmtree(tmp_path / "gone")  # unmounted, removed, unreachable
    binding.close()
    binding.close()
    assert "closing tinmem" in caplog.text


def test_tools_bound_before_a_close_work_on_the_store_configured_after_it(
    plugin_settings: Settings, make_plugin, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    plugin: TinmemPlugin = make_plugin(plugin_settings)
    binding = MemoryBinding(plugin, agent_id="support", user_id="ana")
    binding.call_tool(
        "memory_store", {"content": "Likes chess openings", "category": "preferences"}
    )
    plugin.close()
    found = json.loads(binding.call_tool("memory_recall", {"query": "chess"}))
    assert [result["text"] for result in found["results"]] == ["Likes chess openings"]
    plugin.close()
    other = plugin_settings.model_copy(update={"db_path": str(tmp_path / "other")})
    plugin.configure(other)
    written = json.loads(binding.call_tool("memory_write", {"content": "note for the new store"}))
    assert "error" not in written
    assert plugin.service.settings.db_path == other.db_path
    fresh = MemoryBinding(plugin, agent_id="support", user_id="ana")
    read = json.loads(fresh.call_tool("memory_read", {"path": written["path"]}))
    assert "note for the new store" in read["content"]
