"""A hanging LLM holds neither the store's write lock nor the tool call that waits for it:
the time box decides, the no-LLM rules answer."""

import threading
import time

import pytest

from openclaw_tinmem.config import Settings
from openclaw_tinmem.models import Category
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.testing import FakeLLM, Reply
from openclaw_tinmem.tools.toolbox import build_toolbox

pytestmark = pytest.mark.faults


def test_a_hanging_llm_neither_holds_the_lock_nor_the_tool_call(
    llm_settings: Settings, fake_llm: FakeLLM, make_service
) -> None:  # type: ignore[no-untyped-def]
    settings = llm_settings.model_copy(
        update={"tool_timeout_seconds": 1.0, "llm_timeout_seconds": 6.0, "llm_max_retries": 0}
    )
    fake_llm.default = Reply({"headline": "h", "summary": "s"}, delay=5.0)
    service: MemoryService = make_service(settings)
    existing = service.remember("Short note", Category.EVENTS).memory  # short: no LLM call
    long_text = " ".join(["The deployment pipeline now runs integration tests first."] * 4)
    started = time.perf_counter()
    updating = threading.Thread(
        target=service.update, args=(existing.id,), kwargs={"content": long_text}
    )
    updating.start()
    time.sleep(0.3)  # the update is now waiting for the LLM
    other = make_service(settings)  # another writer of the same store
    lock_free = time.perf_counter()
    with other.store.write_lock():
        waited = time.perf_counter() - lock_free
    updating.join(timeout=30)
    assert waited < 0.5  # nobody held the lock while the LLM hung
    assert time.perf_counter() - started < 4.0  # the time box, not the 5 s LLM, decided
    assert service.get(existing.id).content == long_text
    stored = build_toolbox(service).call(
        "memory_store", {"content": long_text + " Also on Fridays.", "category": "patterns"}
    )
    assert stored.data["action"] in ("created", "merged")
