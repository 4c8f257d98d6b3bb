"""Workspace files out as JSONL and back in: every field kept, nothing written twice, nothing
written when a line is bad, and what the tools refuse refused here too."""

import json
from datetime import UTC, datetime

import pytest

from openclaw_tinmem.errors import InvalidArgumentError
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.workspace.store import WorkspaceStore
from openclaw_tinmem.workspace.transfer import export_files, import_files, parse_file_line

LINE = {"scope": "agent:main", "path": "notes/alpha.md", "content": "Deploys on Fridays"}


def _workspace(service: MemoryService) -> WorkspaceStore:
    return WorkspaceStore(service.store, service.embedder, "agent:main")


def _lines(*records: dict[str, object]) -> list[str]:
    return [json.dumps(record) for record in records]


def test_files_go_out_and_come_back_whole_and_in_their_own_workspaces(
    service: MemoryService, make_service, settings
) -> None:  # type: ignore[no-untyped-def]
    source = _workspace(service)
    source.write("MEMORY.md", "Bob prefers tabs", "agent:bob", append=False)
    source.write("notes/alpha.md", "Alpha ships in May\n\nBeta in June", "agent:main", append=True)
    exported = list(export_files(source))
    assert [(record["scope"], record["path"]) for record in exported] == [
        ("agent:bob", "MEMORY.md"),
        ("agent:main", "notes/alpha.md"),
    ]
    assert list(export_files(source, ["agent:bob"])) == exported[:1]
    other = make_service(settings.model_copy(update={"db_path": settings.db_path + "-other"}))
    target = _workspace(other)
    report = import_files(target, _lines(*exported))
    assert (report.imported, report.unchanged) == (2, 0)
    assert list(export_files(target)) == exported  # times too
    assert target.get("MEMORY.md", "agent:main") is None  # bob's file stayed bob's
    hits = target.search("when does beta ship", 5, "agent:main")
    assert hits and hits[0].path == "notes/alpha.md"  # searchable, not only stored
    again = import_files(target, _lines(*exported))
    assert (again.imported, again.unchanged) == (0, 2)
    assert list(export_files(target)) == exported  # nothing rewritten


def test_a_changed_file_is_replaced_and_updated_now(service: MemoryService) -> None:
    workspace = _workspace(service)
    stored = workspace.write("notes/alpha.md", "old text", "agent:main", append=False)
    old = {**LINE, "created_at": "2020-01-01T00:00:00Z", "updated_at": "2020-01-02T00:00:00Z"}
    assert import_files(workspace, _lines(old)).imported == 1
    now = workspace.read("notes/alpha.md", "agent:main")
    assert now.content == "Deploys on Fridays" and now.created_at == stored.created_at
    assert now.updated_at > stored.updated_at


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"path": "../etc/passwd"}, "path", "'..'"),
        ({"path": "SOUL.md"}, "path", "identity file"),
        ({"scope": "Agent Main"}, "scope", "invalid scope"),
        ({"content": 5}, "content", "must be text, not a number"),
        ({"content": None}, "content", "is required"),
        ({"owner": "bob"}, "owner", "allowed: scope, path, content"),
        ({"updated_at": "yesterday"}, "updated_at", "not a time"),
        ({"created_at": "2999-01-01T00:00:00Z"}, "created_at", "in the future"),
    ],
)
def test_a_bad_line_names_its_field(change: dict[str, object], field: str, words: str) -> None:
    with pytest.raises(InvalidArgumentError) as raised:
        parse_file_line(json.dumps({**LINE, **change}), 3)
    assert raised.value.field == field
    assert raised.value.message.startswith("line 3: ") and words in raised.value.message


def test_one_bad_line_writes_nothing_unless_told_to_skip_it(service: MemoryService) -> None:
    workspace = _workspace(service)
    lines = [*_lines(LINE), "not json", *_lines({**LINE, "path": "b.md", "scope": "agent:x"})]
    with pytest.raises(InvalidArgumentError) as raised:
        import_files(workspace, lines)
    assert "1 invalid line(s); nothing was written" in raised.value.message
    assert "line 2: not valid JSON" in raised.value.message
    assert list(export_files(workspace)) == []
    report = import_files(workspace, lines, skip_invalid=True)
    assert report.imported == 2 and [problem.field for problem in report.problems] == ["line"]


def test_a_file_that_would_be_a_folder_or_sit_in_a_file_is_refused_before_any_write(
    service: MemoryService,
) -> None:
    workspace = _workspace(service)
    workspace.write("notes", "a file named notes", "agent:main", append=False)
    first = {**LINE, "path": "fine.md"}
    inside_stored = LINE  # notes/alpha.md: inside the stored file "notes"
    with pytest.raises(InvalidArgumentError, match="line 2: notes is a file"):
        import_files(workspace, _lines(first, inside_stored))
    holder = {**LINE, "path": "plans", "scope": "agent:x"}
    inside_imported = {**LINE, "path": "plans/q3.md", "scope": "agent:x"}
    twice = {**LINE, "path": "fine.md", "content": "something else"}
    with pytest.raises(InvalidArgumentError) as raised:
        import_files(workspace, _lines(first, holder, inside_imported, twice))
    assert "line 3: plans is a file" in raised.value.message
    assert "line 4: fine.md in agent:main is also line 1" in raised.value.message
    assert workspace.get("fine.md", "agent:main") is None
    elsewhere = {**LINE, "scope": "agent:x"}  # another workspace has no file "notes"
    assert import_files(workspace, _lines(elsewhere)).imported == 1


def test_secrets_are_redacted_as_memory_write_does(service: MemoryService) -> None:
    workspace = _workspace(service)
    line = {**LINE, "content": "The db password is hunter2x"}
    report = import_files(workspace, _lines(line))
    assert report.redacted == 1
    assert "hunter2x" not in workspace.read(LINE["path"], "agent:main").content


def test_times_without_an_offset_are_utc() -> None:
    read = parse_file_line(json.dumps({**LINE, "created_at": "2024-05-01T09:30:00"}), 1)
    moment = datetime(2024, 5, 1, 9, 30, tzinfo=UTC)
    assert (read.created_at, read.updated_at) == (moment, None)
