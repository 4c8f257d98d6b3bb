"""One agent never sees another's memories, whatever their ids look like: ids that used to
fold into one scope (non-ASCII, slashes, accents) keep their captures apart."""

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
