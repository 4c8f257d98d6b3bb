"""A real OpenClaw home for the integration tests: OpenClaw 2026.9.6 and Node.js 24 from the
npm registry (integrations/openclaw-test-host, installed by ``.ci/run``), the plugin
installed from this repository the way the README says, and OpenClaw's model pointed at a
scripted OpenAI-compatible server on 127.0.0.1.

The OpenClaw configuration is OpenClaw's default plus what the README's install steps write:
``plugins install`` (the plugin, the memory slot) and the one consent setting. The Python
side gets its store, journal and models from its own ``TINMEM_*`` variables in the
environment, and ``tinmem`` is found on ``PATH`` — the plugin's default command.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from openclaw_tinmem.config import Settings
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.testing import FakeLLM

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "integrations" / "openclaw"
HOST_BIN = ROOT / "integrations" / "openclaw-test-host" / "node_modules" / ".bin"
OPENCLAW = HOST_BIN / "openclaw"
OPENCLAW_VERSION = "2026.9.6"
TINMEM = Path(sys.executable).with_name("tinmem")
# What the READMEs tell a user to run, word for word (test_openclaw_plugin_js.py checks).
INSTALL = ("plugins", "install", "--link", str(PLUGIN), "--force", "--accept-capabilities")
CONSENT = ("config", "set", "plugins.entries.tinmem.hooks.allowConversationAccess", "true")


def require_openclaw() -> None:
    """Skip the calling test module when OpenClaw is not installed (never in CI, which
    installs it: there it is a failure)."""
    if OPENCLAW.exists():
        return
    message = "OpenClaw is not installed: npm ci --prefix integrations/openclaw-test-host"
    if os.environ.get("CI"):
        pytest.fail(message, pytrace=False)
    pytest.skip(message, allow_module_level=True)


def model_config(base_url: str) -> dict[str, Any]:
    """OpenClaw's default configuration with one model: the scripted server."""
    model = {
        "id": "fake",
        "name": "Scripted",
        "reasoning": False,
        "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 128000,
        "maxTokens": 4000,
    }
    return {
        "agents": {"defaults": {"model": {"primary": "scripted/fake"}}},
        "models": {
            "mode": "merge",
            "providers": {
                "scripted": {
                    "baseUrl": base_url,
                    "apiKey": "test",
                    "api": "openai-completions",
                    "models": [model],
                }
            },
        },
    }


def tinmem_environment(settings: Settings) -> dict[str, str]:
    return {
        "TINMEM_DB_PATH": settings.db_path,
        "TINMEM_JOURNAL_PATH": settings.journal_path,
        "TINMEM_MODEL_DIR": str(settings.resolved_model_dir()),
    }


class OpenClaw:
    """One OpenClaw home with the tinmem plugin installed from this repository."""

    def __init__(
        self,
        home: Path,
        model: FakeLLM,
        settings: Settings,
        *,
        consent: bool = True,
        extra: dict[str, Any] | None = None,
    ) -> None:
        self.home = home
        self.settings = settings
        path = os.pathsep.join((str(HOST_BIN), str(TINMEM.parent), os.environ["PATH"]))
        self.environment = {
            **os.environ,
            "HOME": str(home),
            "PATH": path,
            **tinmem_environment(settings),
        }
        self.config_path = home / ".openclaw" / "openclaw.json"
        self.config_path.parent.mkdir(parents=True)
        self.config_path.write_text(json.dumps({**model_config(model.base_url), **(extra or {})}))
        self.run(*INSTALL)
        if consent:
            self.run(*CONSENT)

    @property
    def config(self) -> dict[str, Any]:
        return dict(json.loads(self.config_path.read_text()))

    def write_config(self, config: dict[str, Any]) -> None:
        self.config_path.write_text(json.dumps(config, indent=1))

    def set_plugin_config(self, options: dict[str, Any]) -> None:
        """Write the plugin's own options (``plugins.entries.tinmem.config``)."""
        config = self.config
        config["plugins"]["entries"]["tinmem"]["config"] = options
        self.write_config(config)

    def run(
        self, *arguments: str, check: bool = True, timeout: float = 300
    ) -> subprocess.CompletedProcess[str]:
        completed = subprocess.run(
            [str(OPENCLAW), *arguments],
            env=self.environment,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
        if check:
            assert completed.returncode == 0, completed.stdout[-2000:] + completed.stderr[-3000:]
        return completed

    def turn(self, session: str, message: str, *, local: bool = True) -> tuple[dict[str, Any], str]:
        """One agent turn (``agent --local``, or through the running gateway): its JSON
        answer and what OpenClaw logged."""
        where = ("--local",) if local else ()
        completed = self.run(
            "agent",
            *where,
            "--agent",
            "main",
            "--session-id",
            session,
            "--message",
            message,
            "--json",
        )
        return dict(json.loads(completed.stdout)), completed.stderr


def user_text(request: dict[str, Any]) -> str:
    texts = [m["content"] for m in request["messages"] if m["role"] == "user"]
    return "\n".join(text if isinstance(text, str) else json.dumps(text) for text in texts)


def system_text(request: dict[str, Any]) -> str:
    return "\n".join(str(m["content"]) for m in request["messages"] if m["role"] == "system")


def offered_tools(request: dict[str, Any]) -> set[str]:
    return {tool["function"]["name"] for tool in request.get("tools", [])}


def wait_for_memories(
    settings: Settings, scope: str, needle: str, timeout: float = 60.0
) -> list[str]:
    """The contents in ``scope`` once one holds ``needle`` (capture runs in the background)."""
    service = MemoryService.from_settings(settings)
    try:
        deadline = time.monotonic() + timeout
        contents: list[str] = []
        while time.monotonic() < deadline:
            contents = [m.content for m in service.store.list_memories(scopes=[scope], limit=None)]
            if any(needle in text for text in contents):
                return contents
            time.sleep(0.5)
        return contents
    finally:
        service.close()
