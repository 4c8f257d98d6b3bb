"""OpenClaw's own surfaces with tinmem as its memory, under the default configuration plus
consent: ``status --json --all`` checks memory through tinmem's memory capability,
``plugins inspect --runtime`` shows the hooks, ``doctor`` has no memory-core memory to
report, and ``openclaw tinmem …`` runs the tinmem command line on the same store."""

import json
from pathlib import Path

import pytest

from openclaw_tinmem.config import Settings
from openclaw_tinmem.models import Category
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.testing import FakeLLM, Reply
from tests.integrations.openclaw_home import OpenClaw, require_openclaw

require_openclaw()


@pytest.fixture
def openclaw(tmp_path: Path, settings: Settings):  # type: ignore[no-untyped-def]
    tinmem_settings = settings.model_copy(update={"journal_path": str(tmp_path / "journal")})
    service = MemoryService.from_settings(tinmem_settings)
    try:
        service.remember("The user is allergic to peanuts.", Category.PROFILE, scope="agent:main")
    finally:
        service.close()
    with FakeLLM(default=Reply(raw="Noted.")) as model:
        yield OpenClaw(tmp_path / "home", model, tinmem_settings)


def test_status_checks_memory_through_tinmem(openclaw: OpenClaw) -> None:
    memory = json.loads(openclaw.run("status", "--json", "--all").stdout)["memory"]
    assert memory["provider"] == "tinmem" and memory["custom"]["bridge"] == "ok"
    assert memory["files"] == 1 and memory["vector"]["available"] is True
    assert memory["custom"]["store"] == openclaw.settings.resolved_db_path()


def test_inspect_shows_the_hooks_the_service_and_the_command(openclaw: OpenClaw) -> None:
    shown = json.loads(openclaw.run("plugins", "inspect", "tinmem", "--runtime", "--json").stdout)
    text = json.dumps(shown)
    for name in ("before_prompt_build", "agent_end", "tinmem-bridge", "memory_recall"):
        assert name in text, name
    assert "blocked" not in text


def test_doctor_reports_no_memory_core_setup_to_fix(openclaw: OpenClaw) -> None:
    completed = openclaw.run("doctor", "--non-interactive", check=False)
    said = completed.stdout + completed.stderr
    assert "No active memory plugin" not in said
    assert "no API key was found" not in said  # memory-core's embedding checks do not apply
    assert "automatic memory is OFF" not in said
    # doctor reads the configuration without tinmem's defaults, so it loads memory-core beside
    # tinmem: tinmem leaves it memory_search there rather than offer the name twice
    assert "tool name conflict" not in said


def test_openclaw_tinmem_runs_the_tinmem_command_line_on_the_same_store(
    openclaw: OpenClaw,
) -> None:
    listed = openclaw.run("tinmem", "search", "peanut allergy", "--json")
    assert "allergic to peanuts" in listed.stdout
    helped = openclaw.run("tinmem", "--help")
    assert "ingest" in helped.stdout and "doctor" in helped.stdout
    missing = openclaw.run("tinmem", "show", "no-such-id", check=False)
    assert missing.returncode != 0 and "no-such-id" in missing.stdout + missing.stderr
