"""Shared fixtures: the real provisioned embedding model (once per session), real LanceDB in tmp."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import SecretStr

from openclaw_tinmem.config import Settings
from openclaw_tinmem.encoders.dense import Embedder, FastEmbedEmbedder
from openclaw_tinmem.plugin.hookimpls import TinmemPlugin
from openclaw_tinmem.service import MemoryService, open_store
from openclaw_tinmem.testing import FakeLLM
from openclaw_tinmem.tools.memory import MemoryTools
from openclaw_tinmem.tools.toolbox import Toolbox


@pytest.fixture(scope="session")
def model_settings() -> Settings:
    """Settings from the environment (TINMEM_MODEL_DIR), provisioning the models if needed."""
    model_dir = os.environ.get("TINMEM_MODEL_DIR")
    return Settings(**({"model_dir": model_dir} if model_dir else {}))


@pytest.fixture(scope="session")
def embedder(model_settings: Settings) -> FastEmbedEmbedder:
    return FastEmbedEmbedder(model_settings)


@pytest.fixture
def settings(tmp_path: Path, model_settings: Settings) -> Settings:
    return model_settings.model_copy(
        update={
            "db_path": str(tmp_path / "db"),
            "journal_path": str(tmp_path / "journal"),
            "track_access": False,
        }
    )


@pytest.fixture
def make_service(embedder: FastEmbedEmbedder) -> Iterator[object]:
    services: list[MemoryService] = []

    def build(
        settings: Settings, embedder: Embedder = embedder, **options: object
    ) -> MemoryService:
        store = open_store(settings, embedder)
        service = MemoryService(settings, store, embedder, **options)  # type: ignore[arg-type]
        services.append(service)
        return service

    yield build
    for service in services:
        service.close()


@pytest.fixture
def service(settings: Settings, make_service: object) -> MemoryService:
    return make_service(settings)  # type: ignore[operator,no-any-return]


@pytest.fixture
def toolbox(service: MemoryService) -> Toolbox:
    return Toolbox(MemoryTools(service).handlers())


@pytest.fixture
def fake_llm() -> Iterator[FakeLLM]:
    with FakeLLM() as server:
        yield server


@pytest.fixture
def llm_settings(settings: Settings, fake_llm: FakeLLM, tmp_path: Path) -> Settings:
    return settings.model_copy(
        update={
            "llm_base_url": fake_llm.base_url,
            "llm_api_key": SecretStr("test-key"),
            "llm_max_retries": 1,
            "llm_timeout_seconds": 2.0,
            "journal_path": str(tmp_path / "journal"),
            "capture_retry_seconds": 0.0,
        }
    )


@pytest.fixture
def lance_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every LanceDB table's Lance dataset fails to open, as on a full or vanished disk
    (``monkeypatch.undo()`` restores it)."""
    from lancedb.table import LanceTable

    def unavailable(table: LanceTable) -> None:
        raise OSError("no space left on device")

    monkeypatch.setattr(LanceTable, "to_lance", unavailable)


@pytest.fixture
def plugin_settings(settings: Settings, tmp_path: Path) -> Settings:
    return settings.model_copy(
        update={"journal_path": str(tmp_path / "journal"), "capture_retry_seconds": 0.0}
    )


@pytest.fixture
def make_plugin() -> Iterator[object]:
    plugins: list[TinmemPlugin] = []

    def build(settings: Settings, service: MemoryService | None = None) -> TinmemPlugin:
        plugin = TinmemPlugin(settings, service)
        plugins.append(plugin)
        return plugin

    yield build
    for plugin in plugins:
        plugin.close()
