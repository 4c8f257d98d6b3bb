"""Malformed input keeps what it can and names what it cannot: a stray block tag loses only
the tag, and a validation error names its field (a lone surrogate, a NaN)."""

import pytest

from openclaw_tinmem.config import Settings
from openclaw_tinmem.events import Message
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.tools.toolbox import build_toolbox

pytestmark = pytest.mark.faults


def test_an_unclosed_block_tag_keeps_the_message(service: MemoryService) -> None:
    from openclaw_tinmem.capture.pipeline import split_turn

    turn, _ = split_turn([Message("user", "<agent-experience> I live in Oslo, remember that.")], 0)
    assert "I live in Oslo" in turn[0].content


def test_validation_errors_name_their_field(service: MemoryService) -> None:
    tools = build_toolbox(service)
    surrogate = tools.call("memory_store", {"content": "x", "category": "events", "\ud800": 1})
    assert surrogate.data["error"]["field"] == "'\\ud800'"
    nan = tools.call(
        "memory_store", {"content": "x", "category": "events", "importance": float("nan")}
    )
    assert nan.data["error"]["field"] == "importance"
    assert "finite" in nan.data["error"]["message"]


def test_a_reply_without_text_or_with_parts_leaves_memory_working(settings: Settings) -> None:
    from openclaw_tinmem.plugin.hookimpls import TinmemPlugin
    from openclaw_tinmem.plugin.host import Host, load_plugins

    replies = iter(
        [
            Message("assistant", None),  # type: ignore[arg-type]  # only a tool call
            Message("assistant", [{"type": "text", "text": "Got it."}, {"type": "image"}]),  # type: ignore[arg-type]
            "Bruno is a fine name.",
            "You work at Siemens.",
        ]
    )
    plugin = TinmemPlugin(settings)
    host = Host(load_plugins([plugin], entry_points=False), lambda messages, tools: next(replies))
    session = host.start_session(agent_id="alpha", user_id="ana")
    host.turn(session, "I work at Siemens in Munich.")
    assert host.turn(session, "My dog is called Bruno.") == "Got it."
    host.turn(session, "Noted?")
    assert plugin.flush()
    later = host.start_session(agent_id="alpha", user_id="ana")  # the first is in view
    host.turn(later, "Where do I work?")
    assert later.last_injected and "Siemens" in later.last_injected
    assert (
        Message.from_dict({"role": "user", "content": [{"type": "text", "text": "hi"}]}).content
        == "hi"
    )
    single = {"role": "user", "content": {"type": "text", "text": "hello"}}
    assert Message.from_dict(single).content == "hello"
    assert Message.from_dict({"role": "user", "content": 42}).content == "42"
    plugin.close()
