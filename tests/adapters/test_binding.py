"""``MemoryBinding``, the adapters' common part: its tool calls answer errors as the tools do."""

import json

from openclaw_tinmem.adapters.binding import MemoryBinding
from openclaw_tinmem.config import Settings
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
