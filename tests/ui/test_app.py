"""The memory browser's JSON API without a browser: bad parameters are a 400 that names them;
the token, the host and the headers that keep other sites out."""

import threading
from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from openclaw_tinmem.access import Identity
from openclaw_tinmem.models import Category
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.ui.app import build_app

HEADERS = {"x-tinmem-token": "test-token"}


@pytest.fixture
def client(service: MemoryService) -> Iterator[TestClient]:
    service.remember("The staging database runs on port 5433", Category.ENTITIES)
    app = build_app(service, Identity.administrator(via="ui"), token="test-token")
    with TestClient(app, base_url="http://127.0.0.1:8765", raise_server_exceptions=False) as client:
        yield client


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("category=recipes", "category"),
        ("offset=ten", "offset"),
        ("offset=-1", "offset"),
        ("before=last-week", "before"),
        ("before=9999-12-31T23:59:59-05:00", "before"),  # past the calendar's edges in UTC
        ("before=0001-01-01T00:00:00%2B05:00", "before"),
        ("q=database&before=garbage", "before"),  # a search checks what the list checks
        ("q=database&offset=50", "offset"),
        ("tag=!!!", "tag"),
    ],
)
def test_a_bad_query_parameter_is_a_400_naming_it(
    client: TestClient, query: str, field: str
) -> None:
    answer = client.get(f"/api/memories?{query}", headers=HEADERS)
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["field"] == field and field in error["message"]


def test_good_parameters_still_list(client: TestClient) -> None:
    answer = client.get(
        "/api/memories?category=entities&offset=0&before=2999-01-01", headers=HEADERS
    )
    assert answer.status_code == 200 and answer.json()["total"] == 1


@pytest.mark.parametrize("body", [b"not json", b"[1, 2]"])
def test_an_edit_whose_body_is_not_a_json_object_is_a_400(
    client: TestClient, service: MemoryService, body: bytes
) -> None:
    (memory,) = service.list_memories(limit=None)
    answer = client.put(f"/api/memories/{memory.id}", content=body, headers=HEADERS)
    assert answer.status_code == 400 and answer.json()["error"]["field"] == "body"
    assert service.get(memory.id).content == memory.content


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"importance": 5}, "importance"),
        ({"importance": -1}, "importance"),
        ({"content": 5}, "content"),
        ({"tags": "ops"}, "tags"),
    ],
)
def test_an_edit_a_memory_cannot_hold_is_a_400_and_changes_nothing(
    client: TestClient, service: MemoryService, body: dict[str, object], field: str
) -> None:
    (memory,) = service.list_memories(limit=None)
    answer = client.put(f"/api/memories/{memory.id}", json=body, headers=HEADERS)
    assert answer.status_code == 400 and answer.json()["error"]["field"] == field
    assert service.get(memory.id) == memory
    assert client.get("/api/memories", headers=HEADERS).json()["total"] == 1


def test_a_restore_to_something_not_an_event_id_is_a_400(
    client: TestClient, service: MemoryService
) -> None:
    (memory,) = service.list_memories(limit=None)
    service.update(memory.id, importance=0.9)
    answer = client.post(f"/api/memories/{memory.id}/restore", json={"to": 5}, headers=HEADERS)
    assert answer.status_code == 400 and answer.json()["error"]["field"] == "to"


def test_an_edit_of_a_field_the_browser_cannot_change_is_a_400_naming_it(
    client: TestClient, service: MemoryService
) -> None:
    (memory,) = service.list_memories(limit=None)
    body = {"content": "The staging database runs on port 6543", "scope": "agent:other"}
    answer = client.put(f"/api/memories/{memory.id}", json=body, headers=HEADERS)
    assert answer.status_code == 400 and answer.json()["error"]["field"] == "scope"
    assert service.get(memory.id) == memory


def test_a_token_with_any_characters_is_a_401_and_changes_need_the_header(
    client: TestClient, service: MemoryService
) -> None:
    assert client.get("/api/stats?token=%C3%A9").status_code == 401
    assert client.get("/?token=%C3%A9").status_code == 401
    assert client.get("/api/stats", headers={"x-tinmem-token": "é".encode()}).status_code == 401
    assert client.get("/api/stats?token=test-token").status_code == 200
    (memory,) = service.list_memories(limit=None)
    # a page of another site can send the token in the URL but not in a header unasked
    answer = client.delete(f"/api/memories/{memory.id}?token=test-token")
    assert answer.status_code == 401 and service.get(memory.id) == memory
    assert client.delete(f"/api/memories/{memory.id}", headers=HEADERS).status_code == 200


def test_other_hosts_are_refused_and_answers_forbid_framing_and_referrers(
    client: TestClient,
) -> None:
    rebound = client.get("/api/stats", headers={**HEADERS, "host": "attacker.example:8765"})
    assert rebound.status_code == 400
    page = client.get("/?token=test-token")
    assert page.status_code == 200
    assert page.headers["x-frame-options"] == "DENY"
    assert page.headers["referrer-policy"] == "no-referrer"
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    assert client.get("/api/stats", headers=HEADERS).headers["x-content-type-options"] == "nosniff"


def _only(service: MemoryService):  # type: ignore[no-untyped-def]
    (memory,) = service.list_memories(limit=None)
    return memory


def test_an_edit_changes_only_what_differs_from_the_stored_memory(
    client: TestClient, service: MemoryService
) -> None:
    memory = service.update(
        _only(service).id, headline="Staging DB port", summary="Staging database: port 5433"
    )
    body = {"content": memory.content, "importance": 0.9}  # the page sends what it shows
    answer = client.put(f"/api/memories/{memory.id}", json=body, headers=HEADERS)
    assert answer.status_code == 200 and answer.json()["changed"] is True
    edited = service.get(memory.id)
    assert (edited.headline, edited.summary, edited.importance) == (
        "Staging DB port",
        "Staging database: port 5433",
        0.9,
    )
    again = client.put(f"/api/memories/{memory.id}", json={"importance": 0.9}, headers=HEADERS)
    assert again.json()["changed"] is False
    assert len(service.history(memory.id)) == len(service.history(edited.id))


def test_an_edit_of_a_memory_changed_since_it_was_read_is_a_409_and_changes_nothing(
    client: TestClient, service: MemoryService
) -> None:
    read = client.get(f"/api/memories/{_only(service).id}", headers=HEADERS).json()["memory"]
    service.update(read["id"], content="The staging database runs on port 6543")  # elsewhere
    stale = {"importance": 0.2, "expected_updated_at": read["updated_at"]}
    answer = client.put(f"/api/memories/{read['id']}", json=stale, headers=HEADERS)
    assert answer.status_code == 409 and answer.json()["error"]["type"] == "conflict"
    kept = service.get(read["id"])
    assert (kept.content, kept.importance) == ("The staging database runs on port 6543", 0.5)
    fresh = client.get(f"/api/memories/{read['id']}", headers=HEADERS).json()["memory"]
    current = {"importance": 0.2, "expected_updated_at": fresh["updated_at"]}
    assert client.put(f"/api/memories/{read['id']}", json=current, headers=HEADERS).is_success


@pytest.mark.parametrize("body", [{}, {"content": None}, {"expected_updated_at": None}])
def test_an_edit_that_gives_nothing_to_change_is_a_400_and_writes_no_history(
    client: TestClient, service: MemoryService, body: dict[str, object]
) -> None:
    memory = _only(service)
    answer = client.put(f"/api/memories/{memory.id}", json=body, headers=HEADERS)
    assert answer.status_code == 400 and answer.json()["error"]["field"] == "body"
    assert service.get(memory.id) == memory and len(service.history(memory.id)) == 1


def test_a_search_keeps_the_lists_date_and_tag_filters(
    client: TestClient, service: MemoryService
) -> None:
    service.remember("The prod database runs on port 5432", Category.ENTITIES, tags=["Ops Team"])
    found = client.get("/api/memories?q=database port&tag=OPS team", headers=HEADERS).json()
    assert [memory["tags"] for memory in found["memories"]] == [["ops-team"]]
    old = client.get("/api/memories?q=database port&before=2020-01-01", headers=HEADERS).json()
    assert old == {"total": 0, "memories": []}


def test_content_given_back_with_other_line_breaks_is_not_a_change(
    client: TestClient, service: MemoryService
) -> None:
    memory = service.remember("Deploy steps:\r\n1. build\r\n2. ship", Category.CASES).memory
    memory = service.update(memory.id, headline="How we deploy", summary="Build, then ship")
    as_shown = {"content": "Deploy steps:\n1. build\n2. ship\n", "importance": 0.7}
    answer = client.put(f"/api/memories/{memory.id}", json=as_shown, headers=HEADERS)
    assert answer.status_code == 200
    kept = service.get(memory.id)
    assert (kept.content, kept.headline, kept.importance) == (memory.content, "How we deploy", 0.7)


def test_of_two_saves_over_the_same_read_one_lands_and_the_other_is_a_409(
    client: TestClient, service: MemoryService
) -> None:
    read = client.get(f"/api/memories/{_only(service).id}", headers=HEADERS).json()["memory"]
    answers: list[int] = []

    def save(content: str) -> None:
        body = {"content": content, "expected_updated_at": read["updated_at"]}
        answers.append(
            client.put(f"/api/memories/{read['id']}", json=body, headers=HEADERS).status_code
        )

    tabs = [
        threading.Thread(target=save, args=(f"The staging database runs on port {port}",))
        for port in (6543, 7654)
    ]
    for tab in tabs:
        tab.start()
    for tab in tabs:
        tab.join()
    assert sorted(answers) == [200, 409]
    assert len(service.history(read["id"])) == 2  # created, one update


def test_the_figures_count_only_what_the_browsing_identity_may_read(
    service: MemoryService,
) -> None:
    service.remember("The staging database runs on port 5433", Category.ENTITIES)
    service.remember("Deploys go out on Tuesdays", Category.PATTERNS, scope="agent:ops")
    week = service.list_memories(limit=None)[0].created_at.strftime("%G-W%V")
    everyone = build_app(service, Identity.administrator(via="ui"), token="test-token")
    agent = build_app(service, Identity(agent_id="main"), token="test-token")
    figures = {}
    for name, app in (("everyone", everyone), ("agent", agent)):
        with TestClient(app, base_url="http://127.0.0.1:8765") as client:
            figures[name] = client.get("/api/stats", headers=HEADERS).json()
    assert figures["everyone"] == {
        "by_category": {"entities": 1, "patterns": 1},
        "by_week": {week: 2},
    }
    assert figures["agent"] == {"by_category": {"entities": 1}, "by_week": {week: 1}}
