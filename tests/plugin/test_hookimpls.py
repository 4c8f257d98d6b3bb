import threading
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from openclaw_tinmem import plugin as plugin_module
from openclaw_tinmem.config import Settings
from openclaw_tinmem.encoders.dense import FastEmbedEmbedder
from openclaw_tinmem.events import (
    AgentEndEvent,
    HookContext,
    Message,
    PromptBuildEvent,
    SessionEvent,
    ToolRegistration,
)
from openclaw_tinmem.models import EPISODE_TAG, Category
from openclaw_tinmem.plugin.hookspecs import ENTRY_POINT_GROUP, hook_names
from openclaw_tinmem.plugin.host import Host, load_plugins
from openclaw_tinmem.service import MemoryService, open_store
from openclaw_tinmem.testing import FakeLLM, Reply
from tests.embedders import InterceptedEmbedder


def echo_model(messages: Sequence[Message], tools: Sequence[ToolRegistration]) -> str:
    return "Noted."


def test_the_entry_point_registers_the_plugin_without_doing_work() -> None:
    manager = load_plugins()
    assert plugin_module.plugin in manager.get_plugins()
    assert manager.get_name(plugin_module.plugin) == "tinmem"
    implemented = {hook.name for hook in manager.get_hookcallers(plugin_module.plugin)}
    assert implemented == set(hook_names())
    assert plugin_module.plugin._service is None  # nothing built at import or registration
    assert ENTRY_POINT_GROUP == "openclaw.plugins"


def test_no_llm_sessions_capture_and_inject(plugin_settings: Settings, make_plugin) -> None:  # type: ignore[no-untyped-def]
    plugin = make_plugin(plugin_settings)
    host = Host(load_plugins([plugin], entry_points=False), echo_model)
    first = host.start_session(agent_id="main", user_id="ana")
    host.turn(first, "My name is Ana and I work at Initech as a backend engineer.")
    host.turn(first, "I really prefer Python for data work, and I hate Excel macros.")
    host.turn(first, "thanks!")
    host.end_session(first)
    memories = plugin.service.store.list_memories()
    facts = {memory.category for memory in memories if EPISODE_TAG not in memory.tags}
    assert facts == {Category.PROFILE, Category.PREFERENCES}
    episodes = [memory for memory in memories if EPISODE_TAG in memory.tags]
    assert len(episodes) == 2  # the two exchanges; "thanks!" keeps nothing
    assert all(
        memory.scope == "agent:main" and memory.source.value == "auto-capture"
        for memory in memories
    )
    second = host.start_session(agent_id="main", user_id="ana")
    host.turn(second, "Which language should I use for this data cleaning script?")
    assert second.last_injected is not None and "Python" in second.last_injected
    assert second.last_injected.startswith("<agent-experience>")
    host.turn(second, "hello")
    assert second.last_injected is None  # greetings get nothing


def user_said(text: str) -> AgentEndEvent:
    """A finished turn of one user message."""
    return AgentEndEvent(messages=(Message("user", text),))


def test_text_a_broken_json_escape_left_is_captured_and_recalled(
    plugin_settings: Settings, make_plugin
) -> None:  # type: ignore[no-untyped-def]
    # "\\ud800" in a host's JSON decodes to a lone surrogate, which UTF-8 cannot hold: the turn
    # used to fail its journal write and was lost (and the recall failed).
    plugin = make_plugin(plugin_settings)
    ctx = HookContext(agent_id="main\ud800")
    text = "I really prefer green tea \ud83d over coffee in the morning."
    plugin.agent_end(event=user_said(text), ctx=ctx)
    (record,) = plugin.journal.pending(due_only=False)
    assert record.messages[0].content == text.replace("\ud83d", "\ufffd")
    assert plugin.flush()
    result = plugin.before_prompt_build(
        event=PromptBuildEvent("what tea do I drink \udc00"), ctx=ctx
    )
    assert result is not None and "green tea" in (result.prepend_context or "")


UNRELATED_STORE = [
    ("Alice works at Acme as a data engineer", Category.PROFILE),
    ("User's dog is called Biscuit, a beagle", Category.ENTITIES),
    ("User prefers pytest over unittest and likes type hints everywhere", Category.PREFERENCES),
    ("Marco is the user's co-founder and handles sales", Category.ENTITIES),
]


@pytest.mark.parametrize("floor", [0.55, 0.0])
def test_a_message_unrelated_to_every_memory_gets_no_block(
    plugin_settings: Settings, make_plugin, floor: float
) -> None:  # type: ignore[no-untyped-def]
    floors = {"injection_min_similarity": floor, "injection_similarity_min_relevance": 0.0}
    plugin = make_plugin(plugin_settings.model_copy(update=floors))
    ctx = HookContext(agent_id="main")
    for content, category in UNRELATED_STORE:
        plugin.service.remember(content, category, scope="agent:main")
    unrelated = plugin.before_prompt_build(
        event=PromptBuildEvent("How do I bake sourdough bread?"), ctx=ctx
    )
    # found by meaning alone: shares no word with the pytest memory
    related = plugin.before_prompt_build(
        event=PromptBuildEvent("Which test framework should we use?"), ctx=ctx
    )
    assert related is not None and "pytest" in related.prepend_context
    if floor:
        assert unrelated is None
        assert "Biscuit" not in related.prepend_context
    else:  # without the floor, recall's best few are injected whatever they are
        assert unrelated is not None and "Biscuit" in unrelated.prepend_context


WORK_AND_LIFE = [
    (
        "We moved the quarterly budget review with the finance team to next Tuesday at 10 AM",
        Category.EVENTS,
    ),
    ("User prefers morning meetings and keeps afternoons free for deep work", Category.PREFERENCES),
    ("Booked the venue for Emma's graduation party on June 14", Category.EVENTS),
]


@pytest.mark.parametrize("floor", [0.0, 0.003])
def test_a_memory_close_in_meaning_that_answers_nothing_is_injected_only_without_the_floor(
    plugin_settings: Settings, make_plugin, floor: float
) -> None:  # type: ignore[no-untyped-def]
    options = {"injection_similarity_min_relevance": floor}
    plugin = make_plugin(plugin_settings.model_copy(update=options))
    ctx = HookContext(agent_id="main")
    for content, category in WORK_AND_LIFE:
        plugin.service.remember(content, category, scope="agent:main")
    # close to the budget review (cosine 0.64), which says nothing about hiring
    hiring = plugin.before_prompt_build(
        event=PromptBuildEvent("What did the finance team say about hiring a new analyst?"),
        ctx=ctx,
    )
    if floor:
        assert hiring is None
    else:
        assert hiring is not None and "budget review" in hiring.prepend_context
    # a fact about the user bears on any subject: closeness is enough, whatever the floor
    call = plugin.before_prompt_build(
        event=PromptBuildEvent("What time works for a call tomorrow?"), ctx=ctx
    )
    assert call is not None and "morning meetings" in call.prepend_context
    # what answers the message is injected, whatever the floor
    budget = plugin.before_prompt_build(
        event=PromptBuildEvent("How did the budget review go?"), ctx=ctx
    )
    assert budget is not None and "budget review" in budget.prepend_context


def test_a_question_in_the_first_person_gets_the_facts_written_about_the_user(
    plugin_settings: Settings, make_plugin
) -> None:  # type: ignore[no-untyped-def]
    """Facts are written about "User" (the LLM extractor, the agent's own memory_store); the
    user asks about "I". Each answer below is under both closeness floors (cosine 0.49 and
    0.56) and got 0.010 and 0.002 from the cross-encoder read against the question as asked."""
    plugin = make_plugin(plugin_settings)
    ctx = HookContext(agent_id="main")
    plugin.service.remember(
        "User works at Siemens as a data engineer.", Category.PROFILE, scope="agent:main"
    )
    plugin.service.remember("User has a cat named Miso.", Category.ENTITIES, scope="agent:main")
    work = plugin.before_prompt_build(event=PromptBuildEvent("Where do I work?"), ctx=ctx)
    assert work is not None and "Siemens" in work.prepend_context
    pets = plugin.before_prompt_build(event=PromptBuildEvent("Do I have any pets?"), ctx=ctx)
    assert pets is not None and "Miso" in pets.prepend_context
    bread = plugin.before_prompt_build(
        event=PromptBuildEvent("How do I bake sourdough bread?"), ctx=ctx
    )
    assert bread is None


def test_a_message_about_someone_memory_never_heard_of_gets_only_user_facts(
    plugin_settings: Settings, make_plugin
) -> None:  # type: ignore[no-untyped-def]
    plugin = make_plugin(plugin_settings)
    ctx = HookContext(agent_id="main")
    plugin.service.remember(
        "Gina: I finally went to the support group for small business owners last week.",
        Category.EVENTS,
        scope="agent:main",
    )
    plugin.service.remember("User prefers short answers", Category.PREFERENCES, scope="agent:main")
    about_gina = plugin.before_prompt_build(
        event=PromptBuildEvent("When did Gina go to the support group?"), ctx=ctx
    )
    assert about_gina is not None and "support group" in about_gina.prepend_context
    about_caroline = plugin.before_prompt_build(
        event=PromptBuildEvent("When did Caroline go to the support group?"), ctx=ctx
    )
    assert about_caroline is None or "support group" not in about_caroline.prepend_context


def test_our_injected_block_is_never_captured_back(plugin_settings: Settings, make_plugin) -> None:  # type: ignore[no-untyped-def]
    plugin = make_plugin(plugin_settings)
    host = Host(load_plugins([plugin], entry_points=False), echo_model)
    session = host.start_session()
    host.turn(session, "I really prefer dark roast coffee every morning.")
    host.end_session(session)
    before = plugin.service.store.count()
    block = "<agent-experience>\n## Preferences\n- I really prefer dark roast coffee every morning.\n</agent-experience>"
    event = AgentEndEvent(
        messages=(Message("user", f"{block}\n\nok what now"), Message("assistant", "Hi"))
    )
    plugin.agent_end(event=event, ctx=session.ctx)
    plugin.flush()
    assert plugin.service.store.count() == before


def test_hooks_never_raise_into_the_host(
    plugin_settings: Settings, make_plugin, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    broken = plugin_settings.model_copy(update={"db_path": str(tmp_path / "file-not-dir")})
    (tmp_path / "file-not-dir").write_text("not a database")
    plugin = make_plugin(broken)
    ctx = HookContext()
    assert plugin.before_prompt_build(event=PromptBuildEvent("what do I like?"), ctx=ctx) is None
    plugin.agent_end(event=user_said("I like tea a lot really"), ctx=ctx)
    plugin.session_end(event=SessionEvent("s"), ctx=ctx)


def test_a_turn_the_journal_cannot_take_is_captured_from_memory(
    plugin_settings: Settings, make_plugin
) -> None:  # type: ignore[no-untyped-def]
    plugin = make_plugin(plugin_settings)
    ctx = HookContext(agent_id="main")
    first = "I really prefer green tea over coffee in the morning."
    plugin.agent_end(event=user_said(first), ctx=ctx)
    assert plugin.flush()
    journal = plugin.journal.directory
    for path in journal.iterdir():  # the journal's directory is gone, a file in its place
        path.unlink()
    journal.rmdir()
    journal.write_text("not a directory")
    second = "I really prefer hiking in the Alps over city trips, always."
    plugin.agent_end(event=user_said(second), ctx=ctx)
    assert plugin.flush()
    contents = " ".join(memory.content for memory in plugin.service.store.list_memories())
    assert "green tea" in contents and "hiking in the Alps" in contents


MALFORMED_EVENTS = [
    ("agent_end", AgentEndEvent(messages=[{"role": "user", "content": "I prefer tea"}])),  # type: ignore[arg-type]
    ("agent_end", AgentEndEvent(messages=(Message("user", None),))),  # type: ignore[arg-type]
    ("agent_end", AgentEndEvent(messages=(Message("robot", "I prefer tea a lot"),))),  # type: ignore[arg-type]
    ("agent_end", None),
    ("before_prompt_build", PromptBuildEvent(None)),  # type: ignore[arg-type]
    ("before_prompt_build", PromptBuildEvent("what tea", messages=[None])),  # type: ignore[list-item]
    ("session_end", SessionEvent(session_id=None, messages=None)),  # type: ignore[arg-type]
    ("session_end", SessionEvent("s", messages=({"role": "user"},))),  # type: ignore[arg-type]
    ("before_reset", None),
    ("before_compaction", SessionEvent("s", messages=(Message("user", "hi"), None))),  # type: ignore[arg-type]
]


@pytest.mark.parametrize(("hook", "event"), MALFORMED_EVENTS)
def test_malformed_events_never_raise_into_the_host(
    plugin_settings: Settings, make_plugin, hook: str, event: object
) -> None:  # type: ignore[no-untyped-def]
    plugin = make_plugin(plugin_settings)
    assert getattr(plugin, hook)(event=event, ctx=HookContext()) is None
    # the plugin still serves a well-formed turn after it
    plugin.service.remember("User prefers green tea", Category.PREFERENCES)
    answer = plugin.before_prompt_build(
        event=PromptBuildEvent("which tea do I like?"), ctx=HookContext()
    )
    assert answer is not None and "green tea" in answer.prepend_context


def test_slow_recall_is_time_boxed(
    plugin_settings: Settings, make_plugin, embedder: FastEmbedEmbedder
) -> None:  # type: ignore[no-untyped-def]
    settings = plugin_settings.model_copy(update={"recall_timeout_seconds": 0.2})
    release = threading.Event()
    stalled = InterceptedEmbedder(embedder, before_query=lambda text: release.wait(5))
    service = MemoryService(settings, open_store(settings, stalled), stalled)  # a stalled model
    plugin = make_plugin(settings, service)
    plugin.service.remember("User prefers tea", Category.PREFERENCES)
    started = time.perf_counter()
    assert (
        plugin.before_prompt_build(
            event=PromptBuildEvent("what drink do I like?"), ctx=HookContext()
        )
        is None
    )
    assert time.perf_counter() - started < 2.0
    release.set()


def test_agent_end_returns_before_a_slow_llm_answers(
    llm_settings: Settings, fake_llm: FakeLLM, make_plugin
) -> None:  # type: ignore[no-untyped-def]
    fake_llm.script(Reply({"memories": []}, delay=1.5))
    plugin = make_plugin(llm_settings)
    plugin.session_start(event=SessionEvent("s"), ctx=HookContext())
    started = time.perf_counter()
    plugin.agent_end(
        event=AgentEndEvent(
            messages=(Message("user", "I moved to Porto last spring with my family"),)
        ),
        ctx=HookContext(),
    )
    assert time.perf_counter() - started < 0.5
    assert plugin.flush()
    assert len(fake_llm.requests) == 1


def _profile(content: str) -> dict[str, object]:
    return {
        "category": "profile",
        "headline": content,
        "summary": content,
        "content": content,
        "importance": 0.8,
        "tags": ["home"],
    }


def _event(content: str) -> dict[str, object]:
    return {
        "category": "events",
        "headline": content,
        "summary": content,
        "content": content,
        "importance": 0.6,
    }


def test_llm_sessions_correction_replaces_events_append_duplicates_skip(
    llm_settings: Settings, fake_llm: FakeLLM, make_plugin
) -> None:  # type: ignore[no-untyped-def]
    plugin = make_plugin(llm_settings)
    host = Host(load_plugins([plugin], entry_points=False), echo_model)
    calls: list[int] = []

    def turn(session, text: str, *replies: Reply) -> None:  # type: ignore[no-untyped-def]
        fake_llm.script(*replies)
        before = len(fake_llm.requests)
        host.turn(session, text)
        assert plugin.flush()
        calls.append(len(fake_llm.requests) - before)

    one = host.start_session(agent_id="main")
    turn(
        one,
        "I live in Berlin with my partner.",
        Reply({"memories": [_profile("User lives in Berlin.")]}),
    )
    turn(
        one,
        "We shipped version 2 of the app today.",
        Reply({"memories": [_event("Shipped app version 2 on 2026-11-30.")]}),
    )
    host.end_session(one)
    two = host.start_session(agent_id="main")
    # cosine 0.50, under both closeness floors: the cross-encoder finds it (0.315), as it
    # reads the question without the "again" that only asks to be reminded (0.009 with it)
    turn(two, "Where do I live again?", Reply({"memories": []}))
    assert two.last_injected and "Berlin" in two.last_injected
    three = host.start_session(agent_id="main")
    turn(
        three,
        "Actually I moved to Lisbon last month.",
        Reply({"memories": [_profile("User moved to Lisbon in October 2026.")]}),
        Reply(
            {
                "decisions": [
                    {
                        "new": 1,
                        "action": "merge",
                        "target": 1,
                        "merged_headline": "User lives in Lisbon",
                        "merged_summary": "User lives in Lisbon since October 2026.",
                        "merged_content": "User lives in Lisbon (moved from Berlin in October 2026).",
                    }
                ]
            }
        ),
    )
    turn(
        three,
        "We shipped version 2.1 of the app today.",
        Reply({"memories": [_event("Shipped app version 2.1 on 2026-11-30.")]}),
        Reply({"decisions": [{"new": 1, "action": "merge", "target": 1}]}),
    )  # must not merge an event
    turn(
        three,
        "I live in Lisbon, as I said.",
        Reply({"memories": [_profile("User moved to Lisbon in October 2026.")]}),
        Reply({"decisions": [{"new": 1, "action": "skip", "target": 1}]}),
    )
    turn(three, "ok thanks")
    profiles = plugin.service.store.list_memories(categories=[Category.PROFILE])
    assert (
        len(profiles) == 1
        and "Lisbon" in profiles[0].content
        and profiles[0].headline == "User lives in Lisbon"
    )
    events = plugin.service.store.list_memories(categories=[Category.EVENTS])
    assert len([event for event in events if EPISODE_TAG not in event.tags]) == 2
    assert len([event for event in events if EPISODE_TAG in event.tags]) == 6  # "ok thanks": none
    assert calls == [1, 1, 1, 2, 2, 2, 0]  # at most two LLM calls a turn; none for small talk


def test_llm_outage_retries_then_falls_back_visibly(
    llm_settings: Settings, fake_llm: FakeLLM, make_plugin
) -> None:  # type: ignore[no-untyped-def]
    settings = llm_settings.model_copy(update={"capture_max_attempts": 2, "llm_max_retries": 0})
    fake_llm.script(*[Reply(status=500)] * 10)
    plugin = make_plugin(settings)
    plugin.agent_end(
        event=AgentEndEvent(
            messages=(Message("user", "I really prefer window seats on long flights."),)
        ),
        ctx=HookContext(),
    )
    assert not plugin.flush() or True  # first attempt fails and is deferred
    deadline = time.time() + 10
    while plugin.journal.pending(due_only=False) and time.time() < deadline:
        plugin.worker.run_once()
        time.sleep(0.05)
    assert plugin.journal.pending(due_only=False) == []
    failures = plugin.journal.failures()
    assert len(failures) == 1 and "500" in failures[0]["error"]
    (memory,) = plugin.service.store.list_memories(categories=[Category.PREFERENCES])
    assert "window seats" in memory.content


def test_session_end_writes_a_session_summary_with_an_llm(
    llm_settings: Settings, fake_llm: FakeLLM, make_plugin
) -> None:  # type: ignore[no-untyped-def]
    plugin = make_plugin(llm_settings)
    host = Host(load_plugins([plugin], entry_points=False), echo_model)
    session = host.start_session(agent_id="main")
    for text in (
        "Let's plan the Q3 offsite.",
        "Budget is 5000 euros.",
        "We pick Porto, 12 to 14 September.",
    ):
        fake_llm.script(Reply({"memories": []}))
        host.turn(session, text)
    assert plugin.flush()
    record = {
        "headline": "Planned the Q3 offsite in Porto",
        "summary": "The team chose Porto for 12-14 September.",
        "content": "User planned the Q3 offsite: Porto, 12-14 September 2026, budget 5000 euros.",
    }
    fake_llm.script(Reply(record))
    host.end_session(session)
    events = plugin.service.store.list_memories(categories=[Category.EVENTS])
    (memory,) = [event for event in events if EPISODE_TAG not in event.tags]
    assert memory.headline == "Planned the Q3 offsite in Porto" and "session" in memory.tags
    assert "We pick Porto" in fake_llm.prompts()[-1]


def test_no_session_summary_without_an_llm(plugin_settings: Settings, make_plugin) -> None:  # type: ignore[no-untyped-def]
    plugin = make_plugin(plugin_settings)
    host = Host(load_plugins([plugin], entry_points=False), echo_model)
    session = host.start_session()
    for text in (
        "Let's plan the Q3 offsite.",
        "Budget is 5000 euros.",
        "We pick Porto in September.",
    ):
        host.turn(session, text)
    host.end_session(session)
    assert plugin.journal.pending(due_only=False) == []
    assert all("session" not in memory.tags for memory in plugin.service.store.list_memories())


@pytest.mark.parametrize("instruction_floor", [0.65, 0.0])
def test_a_standing_instruction_comes_with_the_requests_it_is_about(
    plugin_settings: Settings, make_plugin, instruction_floor: float
) -> None:  # type: ignore[no-untyped-def]
    # every other way into the block shut: only the instructions' own path injects
    floors = {
        "injection_min_similarity": 1.0,
        "injection_word_match_min_similarity": 1.0,
        "injection_min_relevance": 1.0,
        "injection_instruction_min_similarity": instruction_floor,
    }
    plugin = make_plugin(plugin_settings.model_copy(update=floors))
    host = Host(load_plugins([plugin], entry_points=False), echo_model)
    first = host.start_session(agent_id="main", user_id="ana")
    host.turn(first, "Always include the narrator when I ask about audiobook recommendations.")
    host.turn(first, "I'm planning a garden with tomatoes and basil this spring.")
    host.end_session(first)
    (instruction,) = [m for m in plugin.service.store.list_memories() if "instruction" in m.tags]
    assert instruction.category is Category.PREFERENCES and instruction.importance == 0.8
    second = host.start_session(agent_id="main", user_id="ana")
    host.turn(second, "Can you suggest a few good audiobooks for my commute?")
    if not instruction_floor:  # the instructions' path off
        assert second.last_injected is None
        return
    assert second.last_injected is not None and "include the narrator" in second.last_injected
    host.turn(second, "How do I fix a flat tyre on my bike?")
    assert second.last_injected is None
    other = host.start_session(agent_id="elsewhere", user_id="ana")  # another agent's scope
    host.turn(other, "Can you suggest a few good audiobooks for my commute?")
    assert other.last_injected is None
    bo = host.start_session(agent_id="main", user_id="bo")  # the same agent, another user
    host.turn(bo, "Can you suggest a few good audiobooks for my commute?")
    assert bo.last_injected is None


def test_an_instruction_is_never_injected_for_its_words_alone(
    plugin_settings: Settings, make_plugin
) -> None:  # type: ignore[no-untyped-def]
    # its words are about other requests: close to them in meaning, it would come with
    # every message of a conversation about them (BEAM: 29.0 -> 21.6 % silence)
    off = {"injection_instruction_min_similarity": 0.0}
    plugin = make_plugin(plugin_settings.model_copy(update=off))
    plugin.service.remember(
        "Always include the narrator when I ask about audiobook recommendations.",
        Category.PREFERENCES,
        scope="agent:main",
        tags=["instruction"],
    )
    plugin.service.remember(
        "User prefers audiobooks narrated by their authors.",
        Category.PREFERENCES,
        scope="agent:main",
    )
    ctx = HookContext(agent_id="main")
    hits = plugin.recall_for_prompt("Which audiobook narrators do I like?", ctx)
    assert [hit.memory.content for hit in hits] == [
        "User prefers audiobooks narrated by their authors."
    ]


def test_a_standing_instruction_the_llm_tags_comes_with_its_requests(
    llm_settings: Settings, fake_llm: FakeLLM, make_plugin
) -> None:  # type: ignore[no-untyped-def]
    shut = {
        "injection_min_similarity": 1.0,
        "injection_word_match_min_similarity": 1.0,
        "injection_min_relevance": 1.0,
    }
    plugin = make_plugin(llm_settings.model_copy(update=shut))
    host = Host(load_plugins([plugin], entry_points=False), echo_model)
    instruction = "User wants the narrator named when they ask about audiobook recommendations."
    fake_llm.script(
        Reply(
            {
                "memories": [
                    {
                        "category": "preferences",
                        "headline": instruction,
                        "summary": instruction,
                        "content": instruction,
                        "importance": 0.9,
                        "tags": ["instruction", "audiobooks"],
                    }
                ]
            }
        )
    )
    first = host.start_session(agent_id="main")
    host.turn(first, "Please always tell me the narrator when I ask you for audiobooks.")
    assert plugin.flush()
    second = host.start_session(agent_id="main")
    fake_llm.script(Reply({"memories": []}))
    host.turn(second, "Can you suggest a few good audiobooks for my commute?")
    assert second.last_injected is not None and "narrator named" in second.last_injected
