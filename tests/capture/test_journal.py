import json
from datetime import timedelta
from pathlib import Path

import pytest

from openclaw_tinmem.capture.journal import SUFFIX, Journal, TurnRecord
from openclaw_tinmem.events import HookContext, Message
from openclaw_tinmem.models import utc_now


def test_write_pending_defer_complete(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    first = TurnRecord(messages=[Message("user", "hi")], scope="global")
    second = TurnRecord(messages=[], scope="agent:a", ctx=HookContext(agent_id="a"))
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
    record = TurnRecord(messages=[Message("user", "Grüße, ünïcode")], scope="global")
    journal.write(record)
    (path,) = tmp_path.glob("*.turn.json")
    assert path.stat().st_mode & 0o777 == 0o600
    (again,) = Journal(tmp_path).pending()
    assert again.messages[0].content == "Grüße, ünïcode"


def test_a_write_that_cannot_land_leaves_no_temporary_file(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    record = TurnRecord(messages=[Message("user", "hi")], scope="global")
    (tmp_path / f"{record.id}.turn.json").mkdir()  # the rename cannot replace a directory
    with pytest.raises(OSError):
        journal.write(record)
    assert not list(tmp_path.glob(".tmp-*"))


def test_a_record_reads_back_as_it_was_written(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    ctx = HookContext(agent_id="travel", user_id="ana", session_id="s-1", channel="telegram")
    record = TurnRecord(messages=[Message("user", "hi")], scope="agent:travel", ctx=ctx)
    summary = TurnRecord(messages=[Message("user", "bye")], scope="agent:travel", kind="session")
    journal.write(record)
    journal.write(summary)
    read = {again.id: again for again in journal.pending()}
    assert read[record.id] == record and read[summary.id] == summary


def test_a_record_an_earlier_version_wrote_is_read(tmp_path: Path) -> None:
    """Turns journalled before an upgrade are still captured after it: the kind was a key of
    the context, beside keys nothing read."""
    written = {
        "messages": [{"role": "user", "content": "I prefer aisle seats"}],
        "scope": "agent:travel",
        "context": {
            "agent_id": "travel",
            "user_id": "ana",
            "kind": "session_summary",
            "reason": "new",
            "success": True,
            "duration_ms": 12.5,
        },
        "id": "0f9d1d3e-8a4b-4c55-9a51-6b1d2c3e4f50",
        "created_at": "2026-05-08T13:56:00+00:00",
        "attempts": 1,
        "next_attempt_at": None,
        "last_error": "LLMError: down",
        "source": "auto-capture",
    }
    (tmp_path / f"{written['id']}.turn.json").write_text(json.dumps(written))
    (record,) = Journal(tmp_path).pending(due_only=False)
    assert record.kind == "session" and record.attempts == 1
    assert (record.ctx.agent_id, record.ctx.user_id) == ("travel", "ana")
    assert record.messages == [Message("user", "I prefer aisle seats")]


@pytest.mark.parametrize(
    "damaged",
    [
        "null",
        '"a string"',
        "not json at all {",
        '{"messages": [], "scope": "global", "next_attempt_at": "not a date"}',
        '{"messages": [], "scope": "global", "created_at": 5}',
        '{"messages": "x", "scope": "global"}',
        '{"scope": "global"}',
    ],
)
def test_a_file_that_holds_no_turn_is_set_aside_and_the_others_go_on(
    tmp_path: Path, damaged: str
) -> None:
    journal = Journal(tmp_path)
    good = TurnRecord(messages=[Message("user", "I prefer tea.")], scope="global")
    journal.write(good)
    (tmp_path / f"0000-bad{SUFFIX}").write_text(damaged)
    assert [record.id for record in journal.pending()] == [good.id]
    assert [path.name for path in journal.set_aside()] == [f"0000-bad{SUFFIX}.unreadable"]
    assert [record.id for record in journal.pending(due_only=False)] == [good.id]


def test_lines_of_the_failure_log_that_are_not_entries_are_passed_over(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    record = TurnRecord(messages=[Message("user", "hi")], scope="global")
    journal.record_failure(record, "LLMError: down")
    with (tmp_path / "failures.jsonl").open("a") as stream:
        stream.write("garbage\n[1, 2]\n")
    journal.record_failure(record, "LLMError: still down")
    assert [entry["error"] for entry in journal.failures()] == [
        "LLMError: down",
        "LLMError: still down",
    ]


def test_a_turn_dated_without_an_offset_is_read_as_utc(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    record = TurnRecord(
        messages=[Message("user", "I prefer tea.")],
        scope="global",
        created_at="2026-01-01T09:00:00",
        next_attempt_at="2026-01-01T10:00:00",
    )
    journal.write(record)
    (read,) = journal.pending()
    assert read.created_at == "2026-01-01T09:00:00+00:00"
    assert read.next_attempt_at == "2026-01-01T10:00:00+00:00"
