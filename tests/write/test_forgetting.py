"""Forgetting: what is deleted is what the history keeps, even when another writer came first."""

from openclaw_tinmem.access import Identity
from openclaw_tinmem.config import Settings
from openclaw_tinmem.models import Category
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.store.history import HistoryAction
from openclaw_tinmem.write.forgetting import delete


def test_a_forget_keeps_the_state_it_deleted_not_the_one_it_chose(
    settings: Settings,
    make_service,  # type: ignore[no-untyped-def]
) -> None:
    first: MemoryService = make_service(settings)
    second: MemoryService = make_service(settings)  # another host on the same store
    chosen = first.remember("The release is on revision 18", Category.EVENTS).memory
    second.update(chosen.id, content="The release is on revision 26")
    outcome = delete(first.store, [chosen], [], dry_run=False, purge=False, actor=Identity())
    assert [memory.content for memory in outcome.deleted] == ["The release is on revision 26"]
    forgotten = first.history(chosen.id)[-1]
    assert forgotten.action is HistoryAction.FORGOTTEN
    assert forgotten.before and forgotten.before["content"] == "The release is on revision 26"
    assert first.restore(chosen.id).content == "The release is on revision 26"
    second.forget(memory_id=chosen.id)
    again = delete(first.store, [chosen], [], dry_run=False, purge=False, actor=Identity())
    assert again.deleted == []  # already gone: not forgotten twice
    second.store.history.flush()
    assert [event.action for event in first.history(chosen.id)][-2:] == [
        HistoryAction.RESTORED,
        HistoryAction.FORGOTTEN,
    ]
