"""The OpenClaw plugin (integrations/openclaw) inside the real OpenClaw, driven headless.

``openclaw`` 2026.9.6 and Node.js 24 come from the npm registry into
integrations/openclaw-test-host (``.ci/run`` installs them). Each test makes a fresh
OpenClaw home, installs the plugin from its local path the way users do
(``openclaw plugins install --link``), points OpenClaw's model at the scripted model server
on 127.0.0.1, and runs real agent turns with ``openclaw agent --local`` — OpenClaw's own
embedded agent runner, plugin loader and hook runner, in its own process. What the model
received is read from the server's record of requests.
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from openclaw_tinmem.config import Settings
from openclaw_tinmem.models import Source
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.testing import FakeLLM, Reply

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "integrations" / "openclaw"
HOST_BIN = ROOT / "integrations" / "openclaw-test-host" / "node_modules" / ".bin"
OPENCLAW = HOST_BIN / "openclaw"
OPENCLAW_VERSION = "2026.9.6"

if not OPENCLAW.exists():
    message = "OpenClaw is not installed: npm ci --prefix integrations/openclaw-test-host"
    if os.environ.get("CI"):
        pytest.fail(message, pytrace=False)  # CI installs it: never skip there
    pytest.skip(message, allow_module_level=True)


def model_config(base_url: str) -> dict[str, Any]:
    model = {"id": "fake", "name": "Scripted", "reasoning": False, "input": ["text"],
             "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
             "contextWindow": 128000, "maxTokens": 4000}  # fmt: skip
    return {
        "agents": {"defaults": {"model": {"primary": "scripted/fake"}}},
        "models": {"mode": "merge", "providers": {"scripted": {
            "baseUrl": base_url, "apiKey": "test", "api": "openai-completions",
            "models": [model]}}},
        "tools": {"toolSearch": False},  # offer every tool to the model directly
    }  # fmt: skip


class OpenClaw:
    """One OpenClaw home with the tinmem plugin installed from this repository."""

    def __init__(self, home: Path, model: FakeLLM, tinmem_env: dict[str, str]) -> None:
        self.home = home
        self.environment = {
            **os.environ, "HOME": str(home), "PATH": f"{HOST_BIN}{os.pathsep}{os.environ['PATH']}",
        }  # fmt: skip
        self.config_path = home / ".openclaw" / "openclaw.json"
        self.config_path.parent.mkdir(parents=True)
        self.config_path.write_text(json.dumps(model_config(model.base_url)))
        self.run("plugins", "install", "--link", str(PLUGIN), "--force", "--accept-capabilities")
        config = json.loads(self.config_path.read_text())
        assert config["plugins"]["slots"]["memory"] == "tinmem"  # kind "memory" took the slot
        config["plugins"]["entries"]["tinmem"] = {
            "enabled": True,
            "hooks": {"allowConversationAccess": True},
            "config": {"command": [str(Path(sys.executable).with_name("tinmem")), "bridge"],
                       "env": tinmem_env, "recallTimeoutMs": 20000},
        }  # fmt: skip
        config["plugins"]["entries"]["memory-core"] = {"enabled": False}
        self.config_path.write_text(json.dumps(config))

    def run(self, *arguments: str) -> subprocess.CompletedProcess[str]:
        completed = subprocess.run(
            [str(OPENCLAW), *arguments], env=self.environment, capture_output=True, text=True,
            timeout=300,
        )  # fmt: skip
        assert completed.returncode == 0, completed.stderr[-3000:]
        return completed

    def turn(self, session: str, message: str) -> dict[str, Any]:
        completed = self.run("agent", "--local", "--agent", "main", "--session-id", session,
                             "--message", message, "--json")  # fmt: skip
        return dict(json.loads(completed.stdout))


@pytest.fixture
def model():  # type: ignore[no-untyped-def]
    with FakeLLM(default=Reply(raw="Noted.")) as server:
        yield server


@pytest.fixture
def tinmem_settings(settings: Settings, tmp_path: Path) -> Settings:
    return settings.model_copy(update={"journal_path": str(tmp_path / "journal")})


def bridge_environment(settings: Settings) -> dict[str, str]:
    return {"TINMEM_DB_PATH": settings.db_path, "TINMEM_JOURNAL_PATH": settings.journal_path,
            "TINMEM_MODEL_DIR": str(settings.resolved_model_dir())}  # fmt: skip


def user_text(request: dict[str, Any]) -> str:
    texts = [m["content"] for m in request["messages"] if m["role"] == "user"]
    return "\n".join(text if isinstance(text, str) else json.dumps(text) for text in texts)


def wait_for_memories(settings: Settings, scope: str, timeout: float = 60.0) -> list[str]:
    """The contents in ``scope`` once there are any (the bridge flushes when OpenClaw exits)."""
    service = MemoryService.from_settings(settings)
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = service.store.list_memories(scopes=[scope], limit=None)
            if found:
                return [memory.content for memory in found]
            time.sleep(0.5)
        return []
    finally:
        service.close()


def test_a_real_openclaw_turn_gets_memory_from_an_earlier_session_and_captures_its_own(
    tmp_path: Path, model: FakeLLM, tinmem_settings: Settings
) -> None:
    openclaw = OpenClaw(tmp_path / "home", model, bridge_environment(tinmem_settings))
    first = openclaw.turn("first-session", "Please remember that I am allergic to peanuts.")
    assert first["meta"]["finalAssistantVisibleText"] == "Noted."
    offered = {tool["function"]["name"] for tool in model.requests[-1]["tools"]}
    assert {"memory_recall", "memory_store", "memory_forget", "memory_update",
            "memory_search", "memory_write", "memory_read", "memory_tree"} <= offered  # fmt: skip
    captured = wait_for_memories(tinmem_settings, "agent:main")
    assert any("peanuts" in text for text in captured), captured

    openclaw.turn("second-session", "Can you suggest a snack for me?")
    prompt = user_text(model.requests[-1])
    assert "<agent-experience>" in prompt and "peanuts" in prompt
    assert prompt.index("</agent-experience>") < prompt.index("Can you suggest a snack for me?")


def test_a_tool_call_from_the_openclaw_agent_runs_as_that_agent(
    tmp_path: Path, model: FakeLLM, tinmem_settings: Settings
) -> None:
    openclaw = OpenClaw(tmp_path / "home", model, bridge_environment(tinmem_settings))
    arguments = {"content": "The deploy window is Tuesday 14:00 UTC", "category": "events",
                 "scope": "agent:main"}  # fmt: skip
    model.script(
        Reply(tool_calls=({"name": "memory_store", "arguments": arguments},)), Reply(raw="Done.")
    )
    openclaw.turn("tool-session", "Note the deploy window.")
    tool_results = [m for m in model.requests[-1]["messages"] if m["role"] == "tool"]
    assert json.loads(tool_results[0]["content"])["action"] == "created"
    service = MemoryService.from_settings(tinmem_settings)
    try:
        stored = service.store.list_memories(scopes=["agent:main"], limit=None)
        assert [memory.content for memory in stored if memory.source is Source.TOOL] == [
            "The deploy window is Tuesday 14:00 UTC"
        ]
    finally:
        service.close()


def test_without_the_python_side_the_turn_goes_on_and_the_failure_is_logged_once(
    tmp_path: Path, model: FakeLLM, tinmem_settings: Settings
) -> None:
    openclaw = OpenClaw(tmp_path / "home", model, bridge_environment(tinmem_settings))
    config = json.loads(openclaw.config_path.read_text())
    config["plugins"]["entries"]["tinmem"]["config"]["command"] = ["/nonexistent/tinmem", "bridge"]
    openclaw.config_path.write_text(json.dumps(config))
    completed = openclaw.run("agent", "--local", "--agent", "main", "--session-id", "broken",
                             "--message", "Can you suggest a snack for me?", "--json")  # fmt: skip
    assert json.loads(completed.stdout)["meta"]["finalAssistantVisibleText"] == "Noted."
    assert "<agent-experience>" not in user_text(model.requests[-1])
    assert completed.stderr.count("could not start /nonexistent/tinmem") == 1
    assert (
        OPENCLAW_VERSION
        in subprocess.run(
            [str(OPENCLAW), "--version"], env=openclaw.environment, capture_output=True, text=True
        ).stdout
    )
