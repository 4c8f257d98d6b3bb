"""The time a query names, so recall can favour what was said then.

"What did we decide last week?", "the trip in May", "in 2023", "on 8 May 2023",
"three days ago": a query that names a time asks about memories of that time. ``named_period``
finds the first such phrase (English) and gives the period it means, as [start, end) in UTC,
relative to ``now``; the recall pipeline then lowers the score of hits said outside it by
``time_weight`` (``pipeline.py``), so memories of then come first and the others still follow.
A month without a year is the latest such month not after ``now``. The retrievers search the
query whole; ``without_phrase`` is what the cross-encoder reads.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

MONTHS = {name.lower(): number for number, name in enumerate(calendar.month_name) if name}
MONTHS.update({name.lower(): number for number, name in enumerate(calendar.month_abbr) if name})
MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}
AMOUNT = r"\d{1,3}|" + "|".join(NUMBERS)
MINIMUM_WORDS_LEFT = 3

_PATTERNS = {
    "iso": re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b"),
    "day_month_year": re.compile(
        rf"\b(\d{{1,2}})(?:st|nd|rd|th)? ({MONTH})\.?,? (\d{{4}})\b", re.I
    ),
    "month_day_year": re.compile(
        rf"\b({MONTH})\.? (\d{{1,2}})(?:st|nd|rd|th)?,? (\d{{4}})\b", re.I
    ),
    "month_year": re.compile(rf"\b({MONTH})\.?,? (\d{{4}})\b", re.I),
    "in_month": re.compile(rf"\b(?:in|during|since|of|last) ({MONTH})\b", re.I),
    "in_year": re.compile(r"\b(?:in|during|of) ((?:19|20)\d{2})\b", re.I),
    "ago": re.compile(rf"\b({AMOUNT}) (day|week|month|year)s? ago\b", re.I),
    "relative": re.compile(
        r"\b(yesterday|today|tonight|this morning|(?:last|this|past) (?:week|month|year))\b", re.I
    ),
}


@dataclass(frozen=True)
class Period:
    """[start, end) in UTC, and where the query named it."""

    start: datetime
    end: datetime
    span: tuple[int, int] = (0, 0)  # the phrase's start and end in the query

    def holds(self, when: datetime) -> bool:
        return self.start <= when < self.end

    def without_phrase(self, query: str) -> str:
        """The query without the phrase that named the time (and a preposition before it):
        what to look for, as "hiking in May" looks for hiking. The query itself when little
        else would be left."""
        before = re.sub(r"\b(?:in|on|during|from|of|since|at)\s*$", "", query[: self.span[0]])
        rest = re.sub(r"\s+", " ", f"{before} {query[self.span[1] :]}").strip()
        rest = re.sub(r"\s+([?.!,])", r"\1", rest)
        return rest if len(rest.split()) >= MINIMUM_WORDS_LEFT else query


def _day(year: int, month: int, day: int) -> Period | None:
    try:
        start = datetime(year, month, day, tzinfo=UTC)
    except ValueError:
        return None
    return Period(start, start + timedelta(days=1))


def _month(year: int, month: int) -> Period:
    start = datetime(year, month, 1, tzinfo=UTC)
    end = datetime(year + month // 12, month % 12 + 1, 1, tzinfo=UTC)
    return Period(start, end)


def _year(year: int) -> Period:
    return Period(datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC))


def _relative(phrase: str, now: datetime) -> Period:
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if phrase == "yesterday":
        return Period(today - timedelta(days=1), today)
    if phrase in ("today", "tonight", "this morning"):
        return Period(today, today + timedelta(days=1))
    which, unit = phrase.split()
    if unit == "week":
        monday = today - timedelta(days=today.weekday())
        if which == "this":
            return Period(monday, monday + timedelta(days=7))
        if which == "last":
            return Period(monday - timedelta(days=7), monday)
        return Period(today - timedelta(days=7), today + timedelta(days=1))
    if unit == "month":
        if which == "this":
            return _month(today.year, today.month)
        if which == "last":
            year, month = (today.year, today.month - 1) if today.month > 1 else (today.year - 1, 12)
            return _month(year, month)
        return Period(today - timedelta(days=31), today + timedelta(days=1))
    if which in ("this", "last"):
        return _year(today.year if which == "this" else today.year - 1)
    return Period(today - timedelta(days=366), today + timedelta(days=1))


def _ago(amount: str, unit: str, now: datetime) -> Period:
    count = int(amount) if amount.isdigit() else NUMBERS[amount.lower()]
    days = {"day": 1, "week": 7, "month": 30, "year": 365}[unit.lower()] * count
    centre = now - timedelta(days=days)
    slack = timedelta(days=max(1, days // 7))  # "three weeks ago" is not to the day
    return Period(centre - slack, centre + slack)


def named_period(query: str, now: datetime) -> Period | None:
    """The period the first time phrase of ``query`` names, or None."""
    for name, pattern in _PATTERNS.items():
        found = pattern.search(query)
        if found:
            period = _period(name, found, now)
            if period is not None:
                return replace(period, span=found.span())
    return None


def _period(name: str, found: re.Match[str], now: datetime) -> Period | None:
    """The period one pattern's match names."""
    if name == "iso":
        return _day(int(found[1]), int(found[2]), int(found[3]))
    if name == "day_month_year":
        return _day(int(found[3]), MONTHS[found[2].lower()], int(found[1]))
    if name == "month_day_year":
        return _day(int(found[3]), MONTHS[found[1].lower()], int(found[2]))
    if name == "month_year":
        return _month(int(found[2]), MONTHS[found[1].lower()])
    if name == "in_month":
        month = MONTHS[found[1].lower()]
        return _month(now.year if month <= now.month else now.year - 1, month)
    if name == "in_year":
        return _year(int(found[1]))
    if name == "ago":
        return _ago(found[1], found[2], now)
    return _relative(found[1].lower(), now)
