"""An object store that takes connections and never answers: opening the store waits on it
(botocore's checks, LanceDB's reads), but no hook does. The hooks return at once, recall is
"no memory this turn" within its time limit, and the turn is journalled for later."""

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from openclaw_tinmem.capture.journal import Journal
from openclaw_tinmem.config import Settings
from openclaw_tinmem.events import (
    AgentEndEvent,
    HookContext,
    Message,
    PromptBuildEvent,
    SessionEvent,
)
from openclaw_tinmem.plugin.hookimpls import TinmemPlugin

pytestmark = pytest.mark.faults
HOOK_SECONDS = 2.0  # far below the minutes an unanswered store takes to give up


@pytest.fixture
def unanswering() -> Iterator[int]:
    """A port on 127.0.0.1 that accepts connections, reads nothing and answers nothing;
    closing it at the end resets them, so the waiting opener fails and the plugin closes."""
    server = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    for connection in held:
        connection.close()
    server.close()


def test_no_hook_waits_for_a_store_that_does_not_answer(
    settings: Settings, tmp_path: Path, unanswering: int
) -> None:
    chosen = settings.model_copy(
        update={
            "db_path": "s3://memories/db",
            "storage_endpoint": f"http://127.0.0.1:{unanswering}",
            "storage_allow_http": True,
            "storage_options": {"aws_access_key_id": "x", "aws_secret_access_key": "y"},
            "journal_path": str(tmp_path / "journal"),
            "recall_timeout_seconds": 0.5,
        }
    )
    plugin = TinmemPlugin(chosen)
    ctx = HookContext(agent_id="ops", session_id="s1")
    turn = (
        Message("user", "The staging cluster moved to the Oslo region."),
        Message("assistant", "Noted: staging is in Oslo now."),
    )
    started = time.monotonic()
    plugin.session_start(event=SessionEvent("s1"), ctx=ctx)
    assert plugin.before_prompt_build(event=PromptBuildEvent("Where is staging?"), ctx=ctx) is None
    plugin.agent_end(event=AgentEndEvent(messages=turn), ctx=ctx)
    assert time.monotonic() - started < 3 * HOOK_SECONDS
    (kept,) = Journal(Path(chosen.journal_path)).pending()  # kept for when the store answers
    assert "Oslo" in kept.messages[0].content
    threading.Thread(target=plugin.close, daemon=True).start()  # it waits for the opener
