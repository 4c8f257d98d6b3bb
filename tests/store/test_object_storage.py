"""The store on S3-compatible object storage: a real S3 server (moto's) on 127.0.0.1.

Hosts are played by separate OS processes with their own home and journal directories that
share only the bucket, or (where the test needs to interleave steps) by separate store
handles in this process, which share nothing but the bucket either.
"""

import os
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest

from benchmarks.s3_server import MOTO_SERVER, ForgetfulProxy
from openclaw_tinmem.config import Settings
from openclaw_tinmem.errors import StoreError
from openclaw_tinmem.models import Category
from openclaw_tinmem.store.lease import Lease
from openclaw_tinmem.write.dedup import SimilarityJudge

pytestmark = pytest.mark.skipif(not Path(MOTO_SERVER).exists(), reason="moto is not installed")


def test_a_store_on_s3_remembers_recalls_updates_and_forgets(
    s3_settings: Settings, make_service
) -> None:  # type: ignore[no-untyped-def]
    service = make_service(s3_settings)
    stored = service.remember("The staging database runs on port 5433", Category.ENTITIES)
    service.remember("User prefers dark mode in every editor", Category.PREFERENCES)
    hits = service.recall("which port does the staging database use")
    assert hits[0].memory.id == stored.memory.id
    service.update(stored.memory.id, content="The staging database runs on port 6543")
    other = make_service(s3_settings)  # another handle on the same bucket, as another host
    assert other.get(stored.memory.id).content == "The staging database runs on port 6543"
    service.forget(memory_id=stored.memory.id)
    time.sleep(s3_settings.read_consistency_seconds + 0.1)
    assert other.store.count() == 1


def test_a_write_on_one_host_is_recalled_on_another_within_the_consistency_bound(
    s3_settings: Settings, make_service
) -> None:  # type: ignore[no-untyped-def]
    host_a, host_b = make_service(s3_settings), make_service(s3_settings)
    assert host_b.recall("which port does the staging database use") == []  # B's copy loaded
    host_a.remember("The staging database runs on port 5433", Category.ENTITIES)
    time.sleep(s3_settings.read_consistency_seconds)  # the documented bound
    hits = host_b.recall("which port does the staging database use")
    assert [hit.memory.content for hit in hits] == ["The staging database runs on port 5433"]


def test_a_change_based_on_a_stale_read_is_refused_not_written_over_another_hosts(
    s3_settings: Settings, make_service
) -> None:  # type: ignore[no-untyped-def]
    host_a, host_b = make_service(s3_settings), make_service(s3_settings)
    stored = host_a.remember("The build server is called hopper", Category.ENTITIES).memory
    seen_by_a = host_a.store.get_with_vectors([stored.id])[0]
    host_b.update(stored.id, content="The build server is called lovelace")
    stale = seen_by_a[0].model_copy(update={"content": "The build server is called turing"})
    conflicted = host_a.store.upsert(
        [stale], [seen_by_a[1]], expected={stored.id: seen_by_a[0].updated_at}
    )
    assert conflicted == {stored.id}
    assert host_a.get(stored.id).content == "The build server is called lovelace"


def test_a_merge_into_a_memory_another_host_deleted_does_not_bring_it_back(
    s3_settings: Settings, make_service
) -> None:  # type: ignore[no-untyped-def]
    host_a, host_b = make_service(s3_settings), make_service(s3_settings)
    stored = host_a.remember("The build server is called hopper", Category.ENTITIES).memory
    memory, vector = host_a.store.get_with_vectors([stored.id])[0]
    host_b.forget(memory_id=stored.id)
    merged = memory.model_copy(update={"content": f"{memory.content}\nIt has 64 cores"})
    assert host_a.store.upsert([merged], [vector], expected={stored.id: memory.updated_at}) == {
        stored.id
    }
    time.sleep(s3_settings.read_consistency_seconds)
    assert host_a.store.count() == 0


def test_the_writer_decides_again_when_its_merge_target_changed_under_it(
    s3_settings: Settings, make_service
) -> None:  # type: ignore[no-untyped-def]
    """Host A's judge picked the profile to merge into; host B merged into it meanwhile. A's
    write is refused, A reads the profile again and merges into what B wrote: both kept."""
    host_b = make_service(s3_settings)

    class HostBWritesWhileADecides(SimilarityJudge):
        writing = False

        def decide_batch(self, items):  # type: ignore[no-untyped-def]
            decisions = super().decide_batch(items)
            if self.writing:
                host_b.remember("The user lives in Lisbon", Category.PROFILE)
            return decisions

    judge = HostBWritesWhileADecides(s3_settings)
    host_a = make_service(s3_settings, judge=judge)
    profile = host_a.remember("The user is a marine biologist", Category.PROFILE).memory
    judge.writing = True
    outcome = host_a.remember("The user speaks Portuguese and Dutch", Category.PROFILE)
    assert outcome.memory.id == profile.id
    time.sleep(s3_settings.read_consistency_seconds)
    memories = host_b.store.list_memories(limit=None)
    assert len(memories) == 1
    for fact in ("marine biologist", "Lisbon", "Portuguese and Dutch"):
        assert fact in memories[0].content


PROFILE_WRITER = """
import sys
from openclaw_tinmem.config import Settings
from openclaw_tinmem.models import Category
from openclaw_tinmem.service import MemoryService

settings = Settings.model_validate_json(sys.argv[1])
service = MemoryService.from_settings(settings)
topics = ["sailing", "chess", "pottery", "cycling", "baking", "astronomy", "climbing", "jazz"]
for topic in topics[: int(sys.argv[3])]:
    service.remember(f"On host {sys.argv[2]} the user mentioned a hobby: {topic}", Category.PROFILE)
service.close()
"""


def _run_hosts(script: str, settings: Settings, tmp_path: Path, count: int) -> None:
    processes = []
    for host in ("a", "b"):
        home = tmp_path / host  # each host has only its own local directories
        local = settings.model_copy(update={"journal_path": str(home / "journal")})
        environment = {**os.environ, "HOME": str(home)}
        processes.append(
            subprocess.Popen(
                [sys.executable, "-c", script, local.model_dump_json(), host, str(count)],
                env=environment,
            )
        )
    assert [process.wait(timeout=300) for process in processes] == [0, 0]


def test_two_hosts_merging_into_one_profile_lose_no_fact(
    s3_settings: Settings, make_service, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """Every profile fact merges into the scope's one profile: with both hosts merging at
    once, each merge must land on top of the other host's, none overwritten."""
    make_service(s3_settings).remember("The user is called Ada", Category.PROFILE)
    _run_hosts(PROFILE_WRITER, s3_settings, tmp_path, 6)
    memories = make_service(s3_settings).store.list_memories(limit=None)
    assert len(memories) == 1
    lines = memories[0].content.splitlines()
    for host in ("a", "b"):
        assert sum(f"On host {host} " in line for line in lines) == 6, memories[0].content


WRITER = """
import sys
from openclaw_tinmem.config import Settings
from openclaw_tinmem.models import Category
from openclaw_tinmem.service import MemoryService

settings = Settings.model_validate_json(sys.argv[1])
service = MemoryService.from_settings(settings)
for number in range(int(sys.argv[3])):
    service.remember(f"Host {sys.argv[2]} logged event number {number} today", Category.EVENTS)
service.close()
"""


def test_writers_on_two_hosts_lose_nothing_and_duplicate_nothing(
    s3_settings: Settings, make_service, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    _run_hosts(WRITER, s3_settings, tmp_path, 15)  # the first host to start creates the table
    memories = make_service(s3_settings).store.list_memories(limit=None)
    assert len(memories) == 30 and len({memory.id for memory in memories}) == 30
    for host in ("a", "b"):
        assert sum(f"Host {host} " in memory.content for memory in memories) == 15


def test_upkeep_runs_on_one_host_at_a_time(s3_settings: Settings, make_service) -> None:  # type: ignore[no-untyped-def]
    host_a, host_b = make_service(s3_settings), make_service(s3_settings)
    for number in range(3):
        host_a.remember(f"Deploy number {number} went out on Friday", Category.EVENTS)
    lease = host_a.store.upkeep_lease
    assert lease is not None and lease.acquire()  # host A is in the middle of upkeep
    assert host_b.store.optimize() is False  # so host B leaves it alone
    lease.release()
    assert host_b.store.optimize() is True
    assert host_a.store.count() == 3


def test_episode_retention_runs_on_one_host_at_a_time(s3_settings: Settings, make_service) -> None:  # type: ignore[no-untyped-def]
    from datetime import UTC, datetime

    from openclaw_tinmem.write.retention import expire_episodes
    from tests.write.test_retention import capture, episode_of

    now = datetime(2026, 12, 1, tzinfo=UTC)
    retained = s3_settings.model_copy(update={"episode_retention_days": 30})
    host_a, host_b = make_service(retained), make_service(retained)
    old = episode_of(capture(host_a, now - timedelta(days=45), "We decided to fly in May."))
    lease = Lease(host_a.store.database, f"episode retention {retained.table_name}", 60)
    assert lease.acquire()  # host A is folding and forgetting that session's episodes
    assert expire_episodes(host_b.store, retained, host_b.writer, now) == 0  # so B leaves them
    assert old.id in host_b.store.get([old.id])
    lease.release()
    assert expire_episodes(host_b.store, retained, host_b.writer, now) == 1


def test_a_purge_waits_for_another_hosts_upkeep_and_says_when_it_could_not(
    s3_settings: Settings, make_service, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    import threading

    from openclaw_tinmem.store import table

    host_a, host_b = make_service(s3_settings), make_service(s3_settings)
    first = host_b.remember("Deploys go out on Fridays", Category.EVENTS).memory
    second = host_b.remember("The staging cluster runs Kubernetes 1.30", Category.ENTITIES).memory
    lease = host_a.store.upkeep_lease
    assert lease is not None and lease.acquire()  # host A is in the middle of upkeep
    releasing = threading.Timer(1.5, lease.release)
    releasing.start()
    outcome = host_b.forget(memory_id=first.id, purge=True)
    releasing.join()
    assert [memory.id for memory in outcome.deleted] == [first.id] and outcome.purged
    assert lease.acquire()  # and now A's upkeep outlasts the wait
    monkeypatch.setattr(table, "PURGE_WAIT_SECONDS", 0.5)
    outcome = host_b.forget(memory_id=second.id, purge=True)
    assert [memory.id for memory in outcome.deleted] == [second.id] and not outcome.purged
    lease.release()
    assert host_b.store.count() == 0


def test_the_cli_says_and_exits_1_when_a_purge_could_not_run(
    s3_settings: Settings, make_service, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    import json

    from click.testing import CliRunner

    from openclaw_tinmem.cli import main
    from openclaw_tinmem.store import table

    host_a = make_service(s3_settings)
    first = host_a.remember("Deploys go out on Fridays", Category.EVENTS).memory
    second = host_a.remember("Staging runs Kubernetes 1.30", Category.ENTITIES).memory
    config = tmp_path / "tinmem.toml"
    config.write_text(
        f'db_path = "{s3_settings.db_path}"\n'
        f'storage_endpoint = "{s3_settings.storage_endpoint}"\n'
        'storage_region = "us-east-1"\nstorage_allow_http = true\ntrack_access = false\n'
        f'model_dir = "{s3_settings.model_dir}"\njournal_path = "{tmp_path / "journal"}"\n'
        '[storage_options]\naws_access_key_id = "test"\naws_secret_access_key = "test"\n'
    )
    lease = host_a.store.upkeep_lease
    assert lease is not None and lease.acquire()  # host A's upkeep outlasts the purge's wait
    monkeypatch.setattr(table, "PURGE_WAIT_SECONDS", 0.5)
    runner = CliRunner()
    environment = {"TINMEM_CONFIG": str(config)}
    single = runner.invoke(main, ["forget", first.id, "--purge", "--json"], env=environment)
    assert single.exit_code == 1 and "not purged yet" in single.stderr
    reported = json.loads(single.stdout)
    assert reported["deleted"] == [first.id] and reported["purged"] is False
    bulk = runner.invoke(
        main, ["forget", "--category", "entities", "--yes", "--purge", "--json"], env=environment
    )
    assert bulk.exit_code == 1 and "not purged yet" in bulk.stderr
    assert json.loads(bulk.stdout) == {"deleted": [second.id], "purged": False}
    lease.release()
    assert host_a.store.count() == 0


def test_a_lease_is_held_by_one_holder_until_released_or_expired(
    s3_settings: Settings, make_service
) -> None:  # type: ignore[no-untyped-def]
    database = make_service(s3_settings).store.database
    now = [1_000_000.0]
    first = Lease(database, "upkeep test", 60, holder="first", clock=lambda: now[0])
    second = Lease(database, "upkeep test", 60, holder="second", clock=lambda: now[0])
    assert first.acquire() and not second.acquire()
    assert first.acquire()  # renewing one's own lease
    now[0] += 61  # the first holder died without releasing
    assert second.acquire() and not first.acquire()
    second.release()
    assert first.acquire()
    assert first.holder_now()[0] == "first"


def test_a_server_that_ignores_conditional_writes_is_refused(
    s3_endpoint: str, s3_settings: Settings, make_service
) -> None:  # type: ignore[no-untyped-def]
    proxy = ForgetfulProxy(s3_endpoint)
    try:
        forgetful = s3_settings.model_copy(update={"storage_endpoint": proxy.endpoint})
        with pytest.raises(StoreError, match="ignores conditional writes"):
            make_service(forgetful)
        single = forgetful.model_copy(update={"object_store_single_writer": True})
        service = make_service(single)  # one writer, as the operator says: allowed
        service.remember("The user prefers tea", Category.PREFERENCES)
        assert service.store.count() == 1
    finally:
        proxy.close()


def test_lease_expiry_is_wall_clock_milliseconds() -> None:
    lease = Lease(None, "x", 1.5, holder="h", clock=lambda: 10.0)
    row = lease._row("h", int(10.0 * 1000 + timedelta(seconds=1.5).total_seconds() * 1000))
    assert row.to_pylist() == [{"name": "x", "holder": "h", "expires_at": 11500}]


WORKSPACE_WRITER = """
import sys
from openclaw_tinmem.config import Settings
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.workspace.store import WorkspaceStore

settings = Settings.model_validate_json(sys.argv[1])
service = MemoryService.from_settings(settings)
workspace = WorkspaceStore(service.store, service.embedder, "agent:main")
for number in range(int(sys.argv[3])):
    workspace.write("daily/log.md", f"host {sys.argv[2]} line {number}", "agent:main", append=True)
    workspace.write(
        f"notes/shared-{number}.md", f"host {sys.argv[2]} was here", "agent:main", append=True
    )
service.close()
"""


def test_two_hosts_appending_to_and_creating_the_same_files_lose_no_line(
    s3_settings: Settings, make_service, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    from openclaw_tinmem.workspace.store import WorkspaceStore

    service = make_service(s3_settings)
    WorkspaceStore(service.store, service.embedder, "agent:main")  # the tables exist first
    _run_hosts(WORKSPACE_WRITER, s3_settings, tmp_path, 5)
    workspace = WorkspaceStore(service.store, service.embedder, "agent:main")
    paths = workspace.paths("agent:main")
    assert sorted(paths) == sorted(["daily/log.md", *(f"notes/shared-{n}.md" for n in range(5))])
    log = workspace.read("daily/log.md", "agent:main").content.splitlines()
    assert sorted(log) == sorted(f"host {h} line {n}" for h in "ab" for n in range(5))
    for number in range(5):  # both hosts' lines: the second creator appended to the first's
        shared = workspace.read(f"notes/shared-{number}.md", "agent:main").content.splitlines()
        assert sorted(shared) == ["host a was here", "host b was here"]
    chunks = workspace.chunks.search().select(["path", "text"]).limit(None).to_list()
    assert len(chunks) == len(paths)  # one chunk per (short) file: no other revision left
