import os
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from openclaw_tinmem.capture.episodes import EPISODE_TAG
from openclaw_tinmem.capture.extraction import RuleExtractor
from openclaw_tinmem.capture.journal import Journal, TurnRecord
from openclaw_tinmem.capture.pipeline import CapturePipeline, capture_window, split_turn
from openclaw_tinmem.capture.worker import CaptureWorker
from openclaw_tinmem.config import Settings
from openclaw_tinmem.events import Message
from openclaw_tinmem.models import Action, Category, WriteOutcome
from openclaw_tinmem.plugin.hookimpls import TinmemPlugin
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.testing import FakeLLM, Reply


def test_split_turn_cleans_and_keeps_context() -> None:
    messages = [
        Message("user", "first question here"),
        Message("assistant", "answer"),
        Message("system", "sys"),
        Message(
            "user",
            "[Telegram Ana] I really prefer tea with token sk-proj-abcdefghijklmnopqrstu1234",
        ),
        Message("assistant", "ok"),
    ]
    turn, context = split_turn(messages, 4)
    assert [m.role for m in turn] == ["user", "assistant"] and [m.role for m in context] == [
        "user",
        "assistant",
    ]
    assert turn[0].content.startswith("I really prefer tea") and "sk-proj" not in turn[0].content


def facts(outcomes: list[WriteOutcome]) -> list[WriteOutcome]:
    """The outcomes of a turn's facts, without its episode."""
    return [outcome for outcome in outcomes if EPISODE_TAG not in outcome.memory.tags]


def test_without_an_llm_a_kept_statement_carries_the_message_it_answered(
    service: MemoryService,
) -> None:
    record = TurnRecord(
        messages=[
            Message("user", "Can you book me a train to Porto?"),
            Message("assistant", "Sure. Do you want a window or an aisle seat?"),
            Message("user", "I really prefer aisle seats on trains."),
        ],
        scope="global",
    )
    (outcome,) = facts(CapturePipeline(service, RuleExtractor()).process(record))
    stored = service.get(outcome.memory.id)
    assert stored.context == "Sure. Do you want a window or an aisle seat?"
    alone = TurnRecord(
        messages=[Message("user", "I really prefer window seats on planes.")],
        scope="global",
    )
    (first,) = facts(CapturePipeline(service, RuleExtractor()).process(alone))
    assert service.get(first.memory.id).context == ""


def test_a_memory_is_dated_by_its_turn_however_late_it_is_captured(
    service: MemoryService,
) -> None:
    record = TurnRecord(
        messages=[Message("user", "I really prefer aisle seats on trains.")],
        scope="global",
        created_at="2026-03-02T10:00:00+00:00",  # e.g. replayed from the journal hours later
    )
    (outcome,) = facts(CapturePipeline(service, RuleExtractor()).process(record))
    stored = service.get(outcome.memory.id)
    assert stored.created_at == record.created
    assert stored.updated_at > record.created  # written now


def test_replaying_a_processed_turn_creates_nothing(service: MemoryService, tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal")
    record = TurnRecord(
        messages=[Message("user", "I really prefer aisle seats on trains.")],
        scope="global",
    )
    pipeline = CapturePipeline(service, RuleExtractor())
    first = pipeline.process(record)  # written, but "crashed" before the journal entry went
    assert [outcome.action for outcome in first] == [Action.CREATED, Action.CREATED]
    journal.write(record)
    fallback = CapturePipeline(service, RuleExtractor())
    CaptureWorker(journal, pipeline, fallback, service.settings).run_once()
    assert service.store.count() == 2 and journal.pending() == []
    again = pipeline.process(record)
    assert {outcome.memory.id for outcome in again} == {outcome.memory.id for outcome in first}


def test_a_turn_no_path_can_capture_is_set_aside_and_the_rest_go_on(
    service: MemoryService, tmp_path: Path
) -> None:
    journal = Journal(tmp_path / "journal")
    bad = TurnRecord(messages=[Message("user", "I prefer window seats.")], scope="global")
    bad.source = "whatever"  # a file another writer made: a value no memory accepts
    journal.write(bad)
    good = TurnRecord(
        messages=[Message("user", "I really prefer aisle seats on trains.")], scope="global"
    )
    journal.write(good)
    settings = service.settings.model_copy(update={"capture_max_attempts": 1})
    pipeline = CapturePipeline(service, RuleExtractor())
    worker = CaptureWorker(journal, pipeline, CapturePipeline(service, RuleExtractor()), settings)
    assert worker.run_once() == 1  # the good turn, although the bad one is older
    assert journal.pending(due_only=False) == [] and len(journal.set_aside()) == 1
    assert any("aisle" in memory.content for memory in service.list_memories(limit=None))


class StoreThatCannotWrite:
    """A capture path failing as LanceDB does on a full disk (a RuntimeError), injected."""

    def __init__(self, service: MemoryService) -> None:
        self.service = service

    def process(self, record: TurnRecord) -> list[WriteOutcome]:
        raise RuntimeError("lance error: LanceError(IO): No space left on device (os error 28)")


def test_a_turn_the_store_cannot_take_now_is_kept_and_retried(
    service: MemoryService, tmp_path: Path
) -> None:
    journal = Journal(tmp_path / "journal")
    turn = TurnRecord(messages=[Message("user", "I prefer the night train.")], scope="global")
    journal.write(turn)
    settings = service.settings.model_copy(update={"capture_max_attempts": 1})
    failing = StoreThatCannotWrite(service)
    worker = CaptureWorker(journal, failing, failing, settings)  # type: ignore[arg-type]
    assert worker.run_once() == 0
    (kept,) = journal.pending(due_only=False)
    assert kept.id == turn.id and journal.set_aside() == [] and kept.attempts >= 1
    pipeline = CapturePipeline(service, RuleExtractor())
    later = CaptureWorker(journal, pipeline, pipeline, service.settings)
    assert later.run_once() == 0  # not due yet: it waits for its retry time
    journal.write(replace(kept, next_attempt_at=None))  # the disk has room again; due now
    assert later.run_once() == 1 and journal.pending(due_only=False) == []


CHILD = textwrap.dedent(
    """
    import sys, time
    from openclaw_tinmem.config import Settings
    from openclaw_tinmem.events import AgentEndEvent, HookContext, Message
    from openclaw_tinmem.plugin.hookimpls import TinmemPlugin
    settings = Settings.model_validate_json(sys.argv[1])
    plugin = TinmemPlugin(settings)
    for number in range(4):
        text = f"TURN-{number}: I really prefer city number {number} for conferences."
        plugin.agent_end(event=AgentEndEvent(messages=(Message("user", text),)), ctx=HookContext())
    print("journalled", flush=True)
    time.sleep(60)
    """
)


CITIES = ["Lisbon", "Kyoto", "Nairobi", "Montreal"]


def _responder(body: dict) -> Reply:  # type: ignore[type-arg]
    prompt = body["messages"][-1]["content"]
    if "NEW 1" in prompt:
        count = prompt.count("\nNEW ") + 1
        return Reply({"decisions": [{"new": n, "action": "create"} for n in range(1, count + 1)]})
    if "TURN-" not in prompt:
        return Reply({"headline": prompt[:60], "summary": prompt[:200]})
    number = prompt.split("TURN-")[1][0]
    content = f"User wants conferences held in {CITIES[int(number)]}."
    memory = {
        "category": "preferences",
        "headline": content,
        "summary": content,
        "content": content,
        "importance": 0.6,
    }
    return Reply({"memories": [memory]}, delay=0.8 if number == "1" else 0.0)


@pytest.mark.faults
def test_killed_worker_loses_no_turn_and_replays_exactly_once(
    llm_settings: Settings, fake_llm: FakeLLM
) -> None:
    fake_llm.responder = _responder
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, llm_settings.model_dump_json()],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None and child.stdout.readline().strip() == "journalled"
    deadline = time.time() + 60
    while not any("TURN-1" in p for p in fake_llm.prompts()) and time.time() < deadline:
        time.sleep(0.05)
    os.kill(child.pid, signal.SIGKILL)  # mid-turn: the LLM is still answering turn 1
    child.wait()
    journal = Journal(llm_settings.resolved_journal_path())
    assert len(journal.pending(due_only=False)) >= 3  # turn 0 may be done; the rest are kept
    restarted = TinmemPlugin(llm_settings)
    try:
        assert restarted.flush()
        kept = restarted.service.store.list_memories(categories=[Category.PREFERENCES])
        contents = sorted(memory.content for memory in kept)
        assert contents == sorted(f"User wants conferences held in {city}." for city in CITIES)
        assert journal.pending(due_only=False) == []
    finally:
        restarted.close()


EXITING_CHILD = textwrap.dedent(
    """
    import atexit, sys, threading
    from openclaw_tinmem.config import Settings
    from openclaw_tinmem.events import AgentEndEvent, HookContext, Message
    from openclaw_tinmem.plugin.hookimpls import TinmemPlugin

    def report():  # registered first, so it runs after the plugin's own exit handlers
        alive = [t.name for t in threading.enumerate() if t.name.startswith("tinmem-")]
        print("alive:", sorted(alive), flush=True)

    atexit.register(report)
    plugin = TinmemPlugin(Settings.model_validate_json(sys.argv[1]))
    for number in range(12):
        text = f"I really prefer city number {number} for conferences, remember it."
        plugin.agent_end(event=AgentEndEvent(messages=(Message("user", text),)), ctx=HookContext())
    # and the host exits at once, without closing the plugin
    """
)


def test_a_host_that_exits_without_closing_exits_cleanly_and_keeps_its_turns(
    settings: Settings,
) -> None:
    # A daemon thread still inside ONNX Runtime when the interpreter tears down aborts the
    # process ("terminate called without an active exception"): about one exit in two did.
    child = subprocess.run(
        [sys.executable, "-c", EXITING_CHILD, settings.model_dump_json()],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert child.returncode == 0, child.stderr[-2000:]
    assert "alive: []" in child.stdout  # the capture worker stopped before the teardown
    restarted = TinmemPlugin(settings)
    try:  # the turns it had not captured were kept, and are captured now
        deadline = time.monotonic() + 120  # up to twelve turns and the models' first load
        while not restarted.flush() and time.monotonic() < deadline:
            pass
        assert not Journal(settings.resolved_journal_path()).pending(due_only=False)
        assert len(restarted.service.store.list_memories()) >= 12
    finally:
        restarted.close()


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["user", "assistant", "system", "tool"]),
            st.sampled_from(
                [
                    "I prefer tea every morning",
                    "x",
                    "",
                    "ok thanks",
                    "<agent-experience>old</agent-experience>",
                ]
            ),
        ),
        max_size=30,
    ),
    st.integers(min_value=0, max_value=6),
)
def test_the_journalled_window_is_all_that_capture_reads(
    raw: list[tuple[str, str]], context_size: int
) -> None:
    messages = [Message(role, content) for role, content in raw]  # type: ignore[arg-type]
    window = capture_window(messages, context_size)
    assert split_turn(window, context_size) == split_turn(messages, context_size)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread niceness is Linux")
def test_the_capture_worker_runs_at_a_lower_priority_than_the_host(
    plugin_settings: Settings, make_plugin
) -> None:  # type: ignore[no-untyped-def]
    from openclaw_tinmem.process.priority import WORKER_NICENESS

    plugin: TinmemPlugin = make_plugin(plugin_settings)
    plugin.worker.start()
    thread = plugin.worker._thread
    assert thread is not None
    deadline = time.monotonic() + 5
    host = os.getpriority(os.PRIO_PROCESS, 0)
    lower = min(host + WORKER_NICENESS, 19)  # Linux's lowest priority, for a host run under nice
    assert lower > host, "the host already runs at the lowest priority: nothing to test"
    while time.monotonic() < deadline:
        if os.getpriority(os.PRIO_PROCESS, thread.native_id or 0) == lower:
            break
        time.sleep(0.05)
    assert os.getpriority(os.PRIO_PROCESS, thread.native_id or 0) == lower
    assert os.getpriority(os.PRIO_PROCESS, 0) == host  # the host's own thread is untouched


def test_a_turn_cut_short_by_the_interpreter_exiting_stays_journalled_as_it_was(
    plugin_settings: Settings, make_plugin, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """The interpreter's thread pools refuse work before atexit stops the worker: the turn
    in hand is left for the next start, not counted as a failed attempt and put off."""
    import concurrent.futures.thread

    from openclaw_tinmem.events import AgentEndEvent, HookContext

    plugin: TinmemPlugin = make_plugin(plugin_settings)
    plugin.service.recall("warm up the models and their pools")
    text = "I really prefer aisle seats on long flights, remember it."
    monkeypatch.setattr(concurrent.futures.thread, "_shutdown", True)  # as at the exit
    plugin.agent_end(event=AgentEndEvent(messages=(Message("user", text),)), ctx=HookContext())
    plugin.flush()
    monkeypatch.undo()
    (record,) = Journal(plugin_settings.resolved_journal_path()).pending(due_only=False)
    assert record.attempts == 0 and not record.last_error
