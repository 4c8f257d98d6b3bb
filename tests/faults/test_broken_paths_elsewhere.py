"""The same broken configurations (a file where the store or journal directory should be)
through the other entry points: the MCP server and the framework adapters. Each call is an
error result naming the setting; the server, the agent run and the graph go on."""

import json
import os
import sys
from pathlib import Path

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from openclaw_tinmem.config import Settings
from openclaw_tinmem.plugin.hookimpls import TinmemPlugin
from openclaw_tinmem.testing import FakeLLM, Reply
from tests.faults.test_broken_paths import BROKEN, broken

pytestmark = pytest.mark.faults
STORE = {"content": "Ana's editor of choice is Helix", "category": "preferences"}
# the model's turn in each framework: one memory_write call, then its answer
WRITE_THEN_ANSWER = (
    Reply(
        tool_calls=({"name": "memory_write", "arguments": {"content": "n", "target": "memory"}},)
    ),
    Reply(raw="Could not write."),
)


@pytest.mark.parametrize("setting", BROKEN)
async def test_the_mcp_server_answers_each_call_with_an_error_naming_the_setting(
    settings: Settings, tmp_path: Path, setting: str
) -> None:
    chosen = broken(settings, tmp_path, setting)
    (tmp_path / "none.toml").write_text("")
    environment = {
        **os.environ,
        "TINMEM_DB_PATH": chosen.db_path,
        "TINMEM_JOURNAL_PATH": chosen.journal_path,
        "TINMEM_MODEL_DIR": settings.model_dir,
        "TINMEM_CONFIG": str(tmp_path / "none.toml"),
    }
    parameters = StdioServerParameters(
        command=sys.executable, args=["-m", "openclaw_tinmem", "mcp"], env=environment
    )
    with anyio.fail_after(120):
        async with stdio_client(parameters) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            assert "memory_store" in {tool.name for tool in (await session.list_tools()).tools}
            stored = await session.call_tool("memory_store", STORE)
            written = await session.call_tool("memory_write", {"content": "n", "target": "memory"})
            for result, needs in ((stored, "db_path"), (written, setting)):
                if needs == setting:
                    assert result.is_error, result
                    error = json.loads(result.content[0].text)["error"]
                    assert error["field"] == setting and "is a file" in error["message"]
                else:  # memory_store needs no journal
                    assert not result.is_error and "created" in result.content[0].text
            # the server is still there for the next call
            listed = await session.call_tool("memory_recall", {"query": "editor"})
            assert listed.is_error == (setting == "db_path")


@pytest.mark.parametrize("setting", BROKEN)
async def test_an_openai_agents_run_reads_the_error_and_goes_on(
    settings: Settings, tmp_path: Path, setting: str
) -> None:
    pytest.importorskip("agents", reason="the agents extra is not installed")
    from agents import Agent, OpenAIChatCompletionsModel, Runner, set_tracing_disabled
    from openai import AsyncOpenAI

    from openclaw_tinmem.adapters.binding import MemoryBinding
    from openclaw_tinmem.adapters.openai_agents import AgentsMemory

    set_tracing_disabled(True)
    plugin = TinmemPlugin(broken(settings, tmp_path, setting))
    memory = AgentsMemory(MemoryBinding(plugin, agent_id="support"))
    with FakeLLM(default=Reply(raw="Noted.")) as server:
        server.script(*WRITE_THEN_ANSWER)
        client = AsyncOpenAI(base_url=server.base_url, api_key="test", max_retries=0)
        model = OpenAIChatCompletionsModel(model="scripted", openai_client=client)
        agent = Agent(name="support", instructions="You help.", model=model, tools=memory.tools())
        result = await Runner.run(agent, "Note this.", run_config=memory.run_config())
        assert result.final_output == "Could not write."
        output = [m for m in server.requests[-1]["messages"] if m["role"] == "tool"]
        assert json.loads(output[0]["content"])["error"]["field"] == setting
    memory.close()


@pytest.mark.parametrize("setting", BROKEN)
def test_a_langgraph_agent_reads_the_error_and_goes_on(
    settings: Settings, tmp_path: Path, setting: str
) -> None:
    pytest.importorskip("langgraph", reason="the langgraph extra is not installed")
    from langchain_core.messages import HumanMessage
    from langchain_openai import ChatOpenAI
    from langgraph.prebuilt import create_react_agent

    from openclaw_tinmem.adapters.binding import MemoryBinding
    from openclaw_tinmem.adapters.langgraph import LangGraphMemory

    plugin = TinmemPlugin(broken(settings, tmp_path, setting))
    memory = LangGraphMemory(MemoryBinding(plugin, agent_id="support"))
    with FakeLLM(default=Reply(raw="Noted.")) as server:
        server.script(*WRITE_THEN_ANSWER)
        chat = ChatOpenAI(model="scripted", base_url=server.base_url, api_key="test", max_retries=0)
        with pytest.warns(Warning):  # LangGraph 1.x: create_react_agent has moved
            agent = create_react_agent(
                chat,
                memory.tools(),
                pre_model_hook=memory.pre_model_hook,
                post_model_hook=memory.post_model_hook,
            )
        state = agent.invoke({"messages": [HumanMessage("Note this.")]})
        assert state["messages"][-1].content == "Could not write."
        output = [m for m in server.requests[-1]["messages"] if m["role"] == "tool"]
        assert json.loads(output[0]["content"])["error"]["field"] == setting
    memory.close()
