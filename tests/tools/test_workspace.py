import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock, Timeout

from openclaw_tinmem.access import Identity
from openclaw_tinmem.config import Settings
from openclaw_tinmem.encoders.dense import FastEmbedEmbedder
from openclaw_tinmem.errors import InvalidArgumentError
from openclaw_tinmem.models import Category
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.store.write_lock import LOCK_FILE_NAME
from openclaw_tinmem.tools.arguments import SearchArguments
from openclaw_tinmem.tools.rate_limit import RateLimiter
from openclaw_tinmem.tools.toolbox import Toolbox, build_toolbox
from openclaw_tinmem.tools.workspace import WorkspaceTools
from openclaw_tinmem.workspace.paths import build_tree, normalise_path, resolve_target
from openclaw_tinmem.workspace.tables import chunk_text
from tests.embedders import InterceptedEmbedder

NOW = datetime(2024, 1, 15, 10, 30, 5, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def tools(service: MemoryService, clock: Clock) -> Toolbox:
    toolbox = Toolbox()
    toolbox.extend(WorkspaceTools(service, clock=lambda: NOW, rate_clock=clock).handlers())
    return toolbox


def call(tools: Toolbox, name: str, **arguments: Any) -> Any:
    return tools.call(name, arguments).data


@pytest.mark.parametrize(
    "path",
    ["../x", "/etc/passwd", "a//b", "a/./b", "C:/x", "a\\b", "", "x/" * 11 + "f.md", ".hidden"],
)
def test_bad_paths_are_rejected(path: str) -> None:
    with pytest.raises(InvalidArgumentError):
        normalise_path(path)


def test_targets_and_protected_files() -> None:
    assert resolve_target("memory", NOW) == "MEMORY.md"
    assert resolve_target("heartbeat", NOW) == "HEARTBEAT.md"
    assert resolve_target("daily_log", NOW) == "daily/2024-01-15.md"
    assert resolve_target("projects/alpha/notes.md", NOW) == "projects/alpha/notes.md"
    for allowed in ("IDENTITY-notes.md", "users.md", "soul-music.md", "AGENTS"):
        assert resolve_target(allowed, NOW) == allowed
    for protected in (
        "IDENTITY.md",
        "SOUL.md",
        "AGENTS.md",
        "USER.md",
        "team/USER.md",
        "soul.md",
        "Soul.MD",
        "identity.md",
        "a/b/agents.MD",
        "IDENTITY.md.",
        "IDENTITY .md",
        "IDENTITY.md.bak",
        "SOUL.md . .",
    ):
        with pytest.raises(InvalidArgumentError, match="identity file"):
            resolve_target(protected, NOW)


def test_tree_shape_follows_the_spec() -> None:
    paths = [
        "MEMORY.md",
        "HEARTBEAT.md",
        "README.md",
        "daily/2024-01-15.md",
        "daily/2024-01-14.md",
        "projects/alpha/notes.md",
        "projects/beta/x.md",
    ]
    assert build_tree(paths, "", 2) == [
        "HEARTBEAT.md",
        "MEMORY.md",
        "README.md",
        {"daily/": ["2024-01-14.md", "2024-01-15.md"]},
        {"projects/": ["alpha/", "beta/"]},
    ]
    assert build_tree(paths, "", 1) == [
        "HEARTBEAT.md",
        "MEMORY.md",
        "README.md",
        "daily/",
        "projects/",
    ]
    assert build_tree(paths, "projects", 2) == [{"alpha/": ["notes.md"]}, {"beta/": ["x.md"]}]


def test_chunks_follow_paragraphs_and_cut_long_ones() -> None:
    chunks = chunk_text("short one\n\n" + "word " * 400 + "\n\nlast", size=200)
    assert chunks[0].startswith("short one") and all(len(chunk) <= 200 for chunk in chunks)
    assert chunks[-1].endswith("last")


def test_write_append_replace_and_read(tools: Toolbox) -> None:
    first = call(tools, "memory_write", content="API uses JWT tokens.", target="memory")
    assert first == {
        "status": "written",
        "path": "MEMORY.md",
        "append": True,
        "content_length": len(b"API uses JWT tokens."),
    }
    call(tools, "memory_write", content="Tokens expire after 1 hour.", target="memory")
    read = call(tools, "memory_read", path="MEMORY.md")
    assert read["content"] == "API uses JWT tokens.\n\nTokens expire after 1 hour."
    assert read["word_count"] == 9 and read["updated_at"].endswith("Z")
    replaced = call(tools, "memory_write", content="Only this.", target="memory", append=False)
    assert (
        replaced["append"] is False
        and call(tools, "memory_read", path="MEMORY.md")["content"] == "Only this."
    )


def test_an_empty_tree_says_where_it_looked(tools: Toolbox) -> None:
    empty = tools.call("memory_tree", {})
    assert empty.data == [] and empty.text == "(the workspace is empty)"
    call(tools, "memory_write", content="Notes.", target="projects/alpha.md")
    missing = tools.call("memory_tree", {"path": "project"})
    assert missing.data == [] and missing.text == "(no files under project/)"
    assert tools.call("memory_tree", {"path": "projects"}).text == "alpha.md"
    file = tools.call("memory_tree", {"path": "projects/alpha.md"})
    assert file.data == [] and "projects/alpha.md is a file" in file.text


def test_a_file_and_a_folder_never_share_a_path(tools: Toolbox) -> None:
    call(tools, "memory_write", content="Notes.", target="notes/a.md")
    inside = tools.call("memory_write", {"content": "x", "target": "notes/a.md/child.md"})
    assert inside.data["error"]["field"] == "target"
    assert "notes/a.md is a file, so it cannot hold" in inside.data["error"]["message"]
    over = tools.call("memory_write", {"content": "x", "target": "notes"})
    assert "notes is a folder (it holds notes/a.md)" in over.data["error"]["message"]
    assert call(tools, "memory_tree", path="", depth=3) == [{"notes/": ["a.md"]}]


def test_daily_log_entries_are_timestamped_in_todays_file(tools: Toolbox) -> None:
    written = call(tools, "memory_write", content="Fixed bug in authentication flow.")
    assert written["path"] == "daily/2024-01-15.md"
    call(tools, "memory_write", content="Added unit tests.")
    content = call(tools, "memory_read", path="daily/2024-01-15.md")["content"]
    assert content == "[10:30:05] Fixed bug in authentication flow.\n[10:30:05] Added unit tests."


def test_errors_for_empty_content_missing_files_and_limits(tools: Toolbox) -> None:
    assert tools.call("memory_write", {"content": "   "}).data["error"]["field"] == "content"
    assert tools.call("memory_read", {"path": "nope.md"}).data["error"]["type"] == "not_found"
    for arguments, field in [
        ({"query": "x", "limit": 0}, "limit"),
        ({"query": "x", "limit": 21}, "limit"),
    ]:
        assert tools.call("memory_search", arguments).data["error"]["field"] == field
    for depth in (0, 11, True):
        assert tools.call("memory_tree", {"depth": depth}).data["error"]["field"] == "depth"
    not_a_flag = {"content": "x", "target": "memory", "append": "no"}
    assert tools.call("memory_write", not_a_flag).data["error"]["field"] == "append"
    assert tools.call("memory_write", {"content": "x", "target": "SOUL.md"}).is_error
    assert (
        tools.call("memory_write", {"content": "x", "target": "../x"}).data["error"]["field"]
        == "target"
    )


def test_search_output_shape_and_hybrid_flag(tools: Toolbox) -> None:
    call(
        tools,
        "memory_write",
        content="Decided to use REST API with JSON responses. Authentication via API keys.",
        target="memory",
    )
    call(
        tools,
        "memory_write",
        content="The office plants need watering on Mondays.",
        target="heartbeat",
    )
    response = call(tools, "memory_search", query="What did we decide about the API design?")
    assert set(response) == {"query", "results", "result_count"} and response[
        "result_count"
    ] == len(response["results"])
    best = response["results"][0]
    assert set(best) >= {"content", "score", "document_id", "is_hybrid_match"}
    assert "REST API" in best["content"] and best["is_hybrid_match"] is True
    plants = [r for r in response["results"] if "plants" in r["content"]]
    assert plants and plants[0]["is_hybrid_match"] is False  # only the semantic side matched
    assert len(best["document_id"]) == 36


def test_search_finds_what_the_agent_remembers_unless_limited_to_documents(
    settings: Settings,
    make_service,  # type: ignore[no-untyped-def]
) -> None:
    agent = Identity(agent_id="main")
    for search_memories in (True, False):
        scoped = settings.model_copy(
            update={
                "workspace_search_memories": search_memories,
                "db_path": f"{settings.db_path}-{search_memories}",
            }
        )
        service = make_service(scoped)
        service.remember(
            "The user is allergic to peanuts.", Category.PROFILE, scope="agent:main", identity=agent
        )
        toolbox = Toolbox()
        toolbox.extend(WorkspaceTools(service, clock=lambda: NOW).handlers())
        found = toolbox.call("memory_search", {"query": "peanut allergy"}, agent).data["results"]
        contents = [result["content"] for result in found]
        if search_memories:
            assert any("peanuts" in text for text in contents), found
            assert found[0]["category"] == "profile" and len(found[0]["document_id"]) == 36
            assert "path" not in found[0]  # not a file memory_read could open
        else:
            assert contents == []


def test_search_ranks_files_and_memories_on_one_scale(service: MemoryService) -> None:
    """Files only near in meaning do not push out the one memory that answers."""
    agent = Identity(agent_id="main")
    toolbox = Toolbox()
    toolbox.extend(WorkspaceTools(service, clock=lambda: NOW).handlers())
    for name in "abcde":
        note = {"content": f"Garden note {name}: water the tomatoes", "target": f"notes/{name}.md"}
        toolbox.call("memory_write", note, agent)
    service.remember(
        "Billing uses PostgreSQL 16", Category.EVENTS, scope="agent:main", identity=agent
    )
    found = toolbox.call("memory_search", {"query": "billing database"}, agent).data["results"]
    assert "PostgreSQL" in found[0]["content"], found
    assert found[0]["score"] > max(result["score"] for result in found[1:])
    scores = [result["score"] for result in found]
    assert scores == sorted(scores, reverse=True) and all(0 <= score <= 1 for score in scores)


def test_search_judges_a_file_by_the_passage_the_query_is_about(
    settings: Settings,
    make_service,  # type: ignore[no-untyped-def]
) -> None:
    """The answer deep in a long note still outranks memories that do not answer; with the
    cross-encoder off, search still works, each result keeping its own score."""
    agent = Identity(agent_id="main")
    introduction = "Operations notes for the platform team, kept after each weekly review. " * 10
    for rerank in (True, False):
        service = make_service(
            settings.model_copy(
                update={"rerank": rerank, "db_path": f"{settings.db_path}-{rerank}"}
            )
        )
        toolbox = Toolbox()
        toolbox.extend(WorkspaceTools(service, clock=lambda: NOW).handlers())
        note = introduction + (
            "Billing database: the billing service keeps invoices in PostgreSQL 16, in Frankfurt "
            "with a replica in Dublin."
        )
        toolbox.call("memory_write", {"content": note, "target": "notes/ops.md"}, agent)
        service.remember(
            "User asked about billing invoices last week.", Category.EVENTS, identity=agent
        )
        found = toolbox.call(
            "memory_search", {"query": "what database does billing use"}, agent
        ).data["results"]
        assert found, rerank
        if rerank:
            assert found[0].get("path") == "notes/ops.md", found


def test_rate_limit_per_minute_and_hour(clock: Clock, tmp_path: Path) -> None:
    limiter = RateLimiter(
        per_minute=20, per_hour=200, path=tmp_path / "limits.sqlite3", clock=clock
    )
    for _ in range(20):
        limiter.check("agent", "memory_write")
    with pytest.raises(Exception, match="20 calls per minute") as caught:
        limiter.check("agent", "memory_write")
    assert 0 < caught.value.retry_after_seconds <= 60  # type: ignore[attr-defined]
    limiter.check("other-agent", "memory_write")  # per agent
    for minute in range(1, 10):
        clock.now = minute * 61.0
        for _ in range(20):
            limiter.check("agent", "memory_write")
    clock.now = 10 * 61.0
    with pytest.raises(Exception, match="200 calls per hour"):
        limiter.check("agent", "memory_write")


def test_write_counts_that_cannot_be_written_are_a_config_error_naming_the_journal(
    tools: Toolbox, settings: Settings
) -> None:
    """A journal directory gone read-only or a damaged counts file, after the server
    started: each memory_write says which setting to look at, not internal_error."""
    assert "error" not in tools.call("memory_write", {"content": "first note"}).data
    counts = settings.resolved_journal_path() / "rate-limits.sqlite3"
    counts.write_bytes(b"not a database" * 100)
    error = tools.call("memory_write", {"content": "second note"}).data["error"]
    assert error["type"] == "config_error" and error["field"] == "journal_path"
    assert "rate-limits.sqlite3" in error["message"]


def test_rate_limited_write_is_a_clear_error(tools: Toolbox, clock: Clock) -> None:
    for number in range(20):
        assert not tools.call("memory_write", {"content": f"entry {number}"}).is_error
    error = tools.call("memory_write", {"content": "one too many"}).data["error"]
    assert (
        error["type"] == "rate_limited"
        and "retry in" in error["message"]
        and error["retry_after_seconds"] > 0
    )


def test_tool_sets_follow_the_configuration(settings: Settings, make_service) -> None:  # type: ignore[no-untyped-def]
    names = {
        choice: set(
            build_toolbox(make_service(settings.model_copy(update={"tool_sets": choice}))).names()
        )
        for choice in ("tinmem", "workspace", "both")
    }
    tinmem = {"memory_recall", "memory_store", "memory_forget", "memory_update"}
    workspace = {"memory_search", "memory_write", "memory_read", "memory_tree"}
    assert names == {"tinmem": tinmem, "workspace": workspace, "both": tinmem | workspace}


def test_workspace_tables_are_optimised_as_they_grow(settings: Settings, make_service) -> None:  # type: ignore[no-untyped-def]
    service = make_service(
        settings.model_copy(update={"optimize_every_writes": 3, "version_retention_seconds": 0})
    )
    tools = WorkspaceTools(service, clock=lambda: NOW)
    for number in range(10):
        tools.write(
            tools_arguments(f"Note {number} about the roadmap", f"notes/{number}.md"), Identity()
        )
    service.store.wait_for_upkeep()
    indexes = {index.name: index for index in tools.workspace.chunks.list_indices()}
    stats = tools.workspace.chunks.index_stats("text_idx")
    assert "text_idx" in indexes and stats is not None and stats.num_unindexed_rows <= 3
    assert len(tools.workspace.chunks.list_versions()) <= 8


def test_failed_workspace_upkeep_keeps_the_document(  # type: ignore[no-untyped-def]
    settings: Settings, make_service, lance_unavailable: None, caplog: pytest.LogCaptureFixture
) -> None:
    service = make_service(settings.model_copy(update={"optimize_every_writes": 2}))
    tools = WorkspaceTools(service, clock=lambda: NOW)
    for number in range(3):
        tools.write(
            tools_arguments(f"Note {number} about the roadmap", f"notes/{number}.md"), Identity()
        )
    service.store.wait_for_upkeep()
    assert "workspace upkeep failed" in caplog.text
    assert "Note 1 about the roadmap" in tools.workspace.read("notes/1.md", "agent:main").content


def tools_arguments(content: str, target: str):  # type: ignore[no-untyped-def]
    from openclaw_tinmem.tools.arguments import WriteArguments

    return WriteArguments(content=content, target=target)


def test_appending_embeds_only_the_changed_chunk(
    settings: Settings, make_service, embedder: FastEmbedEmbedder
) -> None:  # type: ignore[no-untyped-def]
    embedded: list[str] = []
    watched = InterceptedEmbedder(embedder, before_documents=embedded.extend)
    service = make_service(settings, embedder=watched)
    tools = WorkspaceTools(service, clock=lambda: NOW)
    first = "\n\n".join(f"Paragraph {n}: " + "details " * 60 for n in range(6))
    tools.write(tools_arguments(first, "notes/long.md"), Identity())
    chunks_of_first = len(embedded)
    embedded.clear()
    tools.write(tools_arguments("A short addition at the end.", "notes/long.md"), Identity())
    assert chunks_of_first >= 3 and len(embedded) == 1
    assert "short addition" in embedded[0]
    hits = tools.search(SearchArguments(query="short addition"), Identity())
    assert "short addition" in hits.data["results"][0]["content"]


LIMITED_WRITER = """
import sys
from pathlib import Path
from openclaw_tinmem.errors import RateLimitError
from openclaw_tinmem.tools.rate_limit import RateLimiter

limiter = RateLimiter(per_minute=20, per_hour=200, path=Path(sys.argv[1]))
allowed = 0
for _ in range(int(sys.argv[3])):
    try:
        limiter.check(sys.argv[2], "memory_write")
        allowed += 1
    except RateLimitError:
        pass
print(allowed)
"""


def test_the_rate_limit_holds_across_processes_per_agent(tmp_path: Path) -> None:
    path = tmp_path / "limits.sqlite3"

    def run(agent: str, calls: int) -> int:
        done = subprocess.run(
            [sys.executable, "-c", LIMITED_WRITER, str(path), agent, str(calls)],
            capture_output=True,
            text=True,
            check=True,
        )
        return int(done.stdout)

    assert run("agent:alpha", 12) == 12
    assert run("agent:alpha", 12) == 8  # the same agent in another process: 20 in a minute
    assert run("agent:beta", 12) == 12  # another agent has its own quota


def test_each_agent_works_in_its_own_workspace(service: MemoryService, clock: Clock) -> None:
    toolbox = Toolbox()
    toolbox.extend(WorkspaceTools(service, clock=lambda: NOW, rate_clock=clock).handlers())
    alpha, beta = Identity(agent_id="alpha", user_id="ana"), Identity(agent_id="beta")
    note = {"content": "alpha secret 9981", "target": "projects/alpha/notes.md"}
    assert toolbox.call("memory_write", note, alpha).data["status"] == "written"
    read = {"path": "projects/alpha/notes.md"}
    assert "9981" in toolbox.call("memory_read", read, alpha).data["content"]
    assert toolbox.call("memory_read", read, beta).data["error"]["type"] == "not_found"
    assert toolbox.call("memory_tree", {}, beta).data == []
    found = toolbox.call("memory_search", {"query": "alpha secret"}, beta).data
    assert all("9981" not in result["content"] for result in found["results"])
    replaced = {"content": "beta's own", "target": "projects/alpha/notes.md", "append": False}
    toolbox.call("memory_write", replaced, beta)
    assert "9981" in toolbox.call("memory_read", read, alpha).data["content"]
    assert toolbox.call("memory_read", read, beta).data["content"] == "beta's own"
    # the administrator (the CLI without --agent-id) works in the default agent's workspace
    toolbox.call("memory_write", {"content": "main's notes", "target": "memory"}, Identity())
    admin = Identity.administrator()
    assert toolbox.call("memory_read", {"path": "MEMORY.md"}, admin).data["content"] == (
        "main's notes"
    )


def test_a_workspace_needs_the_rights_to_its_scope(settings: Settings, make_service) -> None:  # type: ignore[no-untyped-def]
    rules = {"agent_access": {"auditor": {"read": ["*"], "write": []}}}
    service = make_service(Settings.model_validate({**settings.model_dump(), **rules}))
    toolbox = Toolbox()
    toolbox.extend(WorkspaceTools(service, clock=lambda: NOW).handlers())
    auditor = Identity(agent_id="auditor")
    denied = toolbox.call("memory_write", {"content": "x", "target": "memory"}, auditor).data
    assert denied["error"]["type"] == "access_denied" and "no scope" in denied["error"]["message"]


def test_a_workspace_shared_on_purpose(settings: Settings, make_service) -> None:  # type: ignore[no-untyped-def]
    service = make_service(settings.model_copy(update={"workspace_scope": "global"}))
    toolbox = Toolbox()
    toolbox.extend(WorkspaceTools(service, clock=lambda: NOW).handlers())
    note = {"content": "Team runbook", "target": "runbook.md"}
    toolbox.call("memory_write", note, Identity(agent_id="alpha"))
    read = toolbox.call("memory_read", {"path": "runbook.md"}, Identity(agent_id="beta")).data
    assert read["content"] == "Team runbook"


def write_memory_md_from_before_owners(database: Any, content: str) -> None:
    """A ``workspace_documents`` table as versions before workspaces had owners wrote it
    (no scope column), holding ``MEMORY.md``."""
    import pyarrow as pa

    timestamp = pa.timestamp("us", tz="UTC")
    old_documents = pa.schema(
        [
            pa.field("id", pa.string()),
            pa.field("path", pa.string()),
            pa.field("content", pa.string()),
            pa.field("created_at", timestamp),
            pa.field("updated_at", timestamp),
        ]
    )
    row = {"id": "d1", "path": "MEMORY.md", "content": content, "created_at": NOW}
    database.create_table(
        "workspace_documents",
        pa.Table.from_pylist([{**row, "updated_at": NOW}], schema=old_documents),
    )


def test_files_from_before_workspaces_had_owners_are_the_default_agents(  # type: ignore[no-untyped-def]
    settings: Settings, make_service
) -> None:
    service = make_service(settings)
    write_memory_md_from_before_owners(service.store.database, "old notes")
    toolbox = Toolbox()
    toolbox.extend(WorkspaceTools(service, clock=lambda: NOW).handlers())
    read = {"path": "MEMORY.md"}
    assert toolbox.call("memory_read", read, Identity()).data["content"] == "old notes"
    assert toolbox.call("memory_read", read, Identity(agent_id="beta")).data["error"]["type"] == (
        "not_found"
    )


@pytest.mark.parametrize("value", ["agents", "agent:*", "{agent}"])
def test_a_workspace_scope_that_is_no_keyword_nor_scope_is_refused(value: str) -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="use 'agent', 'user', 'global' or one scope"):
        Settings(workspace_scope=value)


def test_a_write_embeds_before_it_takes_the_write_lock(
    settings: Settings, make_service, embedder: FastEmbedEmbedder
) -> None:  # type: ignore[no-untyped-def]
    """Other writers (of memories, of other files, in other processes) wait only for the
    commit, not for the embedding of a long file."""
    held: list[bool] = []

    def lock_is_free(_: object) -> None:
        probe = FileLock(str(Path(settings.db_path) / LOCK_FILE_NAME))
        try:
            with probe.acquire(timeout=0):
                held.append(False)
        except Timeout:
            held.append(True)

    service = make_service(
        settings, embedder=InterceptedEmbedder(embedder, before_documents=lock_is_free)
    )
    tools = WorkspaceTools(service, clock=lambda: NOW)
    tools.write(tools_arguments("First paragraph.\n\n" + "words " * 300, "notes/a.md"), Identity())
    tools.write(tools_arguments("An appended paragraph.", "notes/a.md"), Identity())
    assert held == [False, False]


def test_a_refused_write_does_not_count_against_the_rate_limit(tools: Toolbox) -> None:
    assert not tools.call("memory_write", {"content": "a note", "target": "notes"}).is_error
    for number in range(25):
        refused = tools.call("memory_write", {"content": "x", "target": f"notes/n{number}.md"})
        assert refused.data["error"]["type"] == "invalid_argument"
    assert not tools.call("memory_write", {"content": "still allowed", "target": "memory"}).is_error
