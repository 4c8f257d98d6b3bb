"""The memory browser's JSON API without a browser: bad parameters are a 400 that names them."""

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
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("category=recipes", "category"),
        ("offset=ten", "offset"),
        ("offset=-1", "offset"),
        ("before=last-week", "before"),
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
