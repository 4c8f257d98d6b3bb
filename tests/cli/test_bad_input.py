"""Every command on bad input: exit 2, one line that names the input and what is allowed,
never a traceback, nothing written."""

import pytest
from click.testing import CliRunner

from openclaw_tinmem.cli import main
from openclaw_tinmem.config import Settings
from tests.cli.test_commands import _commands

GOOD_ID = "00000000-0000-4000-8000-000000000000"

# (arguments, what the one line says); {tmp} is a directory of the test's own
BAD_INPUT = [
    (["export", "{tmp}/missing/out.jsonl"], "No such file or directory"),
    (["export", "--category", "nope"], "'nope' is not one of 'profile'"),
    (["forget", "not-an-id", "--yes"], "invalid memory id 'not-an-id'"),
    (["forget", "--before", "notadate", "--yes"], "'notadate' does not match the formats"),
    (["forget", GOOD_ID, "--tag", "old"], "--before and --tag choose memories in bulk"),
    (["forget", "--dry-run"], "give a memory id, --query, or filters"),
    (["history", "zz"], "invalid memory id 'zz'"),
    (["import", "{tmp}"], "Is a directory"),
    (["ingest", "{tmp}/missing"], "does not exist"),
    (["init", "--path", "{tmp}"], "is a directory"),
    (["list", "--limit", "0"], "0 is not in the range x>=1"),
    (["list", "--category", "nope"], "'nope' is not one of 'profile'"),
    (["mcp", "--http", "70000"], "70000 is not in the range 0<=x<=65535"),
    (["mcp", "token", "--name", "bad name!"], "use letters, digits, '_' and '-' only"),
    (["mcp", "token", "--agent-id", ""], "--agent-id': must not be empty"),
    (["mcp", "--agent-id", ""], "--agent-id': must not be empty"),
    (["mcp", "--user-id", " "], "--user-id': must not be empty"),
    (["mcp", "--admin", "--agent-id", "bob"], "--admin acts for every scope"),
    (["--agent-id", "bob", "mcp", "--admin"], "--admin acts for every scope"),
    (["mcp", "token", "--admin", "--user-id", "ana"], "--admin acts for every scope"),
    (["restore", "not-an-id"], "invalid memory id 'not-an-id'"),
    (["scopes", "rename", "bad scope!", "global"], "invalid scope 'bad scope!'"),
    (["scopes", "rename", "agent:a", "agent:a", "--yes"], "agent:a is both the old and the new"),
    (["--agent-id", "", "list"], "--agent-id': must not be empty"),
    (["--agent-id", "a", "--user-id", " ", "list"], "--user-id': must not be empty"),
    (
        ["workspace", "read", "/" + "x" * 5000],
        "invalid path '/" + "x" * 79 + "'… (5,001 characters)",
    ),
    (["search", ""], "QUERY must not be empty"),
    (["search", "x", "--limit", "0"], "0 is not in the range 1<=x<=100"),
    (["show", "short"], "invalid memory id 'short'"),
    (["store", "", "--category", "events"], "content: String should have at least 1 character"),
    (["store", "The sky is blue", "--category", "nope"], "'nope' is not one of 'profile'"),
    (
        ["store", "The sky is blue", "--category", "events", "--importance", "2"],
        "importance: Input should be less than or equal to 1",
    ),
    (["tool", "memory_store", "{bad json"], "ARGUMENTS is not valid JSON"),
    (["tool", "memory_nope", "{}"], "no tool 'memory_nope'"),
    (["ui", "--port", "-1"], "-1 is not in the range 0<=x<=65535"),
    (["update", GOOD_ID, "--importance", "5"], "importance: Input should be less than or equal"),
    (["workspace", "read", "../etc/passwd"], "invalid path '../etc/passwd'"),
    (["workspace", "write", "x", "--target", "IDENTITY.md."], "IDENTITY.md. is an identity file"),
    (["workspace", "tree", "--depth", "11"], "11 is not in the range 1<=x<=10"),
    (["workspace", "search", "x", "--limit", "0"], "0 is not in the range 1<=x<=20"),
    (["workspace", "export", "--scope", "bad scope!"], "invalid scope 'bad scope!'"),
    (["workspace", "import", "{tmp}"], "is a directory"),
]


@pytest.fixture
def invoke(settings: Settings, tmp_path):  # type: ignore[no-untyped-def]
    environment = {
        "TINMEM_DB_PATH": settings.db_path,
        "TINMEM_MODEL_DIR": settings.model_dir,
        "TINMEM_JOURNAL_PATH": str(tmp_path / "journal"),
        "TINMEM_TRACK_ACCESS": "false",
        "TINMEM_CONFIG": str(tmp_path / "tinmem.toml"),
    }
    (tmp_path / "tinmem.toml").write_text("")

    def run(arguments: list[str]):  # type: ignore[no-untyped-def]
        given = [argument.replace("{tmp}", str(tmp_path)) for argument in arguments]
        return CliRunner().invoke(main, given, env=environment, input="")

    return run


@pytest.mark.parametrize(("arguments", "said"), BAD_INPUT, ids=lambda value: str(value)[:40])
def test_bad_input_is_one_line_exit_2_and_writes_nothing(invoke, arguments, said) -> None:  # type: ignore[no-untyped-def]
    result = invoke(arguments)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert result.exit_code == 2, result.output
    assert said in " ".join(result.output.split()), result.output
    assert "Traceback" not in result.output
    listed = invoke(["list", "--json"])
    assert listed.exit_code == 0 and listed.output.strip() in ("", "[]"), listed.output


def test_the_table_covers_every_command_that_takes_input() -> None:
    """A new command gets a line in the table (or here, if it takes no input of its own)."""
    without_input = {
        ("bridge",),
        ("demo",),
        ("doctor",),
        ("models",),
        ("models", "pull"),
        ("models", "list"),
        ("optimize",),
        ("reembed",),
        ("scopes",),
        ("stats",),
        ("workspace",),
    }
    covered = {tuple(arguments[:2]) for arguments, _ in BAD_INPUT}
    covered |= {tuple(arguments[:1]) for arguments, _ in BAD_INPUT}
    missing = [path for path in _commands(main) if path not in covered | without_input]
    assert missing == []


@pytest.mark.parametrize("path", _commands(main), ids=" ".join)
def test_an_unknown_option_is_one_line_and_exit_2_on_every_command(invoke, path) -> None:  # type: ignore[no-untyped-def]
    result = invoke([*path, "--no-such-option"])
    assert result.exit_code == 2 and "No such option '--no-such-option'" in result.output


@pytest.mark.parametrize(
    ("command", "option", "announced"),
    [("ui", "--port", "Memory browser:"), ("mcp", "--http", "MCP server:")],
)
def test_a_port_in_use_is_one_line_and_no_address(invoke, command, option, announced) -> None:  # type: ignore[no-untyped-def]
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = invoke([command, option, str(port)])
    assert result.exit_code == 2, result.output
    said = " ".join(result.output.split())
    assert f"port {port} on 127.0.0.1 cannot be used" in said and f"give another {option}" in said
    assert announced not in result.output
