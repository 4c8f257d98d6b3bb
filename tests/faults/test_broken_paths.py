"""A store or journal path that cannot be used (a file where the directory should be) is a
clear, typed error at every entry point — hooks, plugin tools, the bridge, the CLI — never an
exception in the host, and the tools that do not need the broken path still work."""

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from openclaw_tinmem.config import Settings
from openclaw_tinmem.events import Message, ToolRegistration
from openclaw_tinmem.plugin.bridge import Bridge
from openclaw_tinmem.plugin.hookimpls import TinmemPlugin
from openclaw_tinmem.plugin.host import Host, load_plugins

pytestmark = pytest.mark.faults
TINMEM = Path(sys.executable).with_name("tinmem")
BROKEN = ["db_path", "journal_path"]


def quiet_model(messages: list[Message], tools: list[ToolRegistration]) -> str:
    return "Noted."


def broken(settings: Settings, tmp_path: Path, setting: str) -> Settings:
    in_the_way = tmp_path / f"{setting}-is-a-file"
    in_the_way.write_text("not a directory")
    return settings.model_copy(
        update={"journal_path": str(tmp_path / "journal"), setting: str(in_the_way)}
    )


@pytest.mark.parametrize("setting", BROKEN)
def test_hooks_and_plugin_tools_degrade_with_an_error_naming_the_setting(
    settings: Settings, tmp_path: Path, setting: str
) -> None:
    plugin = TinmemPlugin(broken(settings, tmp_path, setting))
    host = Host(load_plugins([plugin], entry_points=False), quiet_model)
    session = host.start_session(agent_id="alpha")
    assert host.turn(session, "Please remember that I am allergic to peanuts.") == "Noted."
    assert session.last_injected is None
    for name, arguments in (
        ("memory_store", {"content": "x is y", "category": "events"}),
        ("memory_write", {"content": "note", "target": "memory"}),
    ):
        data = host.call_tool(name, arguments, session).data
        if setting == "db_path" or name == "memory_write":
            error = data["error"]
            assert error["field"] == setting and "is a file" in error["message"], error
        else:  # memory_store needs no journal
            assert data["action"] == "created", data
    host.end_session(session)
    plugin.close()


def test_a_broken_journal_leaves_the_reading_tools_working(
    settings: Settings, tmp_path: Path
) -> None:
    plugin = TinmemPlugin(broken(settings, tmp_path, "journal_path"))
    host = Host(load_plugins([plugin], entry_points=False), quiet_model)
    session = host.start_session(agent_id="alpha")
    assert host.call_tool("memory_recall", {"query": "allergy"}, session).data["results"] == []
    assert "error" not in host.call_tool("memory_tree", {}, session).data
    plugin.close()


@pytest.mark.parametrize("setting", BROKEN)
def test_the_bridge_answers_every_request(settings: Settings, tmp_path: Path, setting: str) -> None:
    plugin = TinmemPlugin(broken(settings, tmp_path, setting))
    bridge = Bridge(plugin, io.StringIO())
    ctx = {"agentId": "alpha"}
    requests = [
        {
            "id": 1,
            "method": "hook",
            "params": {"hook": "before_prompt_build", "event": {"prompt": "snack?"}, "ctx": ctx},
        },
        {
            "id": 2,
            "method": "call_tool",
            "params": {
                "name": "memory_write",
                "ctx": ctx,
                "arguments": {"content": "n", "target": "memory"},
            },
        },
        {"id": 3, "method": "status", "params": {"ctx": ctx}},
    ]
    bridge.output = io.StringIO()
    bridge.serve(io.StringIO("".join(json.dumps(request) + "\n" for request in requests)))
    answers = {a["id"]: a for a in map(json.loads, bridge.output.getvalue().splitlines())}
    assert answers[1]["result"] == {}
    assert answers[2]["result"]["data"]["error"]["field"] == setting
    if setting == "db_path":  # status needs the store: an error reply, not a dead bridge
        assert answers[3]["error"]["type"] == "config_error"
    plugin.close()


@pytest.mark.parametrize("setting", BROKEN)
@pytest.mark.parametrize(
    "command",
    [
        ["list"],
        ["search", "peanuts"],
        ["doctor"],
        ["workspace", "write", "a note", "--target", "memory"],
    ],
)
def test_the_cli_says_what_is_wrong_in_one_line_and_fails(
    settings: Settings, tmp_path: Path, setting: str, command: list[str]
) -> None:
    chosen = broken(settings, tmp_path, setting)
    environment = {
        **os.environ,
        "TINMEM_DB_PATH": chosen.db_path,
        "TINMEM_JOURNAL_PATH": chosen.journal_path,
        "TINMEM_MODEL_DIR": str(settings.resolved_model_dir()),
    }
    completed = subprocess.run(
        [str(TINMEM), *command], env=environment, capture_output=True, text=True, timeout=120
    )
    said = completed.stdout + completed.stderr
    assert "Traceback" not in said, said
    needs_journal = command[0] in ("doctor", "workspace")
    if setting == "db_path" or needs_journal:
        assert completed.returncode != 0 and setting in said, said


def put_in_the_way(directory: Path) -> None:
    """A file where ``directory`` was; the capture worker may make the directory again at any
    moment (it does when the journal's is gone), so it is removed again until the file is in."""
    for _ in range(1000):
        shutil.rmtree(directory, ignore_errors=True)
        try:
            directory.write_text("in the way")
            return
        except IsADirectoryError:
            continue
    raise AssertionError(f"{directory} is made again and again")


def test_a_turn_neither_the_journal_nor_the_store_can_take_waits_until_one_can(
    settings: Settings, tmp_path: Path
) -> None:
    """As on a full disk that holds both: the turn is kept in memory and retried, not lost."""
    options = {"flush_timeout_seconds": 10.0, "capture_retry_seconds": 0.0}
    plugin = TinmemPlugin(settings.model_copy(update=options))
    host = Host(load_plugins([plugin], entry_points=False), quiet_model)
    session = host.start_session(agent_id="main")
    host.turn(session, "Please remember that I prefer window seats on long flights.")
    assert plugin.flush()  # the journal and the store work: captured as usual
    journal, database = Path(plugin.settings.journal_path), Path(settings.db_path)
    journal.rename(tmp_path / "journal-away")
    put_in_the_way(journal)  # the journal cannot take the next turn
    database.rename(tmp_path / "db-away")
    put_in_the_way(database)  # nor can the store
    host.turn(session, "Please remember that my favourite colour is teal.")
    assert not plugin.flush()  # held: nothing could take it
    database.unlink()
    (tmp_path / "db-away").rename(database)
    assert plugin.flush()
    found = plugin.service.recall("What is my favourite colour?", limit=5)
    assert any("teal" in hit.memory.content for hit in found)


def test_a_journal_that_cannot_keep_capture_counts_still_captures(
    settings: Settings, tmp_path: Path
) -> None:
    from openclaw_tinmem.capture.filters import COUNTS_FILE
    from openclaw_tinmem.maintenance import capture_counts

    journal = tmp_path / "journal"
    (journal / COUNTS_FILE).mkdir(parents=True)  # no database can be opened there
    plugin = TinmemPlugin(settings.model_copy(update={"journal_path": str(journal)}))
    host = Host(load_plugins([plugin], entry_points=False), quiet_model)
    session = host.start_session(agent_id="alpha")
    host.turn(session, "I really prefer aisle seats on long flights.")
    assert plugin.flush()
    found = host.call_tool("memory_recall", {"query": "aisle seats"}, session).data["results"]
    assert found
    assert capture_counts(plugin.settings) == {}  # statistics lost: stats and doctor go on
    plugin.close()


def test_a_journal_directory_removed_while_running_is_made_again_private(
    settings: Settings,
) -> None:
    plugin = TinmemPlugin(settings.model_copy(update={"capture_retry_seconds": 0.0}))
    host = Host(load_plugins([plugin], entry_points=False), quiet_model)
    session = host.start_session(agent_id="main")
    host.turn(session, "Please remember that I prefer window seats on long flights.")
    assert plugin.flush()
    journal = Path(plugin.settings.journal_path)
    shutil.rmtree(journal)  # a clean-up script, say
    host.turn(session, "Please remember that my favourite colour is teal.")
    assert plugin.flush()
    assert journal.is_dir() and journal.stat().st_mode & 0o777 == 0o700
    found = plugin.service.recall("What is my favourite colour?", limit=5)
    assert any("teal" in hit.memory.content for hit in found)
    plugin.close()


def test_turns_wait_in_memory_while_the_journal_path_is_a_file(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    """A file where the journal's directory should be: turns are kept, and journalled and
    captured once the path is fixed, not lost."""
    journal = Path(settings.journal_path)
    journal.write_text("in the way")
    plugin = TinmemPlugin(settings.model_copy(update={"capture_retry_seconds": 0.0}))
    host = Host(load_plugins([plugin], entry_points=False), quiet_model)
    session = host.start_session(agent_id="main")
    host.turn(session, "Please remember that my favourite colour is teal.")
    host.turn(session, "Please remember that I prefer window seats on long flights.")
    assert not plugin.flush()
    assert "Turns are kept in memory until it is fixed" in caplog.text
    journal.unlink()  # fixed
    host.turn(session, "Please remember that my sister lives in Porto.")
    assert plugin.flush()
    for question, answer in [
        ("favourite colour", "teal"),
        ("seats", "window"),
        ("sister", "Porto"),
    ]:
        found = plugin.service.recall(question, limit=5)
        assert any(answer in hit.memory.content for hit in found), question
    plugin.close()


def test_turns_never_journalled_are_reported_lost_at_close(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    Path(settings.journal_path).write_text("in the way")
    plugin = TinmemPlugin(settings)
    host = Host(load_plugins([plugin], entry_points=False), quiet_model)
    session = host.start_session(agent_id="main")
    host.turn(session, "Please remember that my favourite colour is teal.")
    plugin.close()
    assert "1 turns were never journalled and are lost" in caplog.text


def test_kept_turns_are_journalled_each_once_when_hooks_run_at_once(settings: Settings) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from openclaw_tinmem.capture.journal import Journal, TurnRecord

    journal_path = Path(settings.journal_path)
    journal_path.write_text("in the way")
    plugin = TinmemPlugin(settings)
    kept = [TurnRecord([Message("user", f"kept {n}")], "agent:main") for n in range(20)]
    assert not any([plugin.journal_turn(record) for record in kept])
    journal_path.unlink()
    later = [TurnRecord([Message("user", f"later {n}")], "agent:main") for n in range(16)]
    with ThreadPoolExecutor(8) as pool:
        assert all(pool.map(plugin.journal_turn, later))
    written = [record.id for record in Journal(journal_path).pending(due_only=False)]
    assert sorted(written) == sorted(record.id for record in kept + later)
