"""tinmem as middleware of a real LangChain ``create_agent``, against the scripted model server."""

import json

import pytest

pytest.importorskip("langchain.agents", reason="the langchain extra is not installed")

from langchain.agents import create_agent
from langchain_core.messages import HumanMessage
from langchain_openai import ChatOpenAI

from openclaw_tinmem.adapters.binding import MemoryBinding
from openclaw_tinmem.adapters.langgraph import LangGraphMemory
from openclaw_tinmem.config import Settings
from openclaw_tinmem.plugin.hookimpls import TinmemPlugin
from openclaw_tinmem.testing import FakeLLM, Reply


@pytest.fixture
def model_server():  # type: ignore[no-untyped-def]
    with FakeLLM(default=Reply(raw="Noted.")) as server:
        yield server


def build_agent(memory: LangGraphMemory, server: FakeLLM):  # type: ignore[no-untyped-def]
    model = ChatOpenAI(model="scripted", base_url=server.base_url, api_key="test", max_retries=0)
    return create_agent(model, tools=[], middleware=[memory.middleware()])


def last_user(request: dict) -> str:  # type: ignore[type-arg]
    return [m["content"] for m in request["messages"] if m["role"] == "user"][-1]


def test_the_agent_recalls_what_an_earlier_session_captured_and_gets_the_tools(
    plugin_settings: Settings, make_plugin, model_server: FakeLLM
) -> None:  # type: ignore[no-untyped-def]
    plugin: TinmemPlugin = make_plugin(plugin_settings)
    first = LangGraphMemory(MemoryBinding(plugin, agent_id="support", user_id="ana"))
    build_agent(first, model_server).invoke(
        {"messages": [HumanMessage("Please remember that I am allergic to peanuts.")]}
    )
    first.close()  # ends the session: waits for the capture
    offered = {tool["function"]["name"] for tool in model_server.requests[0]["tools"]}
    assert {"memory_recall", "memory_store", "memory_forget", "memory_update"} <= offered

    second = LangGraphMemory(MemoryBinding(plugin, agent_id="support", user_id="ana"))
    state = build_agent(second, model_server).invoke(
        {"messages": [HumanMessage("Can you suggest a snack for me?")]}
    )
    user = last_user(model_server.requests[-1])
    assert "<agent-experience>" in user and "peanuts" in user
    assert user.rstrip().endswith("Can you suggest a snack for me?")
    # the block went to the model only: the agent's state keeps the user's own words
    assert state["messages"][0].content == "Can you suggest a snack for me?"

    other = LangGraphMemory(MemoryBinding(plugin, agent_id="billing"))
    build_agent(other, model_server).invoke(
        {"messages": [HumanMessage("Can you suggest a snack for me?")]}
    )
    assert "<agent-experience>" not in last_user(model_server.requests[-1])


async def test_an_async_agent_calls_a_tool_as_its_agent_and_recall_spans_the_tool_call(
    plugin_settings: Settings, make_plugin, model_server: FakeLLM
) -> None:  # type: ignore[no-untyped-def]
    plugin: TinmemPlugin = make_plugin(plugin_settings)
    memory = LangGraphMemory(MemoryBinding(plugin, agent_id="support", user_id="ana"))
    memory.binding.call_tool(
        "memory_store",
        {"content": "Ana is allergic to peanuts", "category": "profile", "scope": "agent:support"},
    )
    arguments = {"content": "Ana's editor of choice is Helix", "category": "preferences",
                 "scope": "agent:support"}  # fmt: skip
    model_server.script(
        Reply(tool_calls=({"name": "memory_store", "arguments": arguments},)),
        Reply(raw="Stored."),
    )
    requests_before = len(model_server.requests)
    state = await build_agent(memory, model_server).ainvoke(
        {"messages": [HumanMessage("Remember my editor is Helix, and I avoid peanuts.")]}
    )
    assert state["messages"][-1].content == "Stored."
    first_call, second_call = model_server.requests[requests_before:]
    assert "peanuts" in last_user(first_call) and last_user(first_call) == last_user(second_call)
    tool_output = [m for m in second_call["messages"] if m["role"] == "tool"]
    assert json.loads(tool_output[0]["content"])["action"] == "created"
    billing = MemoryBinding(plugin, agent_id="billing")
    found = json.loads(billing.call_tool("memory_recall", {"query": "which editor"}))
    assert found["results"] == []

    memory.close()


async def test_an_async_agent_captures_its_turn_once_it_has_answered(
    plugin_settings: Settings, make_plugin, model_server: FakeLLM
) -> None:  # type: ignore[no-untyped-def]
    plugin: TinmemPlugin = make_plugin(plugin_settings)
    memory = LangGraphMemory(MemoryBinding(plugin, agent_id="support", user_id="ana"))
    model_server.script(
        Reply(tool_calls=({"name": "memory_recall", "arguments": {"query": "milk"}},)),
        Reply(raw="Noted, oat milk it is."),
    )
    await build_agent(memory, model_server).ainvoke(
        {"messages": [HumanMessage("Please remember that I only drink oat milk.")]}
    )
    memory.close()  # waits for the capture

    stored = plugin.service.store.count(scopes=["agent:support"])
    assert stored == 1  # one turn captured, not one per model call
    later = MemoryBinding(plugin, agent_id="support", user_id="ana")
    found = json.loads(later.call_tool("memory_recall", {"query": "what milk do I drink"}))
    assert "oat milk" in json.dumps(found["results"])
