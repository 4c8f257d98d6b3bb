"""``tinmem bridge``: the plugin's hooks and tools as JSON lines, for gateways in other
languages; and the OpenClaw package's generated files."""

import io
import json
import subprocess
import sys
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest

from openclaw_tinmem.capture.trust import TOOL_OUTPUT_CHARACTERS
from openclaw_tinmem.config import Settings
from openclaw_tinmem.events import HookContext, ToolRegistration, ToolResult
from openclaw_tinmem.plugin import bridge as bridge_module
from openclaw_tinmem.plugin.bridge import Bridge, to_context, to_messages
from openclaw_tinmem.plugin.hookimpls import TinmemPlugin
from openclaw_tinmem.plugin.openclaw_package import REGENERATE, files

ROOT = Path(__file__).resolve().parents[2]


def ask(bridge: Bridge, *requests: dict) -> list[dict]:  # type: ignore[type-arg]
    bridge.output = io.StringIO()
    bridge.serve(io.StringIO("".join(json.dumps(request) + "\n" for request in requests)))
    answers = [json.loads(line) for line in bridge.output.getvalue().splitlines()]
    return sorted(answers, key=lambda answer: answer["id"])


def test_openclaw_messages_and_context_become_ours() -> None:
    raw = [
        {"role": "user", "content": [{"type": "text", "text": "I use Helix"}]},
        {"role": "toolResult", "content": [{"type": "text", "text": "x" * 60_000}]},
        {"role": "toolResult", "toolName": "memory_recall", "content": "what memory holds"},
        {"role": ["not", "a", "role"], "content": "left out"},
        {"role": "system", "content": "left out"},
        {"role": "assistant", "content": "Noted."},
        {"role": "assistant", "content": "   "},
    ]
    # a tool result is kept (clipped) so capture can tell whether the reply quotes it
    assert [(m.role, m.content) for m in to_messages(raw)] == [
        ("user", "I use Helix"),
        ("tool", "x" * TOOL_OUTPUT_CHARACTERS),
        ("assistant", "Noted."),
    ]
    ctx = to_context({"agentId": "ops", "sessionKey": "agent:ops:x", "requesterSenderId": "ana"})
    assert (ctx.agent_id, ctx.session_key, ctx.user_id) == ("ops", "agent:ops:x", "ana")


def test_openclaw_message_times_and_senders_are_kept() -> None:
    raw = [
        {
            "role": "user",
            "content": "I moved to Porto.",
            "timestamp": 1683554160000,
            "__openclaw": {"senderName": "Ana", "senderId": "tg:77"},
        },
        {"role": "assistant", "content": "Noted.", "timestamp": 1683554190000},
    ]
    said, reply = to_messages(raw)
    assert (said.name, said.timestamp) == ("Ana", datetime(2023, 5, 8, 13, 56, tzinfo=UTC))
    assert reply.name is None and reply.timestamp == datetime(2023, 5, 8, 13, 56, 30, tzinfo=UTC)
    stored = [
        {"role": "user", "content": "Hi there, I moved.", "idempotencyKey": "run-1:user"},
        {"role": "assistant", "content": "Noted.", "responseId": "chatcmpl-9"},
    ]
    assert [message.id for message in to_messages(stored)] == ["run-1:user", "chatcmpl-9"]
    hook = to_context({"agentId": "ops", "senderId": "tg:77", "trigger": "heartbeat"})
    assert (hook.user_id, hook.trigger) == ("tg:77", "heartbeat")


def test_a_turn_captured_through_the_bridge_is_recalled_for_that_agent_only(
    plugin_settings: Settings, make_plugin
) -> None:  # type: ignore[no-untyped-def]
    plugin: TinmemPlugin = make_plugin(plugin_settings)
    bridge = Bridge(plugin, io.StringIO())
    ops = {"agentId": "ops", "sessionId": "s1", "sessionKey": "agent:ops:s1"}
    turn = {
        "messages": [
            {"role": "user", "content": "Please remember that I am allergic to peanuts."},
            {"role": "assistant", "content": "Noted."},
        ]
    }
    answers = ask(
        bridge,
        {"id": 1, "method": "hook", "params": {"hook": "agent_end", "event": turn, "ctx": ops}},
    )
    assert answers == [{"id": 1, "result": {}}]
    assert plugin.flush()
    prompt = {"prompt": "Can you suggest a snack for me?", "messages": []}
    answers = ask(
        bridge,
        {
            "id": 2,
            "method": "hook",
            "params": {"hook": "before_prompt_build", "event": prompt, "ctx": ops},
        },
        {
            "id": 3,
            "method": "hook",
            "params": {"hook": "before_prompt_build", "event": prompt, "ctx": {"agentId": "sales"}},
        },
    )
    assert "peanuts" in answers[0]["result"]["prependContext"]
    assert answers[1]["result"] == {}


def test_tools_run_as_the_calling_agent_and_bad_requests_get_errors(
    plugin_settings: Settings, make_plugin
) -> None:  # type: ignore[no-untyped-def]
    bridge = Bridge(make_plugin(plugin_settings), io.StringIO())
    store = {"content": "The deploy window is Tuesday", "category": "events", "scope": "agent:ops"}
    answers = ask(
        bridge,
        {"id": 1, "method": "tools"},
        {
            "id": 2,
            "method": "call_tool",
            "params": {"name": "memory_store", "arguments": store, "ctx": {"agentId": "ops"}},
        },
        {
            "id": 3,
            "method": "call_tool",
            "params": {"name": "memory_store", "arguments": store, "ctx": {"agentId": "sales"}},
        },
        {"id": 4, "method": "explode"},
    )
    assert {tool["name"] for tool in answers[0]["result"]} >= {"memory_recall", "memory_tree"}
    assert answers[1]["result"]["data"]["action"] == "created"
    assert answers[2]["result"]["data"]["error"]["type"] == "access_denied"
    assert answers[3]["error"] == {
        "type": "invalid_request",
        "message": "unknown method 'explode'",
        "field": "method",
    }


def test_a_malformed_request_is_said_in_our_words_not_python_internals(
    plugin_settings: Settings, make_plugin, caplog
) -> None:  # type: ignore[no-untyped-def]
    bridge = Bridge(make_plugin(plugin_settings), io.StringIO())
    lines = [
        json.dumps({"id": 1, "method": "call_tool", "params": {"name": "memory_nope"}}),
        json.dumps({"id": 2, "method": "status", "params": [1]}),
        json.dumps({"id": 3, "method": "hook", "params": {"hook": "explode"}}),
        json.dumps([1, 2]),
        "{not json",
    ]
    bridge.serve(io.StringIO("".join(line + "\n" for line in lines)))
    answers = [json.loads(line) for line in bridge.output.getvalue().splitlines()]
    errors = {answer["id"]: answer["error"] for answer in answers if answer["id"]}
    assert errors[1]["type"] == "unknown_tool"
    assert errors[1]["message"].startswith("no tool 'memory_nope'; tools: memory_recall")
    assert (errors[2]["type"], errors[2]["field"]) == ("invalid_request", "params")
    assert errors[3]["message"] == "unknown hook 'explode'"
    unnamed = sorted(answer["error"]["message"] for answer in answers if answer["id"] is None)
    assert unnamed == [
        "a request is a JSON object",
        "a request is a JSON object, not JSON: Expecting property name enclosed in double quotes",
    ]
    assert not any(record.exc_info for record in caplog.records)


def test_status_counts_the_memories_each_agent_may_read(
    plugin_settings: Settings, make_plugin
) -> None:  # type: ignore[no-untyped-def]
    bridge = Bridge(make_plugin(plugin_settings), io.StringIO())
    store = {"content": "The deploy window is Tuesday", "category": "events", "scope": "agent:ops"}
    answers = ask(
        bridge,
        {
            "id": 1,
            "method": "call_tool",
            "params": {"name": "memory_store", "arguments": store, "ctx": {"agentId": "ops"}},
        },
    )
    assert answers[0]["result"]["data"]["action"] == "created"
    ops, sales = ask(
        bridge,
        {"id": 2, "method": "status", "params": {"ctx": {"agentId": "ops"}}},
        {"id": 3, "method": "status", "params": {"ctx": {"agentId": "sales"}}},
    )
    assert (ops["result"]["memories"], sales["result"]["memories"]) == (1, 0)
    assert ops["result"]["total"] == 1 and ops["result"]["llm"] is None
    assert ops["result"]["dbPath"] == plugin_settings.resolved_db_path()
    assert ops["result"]["embeddingModel"] == plugin_settings.embedding_model


def test_tinmem_bridge_answers_on_stdout_and_exits_at_end_of_input(
    plugin_settings: Settings, tmp_path: Path
) -> None:
    environment = {
        "TINMEM_DB_PATH": plugin_settings.db_path,
        "TINMEM_JOURNAL_PATH": plugin_settings.journal_path,
        "TINMEM_MODEL_DIR": str(plugin_settings.resolved_model_dir()),
        "HOME": str(tmp_path),
        "PATH": "/usr/bin:/bin",
    }
    completed = subprocess.run(
        [str(Path(sys.executable).with_name("tinmem")), "bridge"],
        input='{"id": 7, "method": "ping"}\n',
        capture_output=True,
        text=True,
        timeout=120,
        env=environment,
    )
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout)["id"] == 7


def test_committed_openclaw_package_files_match_the_code() -> None:
    for name, text in files().items():
        assert (ROOT / "integrations" / "openclaw" / name).read_text() == text, (
            f"regenerate: {REGENERATE}"
        )


def test_the_warm_up_loads_every_model_a_first_recall_needs(
    plugin_settings: Settings, make_plugin
) -> None:  # type: ignore[no-untyped-def]
    plugin: TinmemPlugin = make_plugin(plugin_settings)
    bridge = Bridge(plugin, io.StringIO())
    assert plugin.service._reranker is None  # loaded on first use
    bridge.warm_up()  # its recall, for an agent with no memories, reaches no cross-encoder
    assert plugin.service._reranker is not None


def test_end_of_input_drops_waiting_requests_but_keeps_the_turn_and_does_not_wait_for_stuck_ones(
    plugin_settings: Settings, make_plugin, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """Four tool calls stuck (a lock another process holds, an LLM that never answers) fill
    the workers; behind them come a turn to capture and one more call. The turn is journalled
    as it is read; at end of input, once nothing has finished for CLOSE_WAIT_SECONDS, the
    call is dropped and the bridge stops waiting."""
    monkeypatch.setattr(bridge_module, "CLOSE_WAIT_SECONDS", 1.0)
    plugin: TinmemPlugin = make_plugin(plugin_settings)
    bridge = Bridge(plugin, io.StringIO())
    release, started = threading.Event(), threading.Semaphore(0)

    def stuck(arguments: object, ctx: HookContext | None) -> ToolResult:
        started.release()
        release.wait(30)
        return ToolResult(data={"stuck": False}, text="")

    bridge.tools["stuck"] = ToolRegistration("stuck", "", {"type": "object"}, stuck)
    calls = [{"id": n, "method": "call_tool", "params": {"name": "stuck"}} for n in range(1, 5)]
    turn = {
        "messages": [
            {"role": "user", "content": "Our staging database moved to the Oslo region."},
            {"role": "assistant", "content": "Noted, staging now lives in Oslo."},
        ]
    }
    capture = {"hook": "agent_end", "event": turn, "ctx": {"agentId": "ops"}}
    later = {"id": 6, "method": "call_tool", "params": {"name": "stuck"}}
    lines = [*calls, {"id": 5, "method": "hook", "params": capture}, later]
    try:
        finished = bridge.serve(io.StringIO("".join(json.dumps(line) + "\n" for line in lines)))
        answered = [json.loads(line) for line in bridge.output.getvalue().splitlines()]
        assert not finished
        assert answered == [{"id": 5, "result": {}}]  # the turn; the waiting call dropped
    finally:
        release.set()
    assert plugin.flush()
    kept = plugin.service.store.list_memories()
    assert any("Oslo" in memory.content for memory in kept)


def test_a_turn_whose_duration_is_not_a_number_is_still_captured(
    plugin_settings: Settings, make_plugin
) -> None:  # type: ignore[no-untyped-def]
    plugin: TinmemPlugin = make_plugin(plugin_settings)
    bridge = Bridge(plugin, io.StringIO())
    turn = {
        "messages": [{"role": "user", "content": "I moved our standup to 9:30 every weekday."}],
        "durationMs": "fast",
    }
    capture = {"hook": "agent_end", "event": turn, "ctx": {"agentId": "ops"}}
    assert ask(bridge, {"id": 1, "method": "hook", "params": capture}) == [{"id": 1, "result": {}}]
    assert plugin.flush()
    assert any("9:30" in memory.content for memory in plugin.service.store.list_memories())


def test_a_request_whose_asker_stopped_waiting_is_not_started(
    plugin_settings: Settings, make_plugin
) -> None:  # type: ignore[no-untyped-def]
    plugin: TinmemPlugin = make_plugin(plugin_settings)
    bridge = Bridge(plugin, io.StringIO())
    store = {"content": "The release train leaves every second Tuesday", "category": "events"}
    params = {"name": "memory_store", "arguments": store, "ctx": {"agentId": "ops"}}
    late = {"id": 1, "method": "call_tool", "params": params, "deadline": 1_000}
    (answer,) = ask(bridge, late)
    assert answer["error"]["type"] == "expired"
    assert plugin.service.store.count() == 0
    waiting = {**late, "id": 2, "deadline": 4_102_444_800_000}  # the year 2100
    (answer,) = ask(bridge, waiting)
    assert answer["result"]["data"]["action"] == "created"
