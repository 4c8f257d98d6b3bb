"""Malformed input keeps what it can and names what it cannot: a stray block tag loses only
the tag, and a validation error names its field (a lone surrogate, a NaN)."""

import pytest

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
