"""What an import line must hold beyond what a Memory accepts: the checks the tools make too
(numbers that are numbers, bounded headlines and summaries), provenance without unknown keys
(a misspelt ``user_id`` would hide whose memory it is, and show it to every user) and times
that can have been."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from openclaw_tinmem.errors import InvalidArgumentError
from openclaw_tinmem.models import (
    MAX_HEADLINE_CHARACTERS,
    MAX_SUMMARY_CHARACTERS,
    Provenance,
    utc_now,
)
from openclaw_tinmem.text import quoted

NUMBER_FIELDS = ("importance", "access_count")
BOUNDED_TEXT = {"headline": MAX_HEADLINE_CHARACTERS, "summary": MAX_SUMMARY_CHARACTERS}
TIME_FIELDS = ("created_at", "updated_at", "last_accessed_at")
CLOCK_SKEW = timedelta(days=1)  # a time this far ahead of ours is a mistake, not a clock


def check_import_fields(record: dict[str, Any], number: int) -> None:
    """Raise ``InvalidArgumentError`` naming the field of ``record`` (line ``number``) that
    an import must refuse."""
    for key in NUMBER_FIELDS:
        value = record.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            raise InvalidArgumentError(
                f"line {number}: {key} must be a number, not {json_kind(value)}", field=key
            )
    for key, most in BOUNDED_TEXT.items():
        value = record.get(key)
        if isinstance(value, str) and len(value) > most:
            raise InvalidArgumentError(
                f"line {number}: {key} is {len(value):,} characters; at most {most:,} are allowed",
                field=key,
            )
    provenance = record.get("provenance")
    if provenance is not None:
        if not isinstance(provenance, dict):
            raise InvalidArgumentError(
                f"line {number}: provenance must be an object, not {json_kind(provenance)}",
                field="provenance",
            )
        if unknown := [key for key in provenance if key not in Provenance.model_fields]:
            raise InvalidArgumentError(
                f"line {number}: unknown field provenance.{unknown[0]}; allowed: "
                + ", ".join(Provenance.model_fields),
                field=f"provenance.{unknown[0]}",
            )
    _check_times(record, number)


def _check_times(record: dict[str, Any], number: int) -> None:
    times: dict[str, datetime] = {}
    for key in TIME_FIELDS:
        value = record.get(key)
        if not isinstance(value, str):
            continue  # absent, or refused as it is by the Memory model
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            raise InvalidArgumentError(
                f"line {number}: {key} {quoted(value[:80])} is not a time; allowed: ISO 8601, "
                "such as 2024-05-01T09:30:00+00:00 (UTC when no offset is given)",
                field=key,
            ) from None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)  # as the Memory model reads it
        if moment > utc_now() + CLOCK_SKEW:
            raise InvalidArgumentError(
                f"line {number}: {key} {quoted(value)} is in the future; allowed: a time that "
                "has been (ISO 8601 with a zone)",
                field=key,
            )
        times[key] = moment
    created, updated = times.get("created_at"), times.get("updated_at")
    if created and updated and created > updated:
        raise InvalidArgumentError(
            f"line {number}: created_at is later than updated_at; a memory is updated when or "
            "after it is made",
            field="created_at",
        )
    if updated and not created:
        record["created_at"] = record["updated_at"]  # made no later than it was last updated


def json_kind(value: Any) -> str:
    """What ``value`` is, in JSON's words."""
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return "null" if value is None else type(value).__name__
