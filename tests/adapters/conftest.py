"""What the framework adapters' tests share: the scripted model server on 127.0.0.1."""

from collections.abc import Iterator

import pytest

from openclaw_tinmem.testing import FakeLLM, Reply


@pytest.fixture
def model_server() -> Iterator[FakeLLM]:
    with FakeLLM(default=Reply(raw="Noted.")) as server:
        yield server
