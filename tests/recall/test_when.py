from datetime import UTC, datetime

import pytest

from openclaw_tinmem.models import Category, Draft, Source
from openclaw_tinmem.recall.when import named_period
from openclaw_tinmem.service import MemoryService

NOW = datetime(2026, 12, 3, 10, 0, tzinfo=UTC)


def _day(year: int, month: int, day: int) -> datetime:
    return datetime(year, month, day, tzinfo=UTC)


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [
        ("What did we decide last week?", _day(2026, 11, 23), _day(2026, 11, 30)),
        ("the trip in May", _day(2026, 5, 1), _day(2026, 6, 1)),
        ("what happened in december?", _day(2026, 12, 1), _day(2027, 1, 1)),  # this one
        ("plans for May 2023", _day(2023, 5, 1), _day(2023, 6, 1)),
        ("What did Caroline do on 8 May, 2023?", _day(2023, 5, 8), _day(2023, 5, 9)),
        ("the call on March 3rd, 2024", _day(2024, 3, 3), _day(2024, 3, 4)),
        ("notes from 2024-02-01", _day(2024, 2, 1), _day(2024, 2, 2)),
        ("everything in 2023", _day(2023, 1, 1), _day(2024, 1, 1)),
        ("what did I say yesterday", _day(2026, 12, 2), _day(2026, 12, 3)),
        ("last month's invoices", _day(2026, 11, 1), _day(2026, 12, 1)),
    ],
)
def test_a_named_time_is_the_period_it_means(query: str, start: datetime, end: datetime) -> None:
    period = named_period(query, NOW)
    assert period is not None and (period.start, period.end) == (start, end)


@pytest.mark.parametrize("query", ["I may go to Porto", "Where do I live?", "in 12 steps"])
def test_no_time_is_read_into_a_query_that_names_none(query: str) -> None:
    assert named_period(query, NOW) is None


def test_three_weeks_ago_is_a_period_around_then() -> None:
    period = named_period("the bug we fixed three weeks ago", NOW)
    assert period is not None and period.holds(_day(2026, 11, 12))
    assert not period.holds(_day(2026, 11, 1))


def remember_said(service: MemoryService, said: dict[datetime, str]) -> None:
    """Store each text as an event said at its time."""
    service.remember_many(
        [
            Draft(content=text, category=Category.EVENTS, created_at=when, source=Source.INGEST)
            for when, text in said.items()
        ]
    )


def test_a_query_that_names_a_time_favours_what_was_said_then(service: MemoryService) -> None:
    said = {
        _day(2023, 5, 8): "We went hiking in the mountains with the kids.",
        _day(2023, 8, 20): "We went hiking in the forest with the dog.",
    }
    remember_said(service, said)
    plain = service.recall("Where did we go hiking?", limit=2)
    in_august = service.recall("Where did we go hiking in August 2023?", limit=2)
    in_may = service.recall("Where did we go hiking in May 2023?", limit=2)
    assert {hit.memory.content for hit in plain} == set(said.values())
    assert in_august[0].memory.created_at == _day(2023, 8, 20)
    assert in_may[0].memory.created_at == _day(2023, 5, 8)


def test_the_words_of_a_named_time_still_match(service: MemoryService) -> None:
    """A date is content too: the memory that names it is found although it was said earlier,
    above one said that day that shares nothing else with the query."""
    said = {
        _day(2024, 1, 10): "My sister's wedding is on 12 June 2024 in Porto.",
        _day(2024, 6, 12): "Had pasta for lunch at the office.",
    }
    remember_said(service, said)
    (best,) = service.recall("What is happening on 12 June 2024?", limit=1)
    assert best.memory.content == said[_day(2024, 1, 10)]


@pytest.mark.parametrize(
    ("query", "looked_for"),
    [
        ("Where did we go hiking in August 2023?", "Where did we go hiking?"),
        ("What did we decide last week?", "What did we decide?"),
        ("What did Caroline do on 8 May, 2023 at the park", "What did Caroline do at the park"),
        ("notes from yesterday", "notes from yesterday"),  # too little would be left
    ],
)
def test_the_cross_encoder_judges_the_query_without_its_time(query: str, looked_for: str) -> None:
    period = named_period(query, NOW)
    assert period is not None and period.without_phrase(query) == looked_for
