"""tinmem in the real OpenAI Agents SDK, against the scripted model server on 127.0.0.1."""

import asyncio
import json
from typing import Any

import pytest

agents = pytest.importorskip("agents", reason="the agents extra is not installed")

from agents import Agent, OpenAIChatCompletionsModel, Runner, set_tracing_disabled  # noqa: E402
from openai import AsyncOpenAI  # noqa: E402

from openclaw_tinmem.adapters.binding import MemoryBinding  # noqa: E402
from openclaw_tinmem.adapters.openai_agents import AgentsMemory  # noqa: E402
from openclaw_tinmem.config import Settings  # noqa: E402
from openclaw_tinmem.plugin.hookimpls import TinmemPlugin  # noqa: E402
from openclaw_tinmem.testing import FakeLLM, Reply  # noqa: E402

set_tracing_disabled(True)  # the SDK would export traces to OpenAI: nothing leaves loopback


def build_agent(memory: AgentsMemory, server: FakeLLM) -> Agent:
    client = AsyncOpenAI(base_url=server.base_url, api_key="test", max_retries=0)
    model = OpenAIChatCompletionsModel(model="scripted", openai_client=client)
    return Agent(name="support", instructions="You help.", model=model, tools=memory.tools())


def system_and_user(request: dict) -> tuple[str, str]:  # type: ignore[type-arg]
    messages = request["messages"]
    system = "\n".join(m["content"] for m in messages if m["role"] == "system")
    user = [m["content"] for m in messages if m["role"] == "user"][-1]
    return system, user if isinstance(user, str) else json.dumps(user)


def run(mode: str, agent: Agent, text: str, **options: Any) -> Any:
    """One turn with ``Runner.run`` (on a new event loop) or ``Runner.run_sync``."""
    if mode == "run_sync":  # the README's form
        return Runner.run_sync(agent, text, **options)
    return asyncio.run(Runner.run(agent, text, **options))


@pytest.mark.parametrize("mode", ["run", "run_sync"])
def test_an_agent_recalls_what_an_earlier_session_captured_and_is_offered_the_tools(
    plugin_settings: Settings, make_plugin, model_server: FakeLLM, mode: str
) -> None:  # type: ignore[no-untyped-def]
    plugin: TinmemPlugin = make_plugin(plugin_settings)
    first = AgentsMemory(MemoryBinding(plugin, agent_id="support", user_id="ana"))
    run(
        mode,
        build_agent(first, model_server),
        "Please remember that I am allergic to peanuts.",
        run_config=first.run_config(),
        hooks=first.hooks(),
    )
    first.close()  # ends the session: waits for the capture
    offered = {tool["function"]["name"] for tool in model_server.requests[0]["tools"]}
    assert {"memory_recall", "memory_store", "memory_forget", "memory_update"} <= offered

    second = AgentsMemory(MemoryBinding(plugin, agent_id="support", user_id="ana"))
    result = run(
        mode,
        build_agent(second, model_server),
        "Can you suggest a snack for me?",
        run_config=second.run_config(),
        hooks=second.hooks(),
    )
    assert result.final_output == "Noted."
    _, user = system_and_user(model_server.requests[-1])
    assert "<agent-experience>" in user and "peanuts" in user
    assert user.rstrip().endswith("Can you suggest a snack for me?")

    other = AgentsMemory(MemoryBinding(plugin, agent_id="billing"))  # another agent: nothing
    run(
        mode,
        build_agent(other, model_server),
        "Can you suggest a snack for me?",
        run_config=other.run_config(),
    )
    assert "<agent-experience>" not in system_and_user(model_server.requests[-1])[1]


async def test_the_agent_calls_a_tinmem_tool_as_itself(
    plugin_settings: Settings, make_plugin, model_server: FakeLLM
) -> None:  # type: ignore[no-untyped-def]
    plugin: TinmemPlugin = make_plugin(plugin_settings)
    memory = AgentsMemory(MemoryBinding(plugin, agent_id="support", user_id="ana"))
    arguments = {
        "content": "Ana's editor of choice is Helix",
        "category": "preferences",
        "scope": "agent:support",
    }
    model_server.script(
        Reply(tool_calls=({"name": "memory_store", "arguments": arguments},)),
        Reply(raw="Stored."),
    )
    result = await Runner.run(
        build_agent(memory, model_server),
        "Remember my editor is Helix.",
        run_config=memory.run_config(),
    )
    assert result.final_output == "Stored."
    tool_output = [m for m in model_server.requests[-1]["messages"] if m["role"] == "tool"]
    stored = json.loads(tool_output[0]["content"])
    assert stored["action"] == "created", stored
    found = json.loads(memory.binding.call_tool("memory_recall", {"query": "which editor"}))
    assert any("Helix" in item["text"] for item in found["results"])
    billing = MemoryBinding(plugin, agent_id="billing")
    assert (
        json.loads(billing.call_tool("memory_recall", {"query": "which editor"}))["results"] == []
    )
    memory.close()


async def test_a_broken_tool_call_is_an_error_the_model_reads_not_an_exception(
    plugin_settings: Settings, make_plugin, model_server: FakeLLM
) -> None:  # type: ignore[no-untyped-def]
    plugin: TinmemPlugin = make_plugin(plugin_settings)
    memory = AgentsMemory(MemoryBinding(plugin, agent_id="support"))
    model_server.script(
        Reply(tool_calls=({"name": "memory_forget", "arguments": {"memoryId": "nope"}},)),
        Reply(raw="Sorry."),
    )
    result = await Runner.run(
        build_agent(memory, model_server), "Forget that.", run_config=memory.run_config()
    )
    assert result.final_output == "Sorry."
    tool_output = [m for m in model_server.requests[-1]["messages"] if m["role"] == "tool"]
    assert "error" in json.loads(tool_output[0]["content"])
    memory.close()
