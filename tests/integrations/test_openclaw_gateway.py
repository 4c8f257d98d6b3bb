"""A long-running OpenClaw gateway with tinmem, under the default configuration plus consent:
one Python process however often the configuration is reloaded, memory on the first turn,
and no process left once the gateway stops."""

import contextlib
import os
import re
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from openclaw_tinmem.config import Settings
from openclaw_tinmem.testing import FakeLLM, Reply
from tests.integrations.openclaw_home import (
    OPENCLAW,
    OpenClaw,
    require_openclaw,
    user_text,
    wait_for_memories,
)

require_openclaw()

RELOADS = 10
TOKEN = "gateway-test-token"
APPLIED = "config hot reload applied (plugins.entries.tinmem.config"
COLOURS = re.compile(r"\x1b\[[0-9;]*m")


def read_log(path: Path) -> str:
    return COLOURS.sub("", path.read_text())


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def bridges_under(root: int) -> list[int]:
    """The ``tinmem bridge`` processes descended from process ``root``."""
    parents: dict[int, int] = {}
    commands: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            commands[int(entry.name)] = (
                (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            )
        except OSError:
            continue
        parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])

    def descends(pid: int) -> bool:
        while pid > 1:
            if pid == root:
                return True
            pid = parents.get(pid, 0)
        return False

    return [
        pid
        for pid, command in commands.items()
        if "tinmem" in command and command.rstrip().endswith("bridge") and descends(pid)
    ]


def wait_until(condition, timeout: float, step: float = 0.5) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return bool(condition())


@pytest.mark.skipif(not Path("/proc").exists(), reason="counts processes through /proc")
def test_one_python_process_through_reloads_memory_on_the_first_turn_none_after_stop(
    tmp_path: Path, settings: Settings
) -> None:
    tinmem_settings = settings.model_copy(update={"journal_path": str(tmp_path / "journal")})
    gateway_settings = {
        "gateway": {
            "mode": "local",
            "port": free_port(),
            "bind": "loopback",
            "auth": {"mode": "token", "token": TOKEN},
        }
    }
    with FakeLLM(default=Reply(raw="Noted.")) as model:
        openclaw = OpenClaw(tmp_path / "home", model, tinmem_settings, extra=gateway_settings)
        openclaw.environment["OPENCLAW_GATEWAY_TOKEN"] = TOKEN
        log_path = tmp_path / "gateway.log"
        with log_path.open("w") as log:
            gateway = subprocess.Popen(
                [str(OPENCLAW), "gateway", "run"],
                env=openclaw.environment,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        try:
            assert wait_until(lambda: "[gateway] ready" in read_log(log_path), 120)
            # the service started the Python side with the gateway
            assert wait_until(lambda: len(bridges_under(gateway.pid)) == 1, 30)
            started = bridges_under(gateway.pid)

            openclaw.turn("first", "Please remember that I am allergic to peanuts.", local=False)
            assert wait_for_memories(tinmem_settings, "agent:main", "peanuts")

            counts = []
            for reload in range(RELOADS):
                openclaw.set_plugin_config({"recallTimeoutMs": 3000 + reload % 2})
                assert wait_until(lambda n=reload: read_log(log_path).count(APPLIED) > n, 60)
                time.sleep(1)
                counts.append(len(bridges_under(gateway.pid)))
            assert counts == [1] * RELOADS, counts
            assert bridges_under(gateway.pid) == started  # the same warm process throughout

            openclaw.turn("second", "Can you suggest a snack for me?", local=False)
            prompt = user_text(model.requests[-1])
            assert "<agent-experience>" in prompt and "peanuts" in prompt
            logged = read_log(log_path)
            assert "took longer" not in logged and "tool name conflict" not in logged, logged
            gateway.send_signal(signal.SIGTERM)  # the gateway alone: it stops its plugins
            gateway.wait(120)
            assert wait_until(lambda: not any(_alive(pid) for pid in started), 30)
        finally:
            if gateway.poll() is None:
                gateway.kill()
            with contextlib.suppress(ProcessLookupError):
                os.killpg(gateway.pid, signal.SIGKILL)  # whatever is left of the test


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
