from datetime import timedelta
from pathlib import Path

from openclaw_tinmem.capture.journal import Journal, TurnRecord
from openclaw_tinmem.events import Message
from openclaw_tinmem.models import utc_now


def test_write_pending_defer_complete(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    first = TurnRecord(messages=[Message("user", "hi")], scope="global", context={})
    second = TurnRecord(messages=[], scope="agent:a", context={"agent_id": "a"})
    journal.write(first)
    journal.write(second)
    assert [record.id for record in journal.pending()] == [first.id, second.id]
    journal.defer(first, "LLMError: down", delay_seconds=60)
    assert [record.id for record in journal.pending()] == [second.id]
    later = journal.pending(now=utc_now() + timedelta(seconds=120))
    assert [record.id for record in later] == [first.id, second.id] and later[0].attempts == 1
    journal.complete(second.id)
    journal.record_failure(first, "gave up")
    assert [r.id for r in journal.pending(due_only=False)] == [first.id]
    assert journal.failures()[0]["turn_id"] == first.id
    assert not list(tmp_path.glob(".tmp-*"))  # no half-written files left behind
