import threading
from typing import Any

import pytest
from lancedb.query import MatchQuery

from openclaw_tinmem.models import Category
from openclaw_tinmem.service import MemoryService, open_store
from openclaw_tinmem.store.filters import build_filter

NOTES = [
    ("The deploy pipeline moved to GitHub Actions in March", "global"),
    ("Dana prefers short stand-ups on Mondays", "global"),
    ("The staging cluster ran out of disk during the deploy", "agent:ops"),
    ("Marco wrote a guide about the deploy rollback", "agent:ops"),
    ("Lunch on Fridays is at the Thai place", "global"),
]


def through_lancedb(
    table: Any, text: str, limit: int, where: str | None
) -> list[tuple[str, float]]:
    """What LanceDB's own query API answers, for comparison."""
    query = table.search(MatchQuery(text, "search_text"), query_type="fts")  # type: ignore[call-arg]
    if where:
        query = query.where(where, prefilter=True)
    rows = query.select(["id", "_score"]).limit(limit).to_list()
    return [(row["id"], float(row["_score"])) for row in rows]


def rounded(matches: list[tuple[str, float]]) -> list[tuple[str, float]]:
    """Matches best first, ties in id order (the two may order equal scores differently)."""
    pairs = [(memory_id, round(score, 4)) for memory_id, score in matches]
    return sorted(pairs, key=lambda pair: (-pair[1], pair[0]))


@pytest.fixture
def filled(service: MemoryService) -> MemoryService:
    for text, scope in NOTES:
        service.remember(text, Category.EVENTS, scope=scope)
    service.store.optimize()  # most rows in the index; later ones are scanned
    service.remember("A deploy freeze starts on the 20th", Category.EVENTS)
    return service


@pytest.mark.parametrize(("scopes", "deploys"), [(None, 4), (["agent:ops"], 2), (["global"], 2)])
def test_same_matches_and_scores_as_lancedb(
    filled: MemoryService, scopes: list[str] | None, deploys: int
) -> None:
    store = filled.store
    where = build_filter(scopes=scopes, categories=None)
    for text in ["deploy", "deploy rollback guide", "Dana stand-ups", "nothing like it"]:
        ours = store.text_search(text, 10, scopes=scopes)
        assert rounded(ours) == rounded(through_lancedb(store.table, text, 10, where))
    assert len(store.text_search("deploy", 10, scopes=scopes)) == deploys


def test_each_search_reads_the_version_the_store_reads(filled: MemoryService) -> None:
    store = filled.store
    assert store.text_search("kayak", 5) == []
    outcome = filled.remember("We rented a kayak at the lake", Category.EVENTS)
    assert [memory_id for memory_id, _ in store.text_search("kayak", 5)] == [outcome.memory.id]
    filled.forget(memory_id=outcome.memory.id)
    assert store.text_search("kayak", 5) == []


def test_a_replaced_table_is_searched_afresh(filled: MemoryService) -> None:
    store = filled.store
    assert store.text_search("Thai lunch", 5)
    kept = store.table.search().where("scope = 'agent:ops'").limit(None).to_arrow()
    store.replace_all(kept)
    assert store.text_search("Thai lunch", 5) == []
    assert len(store.text_search("deploy", 5)) == 2


def test_without_a_lance_dataset_lancedb_answers(  # type: ignore[no-untyped-def]
    filled: MemoryService, lance_unavailable: None
) -> None:
    store = open_store(filled.settings, filled.embedder)  # another process's store
    rollback = next(memory for memory in store.list_memories() if "rollback" in memory.content)
    matches = store.text_search("deploy rollback", 3)
    assert matches and matches[0][0] == rollback.id
    rows = store.token_rows([rollback.id])
    assert [row["id"] for row in rows] == [rollback.id] and rows[0]["token_vectors"]
    store.close()


def test_a_version_no_longer_on_disk_reads_the_latest(filled: MemoryService) -> None:
    reader, version = filled.store.reader, filled.store.current_version()
    latest = reader.text_search("search_text", "deploy", 10, where=None, version=version)
    gone = reader.text_search("search_text", "deploy", 10, where=None, version=10**6)
    assert len(latest) == 4 and rounded(gone) == rounded(latest)


def test_token_rows_are_those_lancedb_reads(filled: MemoryService) -> None:
    store = filled.store
    memories = store.list_memories()
    ids = [memory.id for memory in memories[:4]] + ["00000000-0000-4000-8000-000000000000"]
    columns = ["id", "content", "context", "token_vectors"]
    query = store.table.search().where(build_filter(ids=ids)).select(columns).limit(None)
    expected = sorted(query.to_list(), key=lambda row: row["id"])
    assert len(expected) == 4 and all(row["token_vectors"] for row in expected)
    assert sorted(store.token_rows(ids), key=lambda row: row["id"]) == expected


def test_token_rows_follow_the_version_the_store_reads(filled: MemoryService) -> None:
    store = filled.store
    memory = store.list_memories()[0]
    before = store.token_rows([memory.id])[0]
    filled.update(memory.id, content="The deploy pipeline moved to GitLab CI in April")
    after = store.token_rows([memory.id])[0]
    assert after["content"] == "The deploy pipeline moved to GitLab CI in April"
    assert after["token_vectors"] != before["token_vectors"]


def test_searches_from_many_threads_while_another_writes(filled: MemoryService) -> None:
    store = filled.store
    failures: list[BaseException] = []

    def search() -> None:
        try:
            for _ in range(30):
                matches = store.text_search("deploy", 10)
                assert len(matches) >= 4
        except BaseException as error:  # collected, reported below
            failures.append(error)

    threads = [threading.Thread(target=search) for _ in range(4)]
    for thread in threads:
        thread.start()
    for number in range(10):
        filled.remember(f"Deploy number {number} went out on time", Category.EVENTS)
    for thread in threads:
        thread.join()
    assert failures == []
    assert len(store.text_search("deploy", 50)) == 14
