"""A store this user may read but not write is readable by every reading command and refused,
in one line naming db_path, by every writing one, with nothing written; one it may not read
at all is a one-line error. Permissions are real: as root the command runs without the
capabilities that let root ignore them (``setpriv --bounding-set=-all``), on files owned by
another user."""

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from openclaw_tinmem.config import Settings
from openclaw_tinmem.models import Category
from openclaw_tinmem.service import MemoryService
from tests.tools.test_workspace import write_memory_md_from_before_owners

pytestmark = pytest.mark.faults
TINMEM = Path(sys.executable).with_name("tinmem")
NOBODY = 65534


def as_another_user(directory: Path, *, readable: bool) -> None:
    """``directory`` as another user's files would be: read-only for this user, or unreadable.
    As root, owned by another user (root's capabilities are dropped in ``run``); otherwise our
    own permissions are taken away."""
    for path in [directory, *directory.rglob("*")]:
        if os.geteuid() == 0:
            os.chown(path, NOBODY, NOBODY)
            path.chmod((0o755 if readable else 0o700) if path.is_dir() else 0o644)
        else:
            path.chmod(0o555 if path.is_dir() else 0o444)
    if os.geteuid() != 0 and not readable:
        directory.chmod(0o000)


def run(settings: Settings, *command: str) -> subprocess.CompletedProcess[str]:
    prefix = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        assert setpriv, "setpriv (util-linux) is needed to drop root's capabilities"
        prefix = [setpriv, "--bounding-set=-all"]
    environment = {
        **os.environ,
        "TINMEM_DB_PATH": settings.db_path,
        "TINMEM_JOURNAL_PATH": settings.journal_path,
        "TINMEM_MODEL_DIR": str(settings.resolved_model_dir()),
    }
    return subprocess.run(
        [*prefix, str(TINMEM), *command],
        env=environment,
        capture_output=True,
        text=True,
        timeout=180,
    )


@pytest.fixture
def read_only(settings: Settings, make_service) -> Iterator[tuple[Settings, str]]:  # type: ignore[no-untyped-def]
    service: MemoryService = make_service(settings)
    kept = service.remember("The staging cluster runs Kubernetes 1.30", Category.ENTITIES)
    service.close()
    as_another_user(Path(settings.db_path), readable=True)
    yield settings, kept.memory.id
    if os.geteuid() != 0:  # give our own files back, so the temporary directory can go
        Path(settings.db_path).chmod(0o755)
        for path in Path(settings.db_path).rglob("*"):
            path.chmod(0o755 if path.is_dir() else 0o644)


@pytest.mark.parametrize(
    ("command", "shows"),
    [
        (["list", "--wide"], "{id}"),
        (["show", "{id}"], "Kubernetes 1.30"),
        (["export"], "Kubernetes 1.30"),
        (["search", "staging cluster"], "Kubernetes 1.30"),
        (["stats"], "db_path"),
        (["history", "{id}"], "created"),
        (["workspace", "search", "staging cluster"], "Kubernetes 1.30"),
        (["workspace", "tree"], ""),
    ],
)
def test_reading_commands_read_a_read_only_store(
    read_only: tuple[Settings, str], command: list[str], shows: str
) -> None:
    settings, memory_id = read_only
    completed = run(settings, *(part.format(id=memory_id) for part in command))
    assert completed.returncode == 0, completed.stderr
    assert shows.format(id=memory_id) in completed.stdout


@pytest.mark.parametrize(
    "command",
    [
        ["store", "The backup server is Nimbus", "--category", "entities"],
        ["forget", "{id}", "--yes"],
        ["update", "{id}", "--importance", "0.9"],
        ["import", "{file}"],
        ["workspace", "write", "a note", "--target", "memory"],
    ],
)
def test_writing_commands_refuse_in_one_line_and_write_nothing(
    read_only: tuple[Settings, str], command: list[str], tmp_path: Path
) -> None:
    settings, memory_id = read_only
    lines = tmp_path / "one.jsonl"
    lines.write_text('{"content": "The backup server is Nimbus", "category": "entities"}\n')
    before = sorted(p.name for p in Path(settings.db_path).rglob("*"))
    completed = run(settings, *(p.format(id=memory_id, file=lines) for p in command))
    said = completed.stdout + completed.stderr
    assert completed.returncode != 0 and "Traceback" not in said, said
    assert "read-only" in said and "db_path" in said, said
    assert sorted(p.name for p in Path(settings.db_path).rglob("*")) == before


def test_doctor_reads_it_and_says_it_is_read_only(read_only: tuple[Settings, str]) -> None:
    completed = run(read_only[0], "doctor")
    said = " ".join(completed.stdout.split())
    assert "FAIL store" in said and "1 memories" in said and "READ-ONLY" in said, said
    assert completed.returncode == 1


def test_a_store_this_user_cannot_read_is_one_line_naming_db_path(
    read_only: tuple[Settings, str],
) -> None:
    settings, _ = read_only
    as_another_user(Path(settings.db_path), readable=False)
    for command in (["list"], ["doctor"]):
        completed = run(settings, *command)
        said = " ".join((completed.stdout + completed.stderr).split())
        assert completed.returncode != 0 and "Traceback" not in said, said
        assert "db_path" in said and "cannot be read" in said, said


HOST = """
import json, sys
from openclaw_tinmem.config import Settings
from openclaw_tinmem.plugin.hookimpls import TinmemPlugin
from openclaw_tinmem.plugin.host import Host, load_plugins

plugin = TinmemPlugin(Settings.model_validate_json(sys.argv[1]))
host = Host(load_plugins([plugin], entry_points=False), lambda messages, tools: "Noted.")
session = host.start_session(agent_id="main")
host.turn(session, "Which Kubernetes version does the staging cluster run?")
injected = session.last_injected or ""
host.turn(session, "We decided that the backup server is called Nimbus from now on.")
drained = plugin.worker.flush(20)
pending = len(plugin.worker.journal.pending())
plugin.close()
print(json.dumps({"injected": injected, "drained": drained, "pending": pending}))
"""


def test_an_agent_on_a_read_only_store_recalls_and_its_turns_wait_in_the_journal(
    read_only: tuple[Settings, str], tmp_path: Path
) -> None:
    settings, _ = read_only
    journal = tmp_path / "host-journal"
    chosen = settings.model_copy(
        # the first recall loads the models: not timed here, on a machine however busy
        update={
            "journal_path": str(journal),
            "capture_retry_seconds": 0,
            "recall_timeout_seconds": 60,
        }
    )
    before = sorted(p.name for p in Path(settings.db_path).rglob("*"))
    prefix = (
        [shutil.which("setpriv") or "setpriv", "--bounding-set=-all"] if os.geteuid() == 0 else []
    )
    completed = subprocess.run(
        [*prefix, sys.executable, "-c", HOST, chosen.model_dump_json()],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert completed.returncode == 0, completed.stderr
    outcome = json.loads(completed.stdout.strip().splitlines()[-1])
    assert "Kubernetes 1.30" in outcome["injected"]
    assert outcome["drained"] is False and outcome["pending"] >= 1  # kept, not lost
    assert completed.stderr.count("the store is read-only for this user") == 1
    assert "Traceback" not in completed.stderr
    assert sorted(p.name for p in Path(settings.db_path).rglob("*")) == before


def test_a_read_only_store_with_workspace_files_from_before_owners_is_read(  # type: ignore[no-untyped-def]
    settings: Settings, make_service
) -> None:
    service: MemoryService = make_service(settings)
    service.remember("The staging cluster runs Kubernetes 1.30", Category.ENTITIES)
    write_memory_md_from_before_owners(service.store.database, "old notes")
    service.close()
    as_another_user(Path(settings.db_path), readable=True)
    try:
        for command, shows in (
            (["workspace", "read", "MEMORY.md"], "old notes"),
            (["search", "staging cluster"], "Kubernetes 1.30"),
            (["tool", "memory_recall", '{"query": "staging cluster"}'], "Kubernetes 1.30"),
        ):
            completed = run(settings, *command)
            assert completed.returncode == 0, completed.stderr
            assert shows in completed.stdout
    finally:
        if os.geteuid() != 0:
            Path(settings.db_path).chmod(0o755)
            for path in Path(settings.db_path).rglob("*"):
                path.chmod(0o755 if path.is_dir() else 0o644)
