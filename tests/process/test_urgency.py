"""The short switch interval while a turn is journalled: set inside, the host's back after."""

import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from openclaw_tinmem.events import AgentEndEvent, HookContext, Message
from openclaw_tinmem.process.urgency import URGENT_SWITCH_SECONDS, urgent


@pytest.fixture(autouse=True)
def host_interval() -> Iterator[float]:
    original = sys.getswitchinterval()
    sys.setswitchinterval(0.004)  # the host's own, not the default, so a reset would show
    yield 0.004
    sys.setswitchinterval(original)


def close_to(value: float) -> pytest.approx:  # type: ignore[valid-type]
    return pytest.approx(value, rel=0.05)


def test_the_interval_is_short_inside_and_the_hosts_after(host_interval: float) -> None:
    with urgent():
        assert sys.getswitchinterval() == close_to(URGENT_SWITCH_SECONDS)
        with urgent():
            assert sys.getswitchinterval() == close_to(URGENT_SWITCH_SECONDS)
        assert sys.getswitchinterval() == close_to(URGENT_SWITCH_SECONDS)
    assert sys.getswitchinterval() == close_to(host_interval)


def test_the_hosts_interval_comes_back_when_the_last_thread_leaves(host_interval: float) -> None:
    inside, leave = threading.Event(), threading.Event()

    def hold() -> None:
        with urgent():
            inside.set()
            leave.wait(10)

    other = threading.Thread(target=hold)
    other.start()
    assert inside.wait(10)
    with urgent():
        pass  # leaves first: the other thread is still journalling
    assert sys.getswitchinterval() == close_to(URGENT_SWITCH_SECONDS)
    leave.set()
    other.join(10)
    assert sys.getswitchinterval() == close_to(host_interval)


def test_a_failing_block_and_a_shorter_host_interval_are_respected() -> None:
    with pytest.raises(OSError), urgent():
        raise OSError("disk full")
    assert sys.getswitchinterval() == close_to(0.004)
    sys.setswitchinterval(0.0001)  # a host that wants it shorter still keeps its own
    with urgent():
        assert sys.getswitchinterval() == close_to(0.0001)
    assert sys.getswitchinterval() == close_to(0.0001)


OPENED: list[tuple[str, float]] = []  # (path, switch interval) of files opened while watched
WATCHING = threading.Event()


def _watch_opens(event: str, arguments: tuple) -> None:  # type: ignore[type-arg]
    if WATCHING.is_set() and event == "open" and isinstance(arguments[0], str | bytes | Path):
        OPENED.append((str(arguments[0]), sys.getswitchinterval()))


sys.addaudithook(_watch_opens)  # audit hooks cannot be removed: this one acts only when watched


def test_agent_end_writes_the_journal_with_the_short_interval_then_gives_it_back(
    plugin_settings, make_plugin, host_interval: float
) -> None:  # type: ignore[no-untyped-def]
    plugin = make_plugin(plugin_settings)
    event = AgentEndEvent(messages=(Message("user", "Remember that I prefer green tea."),))
    OPENED.clear()
    WATCHING.set()
    try:
        plugin.agent_end(event=event, ctx=HookContext(agent_id="a"))
    finally:
        WATCHING.clear()
    journal_opens = [interval for path, interval in OPENED if ".tmp-" in path]
    assert journal_opens == [close_to(URGENT_SWITCH_SECONDS)]
    assert sys.getswitchinterval() == close_to(host_interval)
    assert plugin.flush()
    assert plugin.service.store.count(scopes=["agent:a"]) == 2  # the exchange and its fact
