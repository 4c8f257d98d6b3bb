"""One agent never sees another's memories, whatever their ids look like: ids that used to
fold into one scope (non-ASCII, slashes, accents) keep their captures apart."""

import json
from collections.abc import Sequence

import pytest

from openclaw_tinmem.config import Settings
from openclaw_tinmem.events import Message, ToolRegistration
from openclaw_tinmem.plugin.host import Host, load_plugins

pytestmark = pytest.mark.faults


def quiet_model(messages: Sequence[Message], tools: Sequence[ToolRegistration]) -> str:
    return "Noted."


@pytest.mark.parametrize(
    ("first", "second"), [("张三", "李四"), ("team/alpha", "team_alpha"), ("josé", "josè")]
)
def test_agents_whose_ids_used_to_collide_see_only_their_own_captures(
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


def test_users_of_one_agent_never_get_each_others_facts_merged_or_skipped(
    plugin_settings: Settings, make_plugin
) -> None:  # type: ignore[no-untyped-def]
    plugin = make_plugin(plugin_settings)
    host = Host(load_plugins([plugin], entry_points=False), quiet_model)
    ana = host.start_session(agent_id="main", user_id="ana")
    bob = host.start_session(agent_id="main", user_id="bob")
    host.turn(ana, "I am a nurse and I live in Lyon.")
    assert plugin.flush()
    host.turn(bob, "I am a pilot and I live in Oslo.")  # a profile fact: merged by the rule
    host.turn(bob, "I am allergic to peanuts.")
    assert plugin.flush()
    host.turn(ana, "I am allergic to peanuts.")  # identical words, her own fact
    assert plugin.flush()
    # asked in new sessions: what a session already shows is not injected again
    ana = host.start_session(agent_id="main", user_id="ana")
    bob = host.start_session(agent_id="main", user_id="bob")
    host.turn(ana, "Where do I live and what is my job?")
    assert ana.last_injected and "Lyon" in ana.last_injected and "Oslo" not in ana.last_injected
    host.turn(bob, "Where do I live and what is my job?")
    assert bob.last_injected and "Oslo" in bob.last_injected and "Lyon" not in bob.last_injected
    allergies = [
        memory.provenance.user_id
        for memory in plugin.service.list_memories(limit=None)
        if memory.content == "I am allergic to peanuts."
    ]
    assert sorted(allergies) == ["ana", "bob"]  # hers is not skipped as bob's duplicate
    plugin.close()


def test_a_users_own_facts_still_merge_and_deduplicate_among_many_users(
    plugin_settings: Settings, make_plugin
) -> None:  # type: ignore[no-untyped-def]
    plugin = make_plugin(plugin_settings)
    host = Host(load_plugins([plugin], entry_points=False), quiet_model)
    ana = host.start_session(agent_id="main", user_id="ana")
    host.turn(ana, "My name is Ana Lopez and I work as a nurse.")
    assert plugin.flush()
    for number, name in enumerate(["bob", "cy", "dee", "eli", "fay", "gus"], start=2):
        other = host.start_session(agent_id="main", user_id=name)
        host.turn(other, f"My name is {name.title()} and I have {number} cats at home.")
        host.turn(other, "I really prefer aisle seats on trains.")
    assert plugin.flush()
    host.turn(ana, "My name is Ana and I have three cats at home.")  # her profile: merged
    host.turn(ana, "I really prefer aisle seats on trains.")
    host.turn(ana, "I really prefer aisle seats on trains.")  # her own duplicate: skipped
    assert plugin.flush()
    hers = [
        memory
        for memory in plugin.service.list_memories(limit=None)
        if memory.provenance.user_id == "ana" and "episode" not in memory.tags
    ]
    assert sorted(memory.category.value for memory in hers) == ["preferences", "profile"]
    plugin.close()


def test_what_a_user_stores_is_not_injected_for_another_user_of_the_agent(
    plugin_settings: Settings, make_plugin
) -> None:  # type: ignore[no-untyped-def]
    settings = plugin_settings.model_copy(update={"store_scope": "agent"})
    plugin = make_plugin(settings)
    host = Host(load_plugins([plugin], entry_points=False), quiet_model)
    ana = host.start_session(agent_id="support", user_id="ana")
    stored = host.call_tool(
        "memory_store",
        {
            "content": "User has a severe peanut allergy and carries an EpiPen",
            "category": "profile",
        },
        ana,
    ).data
    memory = plugin.service.get(stored["id"])
    assert (memory.provenance.agent_id, memory.provenance.user_id) == ("support", "ana")
    bob = host.start_session(agent_id="support", user_id="bob")
    host.turn(bob, "Do I have any allergies or health conditions?")
    assert not bob.last_injected or "peanut" not in bob.last_injected
    again = host.start_session(agent_id="support", user_id="ana")
    host.turn(again, "Do I have any allergies or health conditions?")
    assert again.last_injected and "peanut" in again.last_injected
    plugin.close()


def test_the_readmes_recipe_keeps_users_of_one_agent_apart_in_every_tool(
    plugin_settings: Settings, make_plugin
) -> None:  # type: ignore[no-untyped-def]
    apart = {"capture_scope": "user", "store_scope": "user", "workspace_scope": "user"}
    plugin = make_plugin(plugin_settings.model_copy(update=apart))
    host = Host(load_plugins([plugin], entry_points=False), quiet_model)
    ana = host.start_session(agent_id="support", user_id="ana")
    host.call_tool(
        "memory_store", {"content": "User's therapist is Dr Okafor", "category": "entities"}, ana
    )
    host.call_tool("memory_write", {"content": "Therapy appointment on Friday at 3pm"}, ana)
    host.turn(ana, "My blood type is AB negative, please remember it.")
    assert plugin.flush()
    bob = host.start_session(agent_id="support", user_id="bob")
    host.turn(bob, "Who is my therapist, when is my appointment, what is my blood type?")
    assert not bob.last_injected
    assert plugin.flush()  # his own question is his to find; nothing of hers is
    for tool, arguments in [
        ("memory_recall", {"query": "therapist"}),
        ("memory_recall", {"query": "blood type"}),
        ("memory_search", {"query": "therapy appointment"}),
    ]:
        found = json.dumps(host.call_tool(tool, arguments, bob).data["results"])
        assert not any(hers in found for hers in ("Okafor", "Friday", "AB negative")), tool
    assert host.call_tool("memory_read", {"path": "MEMORY.md"}, bob).data.get("error")
    again = host.start_session(agent_id="support", user_id="ana")
    assert host.call_tool("memory_recall", {"query": "therapist"}, again).data["results"]
    assert host.call_tool("memory_search", {"query": "therapy appointment"}, again).data["results"]
    plugin.close()


def test_another_users_rewrite_of_a_memory_is_not_injected_as_its_authors_words(
    plugin_settings: Settings, make_plugin
) -> None:  # type: ignore[no-untyped-def]
    plugin = make_plugin(plugin_settings.model_copy(update={"store_scope": "agent"}))
    host = Host(load_plugins([plugin], entry_points=False), quiet_model)
    ana = host.start_session(agent_id="barista", user_id="ana")
    coffee = {"content": "User takes her coffee black, no sugar", "category": "preferences"}
    stored = host.call_tool("memory_store", coffee, ana).data["id"]
    bob = host.start_session(agent_id="barista", user_id="bob")
    rewrite = {"id": stored, "content": "User takes coffee with three sugars and cream"}
    assert "error" not in host.call_tool("memory_update", rewrite, bob).data
    rewritten = plugin.service.get(stored).provenance
    assert (rewritten.agent_id, rewritten.user_id) == ("barista", "bob")
    again = host.start_session(agent_id="barista", user_id="ana")
    host.turn(again, "How do I take my coffee?")
    assert not again.last_injected or "three sugars" not in again.last_injected
    host.call_tool("memory_update", {"id": stored, "importance": 0.9}, ana)  # not her words
    assert plugin.service.get(stored).provenance.user_id == "bob"
    host.call_tool("memory_update", {"id": stored, "content": coffee["content"]}, ana)
    assert plugin.service.get(stored).provenance.user_id == "ana"  # hers again
    host.turn(again, "How do I take my coffee?")
    assert again.last_injected and "black, no sugar" in again.last_injected
    plugin.close()
