import asyncio
import threading

from openclaw_tinmem.errors import ConfigError
from openclaw_tinmem.events import HookContext
from openclaw_tinmem.plugin.lazy_tools import LazyToolbox
from openclaw_tinmem.service import MemoryService


def test_the_service_is_built_on_the_first_call_once_for_concurrent_calls(
    service: MemoryService,
) -> None:
    built: list[int] = []
    lock = threading.Lock()

    def build() -> MemoryService:
        with lock:
            built.append(1)
        return service

    toolbox = LazyToolbox(build)
    handler = toolbox.handler("memory_store")
    assert built == []  # registering tools builds nothing
    arguments = {"content": "The build farm runs on ARM", "category": "entities"}
    threads = [threading.Thread(target=handler, args=(arguments,)) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert built == [1]
    found = toolbox.handler("memory_recall")({"query": "build farm"}, HookContext())
    assert not found.is_error and "ARM" in found.text


def test_a_service_that_cannot_be_built_answers_every_call_with_an_error() -> None:
    def broken() -> MemoryService:
        raise ConfigError("db_path is not a directory", field="db_path")

    def crashing() -> MemoryService:
        raise RuntimeError("model file truncated")

    result = LazyToolbox(broken).handler("memory_recall")({"query": "anything"})
    assert result.is_error and result.data["error"]["field"] == "db_path"
    result = asyncio.run(LazyToolbox(crashing).async_handler("memory_recall")({"query": "x"}))
    assert result.is_error and "model file truncated" in result.text


def test_a_context_given_as_plain_data_is_read_and_anything_else_is_an_error(
    service: MemoryService,
) -> None:
    toolbox = LazyToolbox(lambda: service)
    store = toolbox.handler("memory_store")
    arguments = {"content": "Alpha's deploys go out on Tuesdays", "category": "patterns"}
    stored = store({**arguments, "scope": "agent:alpha"}, {"agent_id": "alpha"})  # type: ignore[arg-type]
    assert not stored.is_error and stored.data["scope"] == "agent:alpha"
    denied = store({**arguments, "scope": "agent:alpha"}, {"agent_id": "beta"})  # type: ignore[arg-type]
    assert denied.is_error and denied.data["error"]["type"] == "access_denied"
    wrong = store(arguments, "alpha")  # type: ignore[arg-type]
    assert wrong.is_error and wrong.data["error"]["type"] == "invalid_argument"


def test_a_context_in_openclaw_s_names_is_read(service: MemoryService) -> None:
    toolbox = LazyToolbox(lambda: service)
    arguments = {
        "content": "Ops rotates keys monthly",
        "category": "patterns",
        "scope": "agent:ops",
    }
    stored = toolbox.handler("memory_store")(arguments, {"agentId": "ops", "sessionKey": "k"})  # type: ignore[arg-type]
    assert not stored.is_error and stored.data["scope"] == "agent:ops"
