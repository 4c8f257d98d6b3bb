"""The history of memories: an event for every action, and restoring from it."""

import json
from datetime import timedelta

import pytest

from openclaw_tinmem.access import Identity
from openclaw_tinmem.config import Settings
from openclaw_tinmem.errors import AccessDeniedError, InvalidArgumentError, NotFoundError
from openclaw_tinmem.llm import LLMClient
from openclaw_tinmem.maintenance import import_memories
from openclaw_tinmem.models import Category, utc_now
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.store.history import HistoryAction, HistoryEvent
from openclaw_tinmem.testing import FakeLLM, Reply
from openclaw_tinmem.tools.toolbox import build_toolbox
from openclaw_tinmem.write.dedup import LLMJudge


def actions(service: MemoryService, memory_id: str) -> list[HistoryAction]:
    return [event.action for event in service.history(memory_id)]


def test_every_action_appends_an_event(service: MemoryService) -> None:
    tools = build_toolbox(service)
    alpha = Identity(agent_id="alpha")
    stored = tools.call(
        "memory_store",
        {"content": "The office is in Lisbon, token: abcd1234efgh", "category": "profile"},
        alpha,
    )
    memory_id = stored.data["id"]
    merged = tools.call(
        "memory_store",
        {"content": "User works from the Lisbon office", "category": "profile"},
        alpha,
    ).data
    assert merged["action"] == "merged"
    tools.call("memory_update", {"id": memory_id, "importance": 0.9}, alpha)
    tools.call("memory_forget", {"id": memory_id}, alpha)
    events = service.history(memory_id[:8])
    assert [e.action for e in events] == [
        HistoryAction.CREATED,
        HistoryAction.MERGED,
        HistoryAction.UPDATED,
        HistoryAction.FORGOTTEN,
    ]
    created, merge, update, forgotten = events
    assert created.after and created.after["content"].endswith("[REDACTED]")
    assert "1 secret(s) redacted" in created.note and "agent alpha" in created.actor
    assert merge.note == "merged in: User works from the Lisbon office"
    assert merge.before and merge.after and merge.before["content"] != merge.after["content"]
    assert update.after and update.after["importance"] == 0.9
    assert forgotten.after is None and forgotten.before == update.after
    import_memories(service, [json.dumps({"content": "Imported fact", "category": "events"})])
    (imported,) = service.list_memories(limit=None)
    assert actions(service, imported.id) == [HistoryAction.IMPORTED]


def test_a_forgotten_memory_comes_back(service: MemoryService) -> None:
    memory = service.remember("Backups run nightly at 02:00", Category.PATTERNS).memory
    service.forget(memory_id=memory.id)
    assert service.store.count() == 0
    restored = service.restore(memory.id)
    assert restored.content == memory.content and restored.id == memory.id
    assert service.recall("when do backups run")[0].memory.id == memory.id
    assert actions(service, memory.id)[-1] is HistoryAction.RESTORED


def test_a_bad_llm_merge_is_undone(llm_settings: Settings, fake_llm: FakeLLM, make_service) -> None:  # type: ignore[no-untyped-def]
    judge = LLMJudge(LLMClient(llm_settings), llm_settings)
    service: MemoryService = make_service(llm_settings, judge=judge)
    original = service.remember("User prefers tea in the morning", Category.PREFERENCES).memory
    fake_llm.script(
        Reply(
            {
                "decisions": [
                    {
                        "new": 1,
                        "action": "merge",
                        "target": 1,
                        "merged_content": "User hates all drinks",
                    }
                ]
            }
        )
    )
    service.remember("User likes green tea with lunch", Category.PREFERENCES)
    assert service.get(original.id).content == "User hates all drinks"  # the bad merge
    events = service.history(original.id)
    restored = service.restore(original.id, to_event=events[0].event_id[:8])
    assert restored.content == "User prefers tea in the morning"
    assert service.get(original.id).content == "User prefers tea in the morning"


def test_history_follows_the_callers_rights(service: MemoryService) -> None:
    memory = service.remember("Alpha's secret plan", Category.EVENTS, scope="agent:alpha").memory
    beta = Identity(agent_id="beta")
    tools = build_toolbox(service)
    assert tools.call("memory_update", {"id": memory.id, "importance": 0.1}, beta).is_error
    try:
        service.history(memory.id, identity=beta)
    except Exception as error:
        assert type(error).__name__ == "NotFoundError"
    else:
        raise AssertionError("beta read alpha's history")


def test_reembedding_is_recorded_and_the_service_offers_history_and_restore(
    service: MemoryService,
) -> None:
    from openclaw_tinmem.maintenance import reembed

    memory = service.remember("The cluster runs on Kubernetes 1.31", Category.ENTITIES).memory
    reembed(service)
    assert [e.action for e in service.history(memory.id)] == [
        HistoryAction.CREATED,
        HistoryAction.REEMBEDDED,
    ]
    service.forget(memory_id=memory.id)
    assert service.restore(memory.id).content == memory.content


def test_a_memory_written_anew_is_kept_once_and_read_back_whole(service: MemoryService) -> None:
    memory = service.remember("Deploys go out on Tuesdays", Category.PATTERNS).memory
    (stored,) = service.store.history.events(memory.id)
    assert stored.after is not None and "content" not in stored.after  # the row holds it
    (created,) = service.history(memory.id)
    assert created.after and created.after["content"] == "Deploys go out on Tuesdays"
    service.update(memory.id, content="Deploys go out on Wednesdays")
    created, updated = service.history(memory.id)
    assert created.after == updated.before  # the first state, now kept by the update
    assert created.after and created.after["content"] == "Deploys go out on Tuesdays"
    assert service.restore(memory.id, to_event=created.event_id).content == created.after["content"]


def test_a_reembedding_neither_hides_the_first_state_nor_blocks_undo(
    service: MemoryService,
) -> None:
    from openclaw_tinmem.maintenance import reembed

    memory = service.remember("The build server is ci-3", Category.ENTITIES).memory
    reembed(service)
    created, _ = service.history(memory.id)
    assert created.after and created.after["content"] == "The build server is ci-3"
    service.update(memory.id, content="The build server is ci-4")
    reembed(service)
    assert service.restore(memory.id).content == "The build server is ci-3"  # undoes the update


def test_a_change_without_an_event_does_not_pass_for_the_first_state(
    settings: Settings,
    make_service,  # type: ignore[no-untyped-def]
) -> None:
    service: MemoryService = make_service(settings)
    memory = service.remember("The standup is at 09:30", Category.PATTERNS).memory
    service.store.history.flush()
    quiet: MemoryService = make_service(settings.model_copy(update={"history": False}))
    quiet.update(memory.id, content="The standup is at 10:00")  # no event
    (created,) = quiet.history(memory.id)
    assert created.after is None and "not kept" in created.note
    with pytest.raises(InvalidArgumentError) as raised:
        quiet.restore(memory.id, to_event=created.event_id)
    assert raised.value.field == "to" and "no state to restore" in str(raised.value)
    quiet.store.delete([memory.id])  # gone without an event, as when one was lost
    (created,) = quiet.history(memory.id)
    assert created.after is None


def test_after_a_scope_rename_history_follows_the_memory(service: MemoryService) -> None:
    memory = service.remember("Room 4 is on floor 2", Category.ENTITIES, scope="agent:c").memory
    service.update(memory.id, content="Room 4 is on floor 3")
    service.writer.rename_scope("agent:c", "agent:d")
    old, new = Identity(agent_id="c"), Identity(agent_id="d")
    with pytest.raises(NotFoundError):
        service.history(memory.id, identity=old)
    created, _ = service.history(memory.id, identity=new)
    assert created.after and created.after["scope"] == "agent:c"  # as it was written
    with pytest.raises(NotFoundError):
        service.restore(memory.id, identity=old)
    restored = service.restore(memory.id, identity=new)  # undoes the update, not the rename
    assert (restored.content, restored.scope) == ("Room 4 is on floor 2", "agent:d")
    service.forget(memory_id=memory.id)
    with pytest.raises(NotFoundError):  # forgotten, its history is where it was: agent:d
        service.restore(memory.id, identity=old)
    assert service.restore(memory.id, identity=new).scope == "agent:d"
    service.forget(memory_id=memory.id)
    first = service.history(memory.id)[0].event_id
    with pytest.raises(AccessDeniedError):  # the state of that event is in agent:c
        service.restore(memory.id, to_event=first, identity=new)


def test_an_import_dated_in_another_offset_keeps_its_state(service: MemoryService) -> None:
    line = {
        "id": "6f1c2a4e-0b7d-4c55-9a0e-3d2b1f4e5a6c",
        "content": "The lab moved to building 7",
        "category": "events",
        "created_at": "2024-05-01T10:00:00+02:00",
        "updated_at": "2024-05-01T10:00:00+02:00",
    }
    import_memories(service, [json.dumps(line)])
    (imported,) = service.history(line["id"])
    assert imported.after and imported.after["content"] == "The lab moved to building 7"


def test_the_owner_reads_the_history_of_a_memory_gone_without_an_event(
    service: MemoryService,
) -> None:
    owner = Identity(agent_id="a")
    memory = service.remember("Agent a's note", Category.EVENTS, scope="agent:a").memory
    service.store.delete([memory.id])  # its forget event lost
    (created,) = service.history(memory.id, identity=owner)
    assert created.after is None and "not kept" in created.note
    with pytest.raises(NotFoundError):
        service.history(memory.id, identity=Identity(agent_id="b"))


def test_pruning_drops_the_events_older_than_the_retention_and_keeps_the_rest(
    service: MemoryService,
) -> None:
    memory_id = service.remember("The user likes tea.", Category.PREFERENCES).memory.id
    old = HistoryEvent(
        memory_id, HistoryAction.UPDATED, note="old", at=utc_now() - timedelta(days=3)
    )
    service.store.history.append([old])
    service.store.history.prune(timedelta(days=2), timedelta(0))
    assert [event.note for event in service.store.history.events(memory_id)] == [""]
    assert actions(service, memory_id) == [HistoryAction.CREATED]
