"""The OpenClaw plugin's own JavaScript tests (node's built-in runner), from pytest so that the
README's test command runs them."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NODE_24 = ROOT / "integrations" / "openclaw-test-host" / "node_modules" / ".bin" / "node"
NODE = str(NODE_24) if NODE_24.exists() else shutil.which("node")


@pytest.mark.skipif(NODE is None and not os.environ.get("CI"), reason="Node.js is not installed")
def test_the_bridge_process_fails_open_against_real_child_processes() -> None:
    assert NODE is not None, "CI installs Node.js (integrations/openclaw-test-host)"
    completed = subprocess.run(
        [
            NODE,
            "--test",
            *map(str, sorted((ROOT / "integrations" / "openclaw" / "test").glob("*.test.js"))),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHON": sys.executable},
    )
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-2000:]
    assert "fail 0" in completed.stdout, completed.stdout


def test_the_readmes_give_the_install_steps_the_tests_run() -> None:
    from tests.integrations.openclaw_home import CONSENT, INSTALL

    install = " ".join(["openclaw", *INSTALL]).replace(str(ROOT) + "/", "./")
    consent = " ".join(["openclaw", *CONSENT])
    for readme in (ROOT / "README.md", ROOT / "integrations" / "openclaw" / "README.md"):
        text = readme.read_text()
        assert install in text and consent in text, readme
