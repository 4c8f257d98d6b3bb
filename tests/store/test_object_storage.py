"""The store on S3-compatible object storage: a real S3 server (moto's) on 127.0.0.1."""

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from openclaw_tinmem.config import Settings
from openclaw_tinmem.models import Category

MOTO_SERVER = shutil.which("moto_server") or str(Path(sys.executable).with_name("moto_server"))
pytestmark = pytest.mark.skipif(not Path(MOTO_SERVER).exists(), reason="moto is not installed")


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    server = subprocess.Popen(
        [MOTO_SERVER, "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    endpoint = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                break
        except OSError:
            time.sleep(0.1)
    yield endpoint
    server.terminate()
    server.wait(timeout=10)


@pytest.fixture
def s3_settings(s3_endpoint: str, settings: Settings, request: pytest.FixtureRequest) -> Settings:
    import boto3

    bucket = "tinmem-" + request.node.name.lower().replace("_", "-")[:40].strip("-")
    client = boto3.client(
        "s3", endpoint_url=s3_endpoint, region_name="us-east-1",
        aws_access_key_id="test", aws_secret_access_key="test",
    )  # fmt: skip
    client.create_bucket(Bucket=bucket)
    options = {
        "aws_endpoint": s3_endpoint, "aws_region": "us-east-1", "allow_http": "true",
        "aws_access_key_id": "test", "aws_secret_access_key": "test",
    }  # fmt: skip
    return settings.model_copy(
        update={"db_path": f"s3://{bucket}/memory", "storage_options": options}
    )


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
    make_service(s3_settings)  # creates the table once, before the hosts start
    processes = []
    for host in ("a", "b"):
        home = tmp_path / host  # each host has only its own local directories
        local = s3_settings.model_copy(update={"journal_path": str(home / "journal")})
        environment = {**os.environ, "HOME": str(home)}
        processes.append(subprocess.Popen(
            [sys.executable, "-c", WRITER, local.model_dump_json(), host, "15"], env=environment,
        ))  # fmt: skip
    assert [process.wait(timeout=300) for process in processes] == [0, 0]
    reader = make_service(s3_settings)
    memories = reader.store.list_memories(limit=None)
    assert len(memories) == 30 and len({memory.id for memory in memories}) == 30
    for host in ("a", "b"):
        assert sum(f"Host {host} " in memory.content for memory in memories) == 15
