"""tinmem in a real LangGraph agent, against the scripted model server on 127.0.0.1.

Each scenario runs with both ways of wiring a ``LangGraphMemory``: LangGraph's
``create_react_agent`` with ``pre_model_hook``/``post_model_hook``, and LangChain's
``create_agent`` with ``memory.middleware()`` (adapters/langchain_middleware.py), skipped
when the langchain extra is not installed.
"""

import asyncio
import importlib.util
import json
import sys
import threading
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("langgraph", reason="the langgraph extra is not installed")

from langchain_core.messages import HumanMessage
from langchain_openai import ChatOpenAI
from langgraph.prebuilt import create_react_agent

from openclaw_tinmem.adapters.binding import MemoryBinding
from openclaw_tinmem.adapters.langgraph import LangGraphMemory
from openclaw_tinmem.config import Settings
from openclaw_tinmem.events import PromptContext
from openclaw_tinmem.plugin.hookimpls import TinmemPlugin
from openclaw_tinmem.testing import FakeLLM, Reply

# LangGraph 1.x deprecates create_react_agent for langchain's create_agent; both are tested
pytestmark = pytest.mark.filterwarnings("ignore:create_react_agent has been moved")

AgentBuilder = Callable[[LangGraphMemory, FakeLLM], Any]


def model(server: FakeLLM) -> ChatOpenAI:
    return ChatOpenAI(model="scripted", base_url=server.base_url, api_key="test", max_retries=0)


def with_hooks(memory: LangGraphMemory, server: FakeLLM) -> Any:
    return create_react_agent(
        model(server),
        memory.tools(),
        pre_model_hook=memory.pre_model_hook,
        post_model_hook=memory.post_model_hook,
    )


def with_middleware(memory: LangGraphMemory, server: FakeLLM) -> Any:
    from langchain.agents import create_agent

    return create_agent(model(server), tools=[], middleware=[memory.middleware()])


needs_langchain = pytest.mark.skipif(
    importlib.util.find_spec("langchain") is None, reason="the langchain extra is not installed"
)


@pytest.fixture(
    params=[
        pytest.param(with_hooks, id="hooks"),
        pytest.param(with_middleware, id="middleware", marks=needs_langchain),
    ]
)
def build_agent(request: pytest.FixtureRequest) -> AgentBuilder:
    return request.param  # type: ignore[no-any-return]


def run(agent: Any, text: str, mode: str) -> dict[str, Any]:
    """The agent's state after one turn, run with ``invoke`` or ``ainvoke``."""
    state = {"messages": [HumanMessage(text)]}
    if mode == "ainvoke":
        return asyncio.run(agent.ainvoke(state))  # type: ignore[no-any-return]
    return agent.invoke(state)  # type: ignore[no-any-return]


def last_user(request: dict) -> str:  # type: ignore[type-arg]
    return [m["content"] for m in request["messages"] if m["role"] == "user"][-1]


def test_a_graph_recalls_what_an_earlier_session_captured_and_is_offered_the_tools(
    plugin_settings: Settings, make_plugin, model_server: FakeLLM, build_agent: AgentBuilder
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
    # the block went to the model only: the graph's state keeps the user's own words
    assert state["messages"][0].content == "Can you suggest a snack for me?"

    other = LangGraphMemory(MemoryBinding(plugin, agent_id="billing"))
    build_agent(other, model_server).invoke(
        {"messages": [HumanMessage("Can you suggest a snack for me?")]}
    )
    assert "<agent-experience>" not in last_user(model_server.requests[-1])


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_the_graph_calls_a_tinmem_tool_as_its_agent_and_recall_spans_the_tool_call(
    plugin_settings: Settings,
    make_plugin,
    model_server: FakeLLM,
    build_agent: AgentBuilder,
    mode: str,
) -> None:  # type: ignore[no-untyped-def]
    plugin: TinmemPlugin = make_plugin(plugin_settings)
    memory = LangGraphMemory(MemoryBinding(plugin, agent_id="support", user_id="ana"))
    memory.binding.call_tool(
        "memory_store",
        {"content": "Ana is allergic to peanuts", "category": "profile", "scope": "agent:support"},
    )
    arguments = {
        "content": "Ana's editor of choice is Helix",
        "category": "preferences",
        "scope": "agent:support",
    }
    model_server.script(
        Reply(tool_calls=({"name": "memory_store", "arguments": arguments},)),
        Reply(raw="Stored."),
    )
    requests_before = len(model_server.requests)
    agent = build_agent(memory, model_server)
    state = run(agent, "Remember my editor is Helix, and I avoid peanuts.", mode)
    assert state["messages"][-1].content == "Stored."
    first_call, second_call = model_server.requests[requests_before:]
    assert "peanuts" in last_user(first_call) and last_user(first_call) == last_user(second_call)
    tool_output = [m for m in second_call["messages"] if m["role"] == "tool"]
    assert json.loads(tool_output[0]["content"])["action"] == "created"
    billing = MemoryBinding(plugin, agent_id="billing")
    found = json.loads(billing.call_tool("memory_recall", {"query": "which editor"}))
    assert found["results"] == []
    memory.close()


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_the_turn_is_captured_once_when_the_agent_has_answered(
    plugin_settings: Settings,
    make_plugin,
    model_server: FakeLLM,
    build_agent: AgentBuilder,
    mode: str,
) -> None:  # type: ignore[no-untyped-def]
    plugin: TinmemPlugin = make_plugin(plugin_settings)
    memory = LangGraphMemory(MemoryBinding(plugin, agent_id="support", user_id="ana"))
    model_server.script(
        Reply(tool_calls=({"name": "memory_recall", "arguments": {"query": "milk"}},)),
        Reply(raw="Noted, oat milk it is."),
    )
    run(build_agent(memory, model_server), "Please remember that I only drink oat milk.", mode)
    memory.close()  # waits for the capture

    stored = plugin.service.store.list_memories(scopes=["agent:support"])
    # one turn captured (the exchange and its fact), not one per model call
    assert sorted(memory.category.value for memory in stored) == ["entities", "events"]
    later = MemoryBinding(plugin, agent_id="support", user_id="ana")
    found = json.loads(later.call_tool("memory_recall", {"query": "what milk do I drink"}))
    assert "oat milk" in json.dumps(found["results"])


def test_an_image_in_the_users_message_reaches_the_model_with_the_block(
    plugin_settings: Settings, make_plugin, model_server: FakeLLM, build_agent: AgentBuilder
) -> None:  # type: ignore[no-untyped-def]
    plugin: TinmemPlugin = make_plugin(plugin_settings)
    binding = MemoryBinding(plugin, agent_id="support", user_id="ana")
    binding.call_tool(
        "memory_store", {"content": "Ana's bike is a red Brompton", "category": "entities"}
    )
    memory = LangGraphMemory(binding)
    model_server.script(Reply(raw="It looks like your Brompton."))
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
    asked = HumanMessage(content=[{"type": "text", "text": "Is this my Brompton bike?"}, image])
    build_agent(memory, model_server).invoke({"messages": [asked]})
    (user,) = [m for m in model_server.requests[-1]["messages"] if m["role"] == "user"]
    parts = user["content"]
    assert "<agent-experience>" in parts[0]["text"] and "Brompton" in parts[0]["text"]
    assert parts[1]["text"] == "Is this my Brompton bike?" and parts[2] == image
    assert asked.content[0] == {"type": "text", "text": "Is this my Brompton bike?"}  # unchanged


@needs_langchain
def test_a_run_that_ends_in_a_structured_answer_is_captured(
    plugin_settings: Settings, make_plugin, model_server: FakeLLM
) -> None:  # type: ignore[no-untyped-def]
    from langchain.agents import create_agent
    from langchain.agents.structured_output import ToolStrategy
    from pydantic import BaseModel

    class Answer(BaseModel):
        reply: str

    plugin: TinmemPlugin = make_plugin(plugin_settings)
    memory = LangGraphMemory(MemoryBinding(plugin, agent_id="support", user_id="ana"))
    model_server.script(
        Reply(tool_calls=({"name": "Answer", "arguments": {"reply": "Noted: Thursdays."}},))
    )
    agent = create_agent(
        model(model_server),
        tools=[],
        middleware=[memory.middleware()],
        response_format=ToolStrategy(Answer),
    )
    state = agent.invoke({"messages": [HumanMessage("Our team retro moved to Thursdays at 4pm.")]})
    assert type(state["messages"][-1]).__name__ == "ToolMessage"  # the run ends in a tool's
    memory.close()  # waits for the capture
    stored = plugin.service.store.list_memories(scopes=["agent:support"])
    assert any("Thursdays at 4pm" in memory.content for memory in stored)


def test_a_question_asked_again_later_without_message_ids_is_recalled_anew(
    plugin_settings: Settings, make_plugin
) -> None:  # type: ignore[no-untyped-def]
    memory = LangGraphMemory(MemoryBinding(make_plugin(plugin_settings), agent_id="support"))
    question = "What is my current project?"
    tools = {tool.name: tool for tool in memory.tools()}
    store = tools["memory_store"]
    store.invoke(
        {"content": "User's current project is Apollo, a billing rewrite", "category": "entities"}
    )
    first = memory.with_recall([HumanMessage(question)])[-1].content
    assert "Apollo" in first and "Hermes" not in first
    store.invoke(
        {"content": "User's current project is now Hermes, a search engine", "category": "entities"}
    )
    later = [HumanMessage(question), HumanMessage("Thanks."), HumanMessage(question)]
    assert "Hermes" in memory.with_recall(later)[-1].content


class _InstantRecall(MemoryBinding):
    """A binding whose recall answers at once, so that threads meet in the block cache."""

    def prompt_context(self, prompt: str, history: Any = ()) -> PromptContext:
        return PromptContext(prepend_context=f"<agent-experience>{prompt}</agent-experience>")


def test_the_recall_cache_serves_many_threads_without_raising(
    plugin_settings: Settings, make_plugin
) -> None:  # type: ignore[no-untyped-def]
    memory = LangGraphMemory(_InstantRecall(make_plugin(plugin_settings), agent_id="support"))
    failures: list[BaseException] = []
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible

    def work(thread: int) -> None:
        for turn in range(3000):
            try:
                shown = memory.with_recall(
                    [HumanMessage(f"q {thread} {turn}", id=f"{thread}-{turn}")]
                )
                assert f"q {thread} {turn}" in shown[-1].content
            except BaseException as error:  # counted and reported
                failures.append(error)

    try:
        threads = [threading.Thread(target=work, args=(number,)) for number in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert failures == []
