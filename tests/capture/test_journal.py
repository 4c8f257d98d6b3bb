from datetime import timedelta
from pathlib import Path

import pytest

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


def test_turn_files_are_the_owners_only_and_survive_a_new_journal(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    record = TurnRecord(messages=[Message("user", "Grüße, ünïcode")], scope="global", context={})
    journal.write(record)
    (path,) = tmp_path.glob("*.turn.json")
    assert path.stat().st_mode & 0o777 == 0o600
    (again,) = Journal(tmp_path).pending()
    assert again.messages[0].content == "Grüße, ünïcode"


def test_a_write_that_cannot_land_leaves_no_temporary_file(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    record = TurnRecord(messages=[Message("user", "hi")], scope="global", context={})
    (tmp_path / f"{record.id}.turn.json").mkdir()  # the rename cannot replace a directory
    with pytest.raises(OSError):
        journal.write(record)
    assert not list(tmp_path.glob(".tmp-*"))
