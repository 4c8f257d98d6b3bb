"""Fixtures of the plugin tests: settings with a journal, and plugins closed after the test."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from openclaw_tinmem.config import Settings
from openclaw_tinmem.plugin.hookimpls import TinmemPlugin


@pytest.fixture
def plugin_settings(settings: Settings, tmp_path: Path) -> Settings:
    return settings.model_copy(
        update={"journal_path": str(tmp_path / "journal"), "capture_retry_seconds": 0.0}
    )


@pytest.fixture
def make_plugin() -> Iterator[object]:
    plugins: list[TinmemPlugin] = []

    def build(settings: Settings) -> TinmemPlugin:
        plugin = TinmemPlugin(settings)
        plugins.append(plugin)
        return plugin

    yield build
    for plugin in plugins:
        plugin.close()
