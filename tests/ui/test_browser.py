"""The memory browser in a real headless Chromium: search, open, edit, forget, restore."""

import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import uvicorn

from openclaw_tinmem.access import Identity
from openclaw_tinmem.models import Category, Draft, Provenance, Source
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.ui.app import build_app

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="no chromium on this machine (.ci/run installs Debian's)"
)
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def browser_url(service: MemoryService) -> Iterator[str]:
    service.remember("The staging database runs on port 5433", Category.ENTITIES, tags=["db"])
    service.remember("User prefers dark mode in every editor", Category.PREFERENCES)
    service.remember("Decided to move billing to Fly.io", Category.EVENTS)
    app = build_app(service, Identity.administrator(via="ui"), token="test-token")
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/?token=test-token"
    server.should_exit = True
    thread.join(timeout=10)


def test_search_open_edit_forget_and_restore_in_a_real_browser(
    browser_url: str, service: MemoryService, tmp_path: Path
) -> None:
    from playwright.sync_api import expect, sync_playwright

    artefacts = Path(os.environ.get("OPENCLAW_TINMEM_TEST_ARTIFACTS", tmp_path))
    artefacts.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": 1280, "height": 760})
        page.goto(browser_url)
        page.wait_for_selector("#results tr[data-id]")
        assert page.locator("#results tr[data-id]").count() == 3
        assert "memories per category" in page.inner_text("#charts")
        page.fill("#query", "which port does the staging database use")
        page.click("#search")
        # the page forbids evaluating strings (its Content-Security-Policy): locators wait
        expect(page.locator("#results tr").first).to_contain_text("5433")
        page.click("#results tr[data-id] >> nth=0")
        page.wait_for_selector("#content-edit")
        memory_id = page.get_attribute("#results tr.selected", "data-id")
        page.fill("#content-edit", "The staging database runs on port 6543")
        page.click("#save")
        expect(page.locator("#notice")).to_have_text("Saved.")
        assert service.get(memory_id).content == "The staging database runs on port 6543"
        assert page.locator("#history li").count() == 2  # created, updated
        page.screenshot(path=str(artefacts / "memory-browser.png"), full_page=True)
        page.click("#forget")
        page.wait_for_selector("#restore")
        assert service.store.get([memory_id]) == {}
        page.click("#restore")
        expect(page.locator("#notice")).to_have_text("Restored.")
        assert service.get(memory_id).content == "The staging database runs on port 6543"
        browser.close()
    assert (artefacts / "memory-browser.png").stat().st_size > 10_000


def test_a_captured_memory_shows_when_and_where_it_was_said(
    browser_url: str, service: MemoryService
) -> None:
    from playwright.sync_api import sync_playwright

    where = Provenance(
        speakers=("Ana", "Assistant"),
        session_key="agent:main:telegram:direct:7",
        message_ids=("m-41", "m-42"),
        agent_id="main",
    )
    (outcome,) = service.remember_many(
        [
            Draft(
                content="Ana: We booked the Lisbon offsite for June.\nAssistant: Noted.",
                category=Category.EVENTS,
                source=Source.AUTO_CAPTURE,
                provenance=where,
                created_at=datetime(2024, 2, 1, 9, 30, tzinfo=UTC),
            )
        ]
    )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        page = browser.new_page()
        page.goto(browser_url)
        page.wait_for_selector(f"#results tr[data-id='{outcome.memory.id}']")
        page.click(f"#results tr[data-id='{outcome.memory.id}']")
        page.wait_for_selector("#provenance")
        shown = page.inner_text("#detail")
        browser.close()
    assert "said 2024-02-01 09:30" in shown and "said by Ana, Assistant" in shown
    assert "session agent:main:telegram:direct:7" in shown and "messages m-41, m-42" in shown


def test_the_api_refuses_requests_without_the_token(browser_url: str) -> None:
    import urllib.error
    import urllib.request

    base = browser_url.split("?")[0]
    for url in (base, base + "api/memories"):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(url, timeout=10)
        assert refused.value.code == 401
    with urllib.request.urlopen(base + "api/memories?token=test-token", timeout=10) as answer:
        assert answer.status == 200


def test_a_save_sends_only_what_changed_and_a_refused_one_says_so(
    browser_url: str, service: MemoryService
) -> None:
    from playwright.sync_api import expect, sync_playwright

    drafts = [
        Draft(f"Note {number}: the build runs on runner {number}", Category.EVENTS)
        for number in range(52)
    ]
    service.remember_many(drafts)  # 55 memories with the fixture's three: two pages
    (memory,) = [m for m in service.list_memories(limit=None) if m.content.startswith("Note 7:")]
    service.update(memory.id, headline="Runner seven", summary="Note 7 names runner 7")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": 1280, "height": 760})
        page.goto(browser_url)
        expect(page.locator("#count")).to_have_text("1–50 of 55 memories")
        page.fill("#query", "   ")  # blank: the list, which pages
        page.click("#search")
        page.fill("#tag", "db")  # typed, not searched: Next pages the list shown
        page.click("#next")
        expect(page.locator("#count")).to_have_text("51–55 of 55 memories")
        page.click("#previous")
        expect(page.locator("#count")).to_have_text("1–50 of 55 memories")
        page.fill("#tag", "")
        page.click(f"#results tr[data-id='{memory.id}']")
        page.wait_for_selector("#importance-edit")
        page.fill("#importance-edit", "")
        page.click("#save")
        expect(page.locator("#notice")).to_contain_text("Not done: importance must be")
        page.fill("#importance-edit", "0.9")
        page.click("#save")
        expect(page.locator("#notice")).to_have_text("Saved.")
        kept = service.get(memory.id)
        assert (kept.headline, kept.summary, kept.importance) == (
            "Runner seven",
            "Note 7 names runner 7",
            0.9,
        )
        service.update(memory.id, content="Note 7: the build moved to runner 70")  # elsewhere
        page.fill("#importance-edit", "0.3")
        page.click("#save")
        expect(page.locator("#notice")).to_contain_text("Not done: the memory was changed")
        assert service.get(memory.id).importance == 0.9
        page.fill("#query", "")
        page.fill("#tag", "!!!")
        page.click("#search")
        expect(page.locator("#count")).to_contain_text("Not listed: tag")
        browser.close()
