import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest

from openclaw_tinmem.config import Settings
from openclaw_tinmem.errors import UnknownToolError
from openclaw_tinmem.events import (
    HookContext,
    Message,
    PromptBuildEvent,
    PromptContext,
    ToolRegistration,
)
from openclaw_tinmem.plugin.hookimpls import TinmemPlugin
from openclaw_tinmem.plugin.hookspecs import hookimpl, registered_tools
from openclaw_tinmem.plugin.host import AsyncHost, Host, build_prompt, join_contexts, load_plugins


class AsyncContextPlugin:
    """A third-party plugin whose hookimpl returns an awaitable."""

    @hookimpl
    def before_prompt_build(self, event: PromptBuildEvent, ctx: HookContext):  # type: ignore[no-untyped-def]
        async def context() -> PromptContext:
            await asyncio.sleep(0)
            return PromptContext(prepend_system_context="Be brief.")

        return context()


def test_prompt_assembly() -> None:
    added = join_contexts([PromptContext("sys a", "ctx a"), None, PromptContext(None, "ctx b")])
    messages = build_prompt([Message("assistant", "hi")], "question", added)
    assert messages[0] == Message("system", "sys a")
    assert messages[-1].content == "ctx a\n\nctx b\n\nquestion"


@pytest.fixture
def plugin(settings: Settings, tmp_path: Path):  # type: ignore[no-untyped-def]
    instance = TinmemPlugin(settings.model_copy(update={"journal_path": str(tmp_path / "journal")}))
    yield instance
    instance.close()


def test_sync_host_awaits_async_hookimpls_and_routes_tools(plugin: TinmemPlugin) -> None:
    seen: list[list[Message]] = []

    def model(messages: Sequence[Message], tools: Sequence[ToolRegistration]) -> str:
        seen.append(list(messages))
        return "ok"

    host = Host(load_plugins([plugin, AsyncContextPlugin()], entry_points=False), model)
    assert set(host.tools) == {
        "memory_recall",
        "memory_store",
        "memory_forget",
        "memory_update",
        "memory_search",
        "memory_write",
        "memory_read",
        "memory_tree",
    }
    stored = host.call_tool(
        "memory_store", {"content": "User's dog is called Pixel", "category": "entities"}
    )
    assert stored.data["action"] == "created"
    session = host.start_session()
    host.turn(session, "What is my dog called?")
    assert seen[0][0] == Message("system", "Be brief.")
    assert "Pixel" in seen[0][-1].content


async def test_async_host_never_blocks_the_loop(plugin: TinmemPlugin) -> None:
    async def model(messages: Sequence[Message], tools: Sequence[ToolRegistration]) -> str:
        return "ok"

    host = AsyncHost(load_plugins([plugin, AsyncContextPlugin()], entry_points=False), model)
    ticks = 0

    async def heartbeat() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.005)

    beating = asyncio.create_task(heartbeat())
    stored = await host.call_tool(
        "memory_store", {"content": "User's cat is called Miso", "category": "entities"}
    )
    session = await host.start_session(agent_id="main")
    await host.turn(session, "What is my cat called?")
    await host.end_session(session)
    beating.cancel()
    assert stored.data["action"] == "created"
    assert session.last_injected is not None and "Miso" in session.last_injected
    assert ticks > 3  # the loop kept running while embedding and searching happened


class ClockTool:
    """A plugin of another project that registers one tool of its own."""

    @hookimpl
    def register_tools(self, register) -> None:  # type: ignore[no-untyped-def]
        register(
            ToolRegistration(
                "clock", "What time it is", {"type": "object"}, lambda _args, _ctx: None
            )
        )


def test_every_host_offers_the_tools_of_every_plugin(plugin_settings: Settings) -> None:
    tinmem = TinmemPlugin(plugin_settings)
    manager = load_plugins([tinmem, ClockTool()], entry_points=False)
    tools = registered_tools(manager)
    assert {"memory_recall", "memory_store", "clock"} <= set(tools)
    sync_host, async_host = Host(manager, lambda _m, _t: "ok"), AsyncHost(manager, _async_model)
    assert set(sync_host.tools) == set(async_host.tools) == set(tools)
    tinmem.close()


async def _async_model(_messages: object, _tools: object) -> str:
    return "ok"


def test_calling_a_tool_no_plugin_registered_is_an_error_naming_the_tools(
    plugin_settings: Settings, make_plugin
) -> None:  # type: ignore[no-untyped-def]
    host = Host(load_plugins([make_plugin(plugin_settings)], entry_points=False), lambda m, t: "")
    with pytest.raises(UnknownToolError) as refused:
        host.call_tool("memory_nope", {})
    assert refused.value.field == "name" and "memory_recall" in refused.value.message
