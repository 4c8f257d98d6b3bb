"""An S3 server (moto's) on 127.0.0.1, and settings for a store in a bucket of its own."""

import re
from collections.abc import Iterator

import pytest

from benchmarks.s3_server import create_bucket, start_moto
from openclaw_tinmem.config import Settings


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    server, endpoint = start_moto()
    yield endpoint
    server.terminate()
    server.wait(timeout=10)


@pytest.fixture
def s3_settings(s3_endpoint: str, settings: Settings, request: pytest.FixtureRequest) -> Settings:
    name = re.sub(r"[^a-z0-9]+", "-", request.node.name.lower())
    bucket = "tinmem-" + name[:40].strip("-")
    create_bucket(s3_endpoint, bucket)
    return settings.model_copy(
        update={  # the named options for the server, credentials as raw storage options
            "db_path": f"s3://{bucket}/memory",
            "storage_endpoint": s3_endpoint,
            "storage_region": "us-east-1",
            "storage_allow_http": True,
            "storage_options": {"aws_access_key_id": "test", "aws_secret_access_key": "test"},
        }
    )
