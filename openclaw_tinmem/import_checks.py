"""What an import line must hold beyond what a Memory accepts: numbers that are not true or
false (as the tools say), provenance without unknown keys (a misspelt ``user_id`` would hide
whose memory it is, and show it to every user) and times that can have been. What an export
may hold is taken: a headline longer than a memory's is cut, a creation a moment after the
last update (a host clock ahead) moves the update to it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from pydantic import TypeAdapter, ValidationError

from openclaw_tinmem.errors import InvalidArgumentError
from openclaw_tinmem.models import (
    MAX_HEADLINE_CHARACTERS,
    MAX_SUMMARY_CHARACTERS,
    Provenance,
    utc_now,
)
from openclaw_tinmem.text import json_kind, quoted

BOOLEAN_REFUSED = ("importance", "access_count")  # a number is wanted, as the tools say
BOUNDED_TEXT = {"headline": MAX_HEADLINE_CHARACTERS, "summary": MAX_SUMMARY_CHARACTERS}
TIME_FIELDS = ("created_at", "updated_at", "last_accessed_at")
CLOCK_SKEW = timedelta(days=1)  # a time this far ahead of ours is a mistake, not a clock
_TIME = TypeAdapter(datetime)


def check_import_fields(record: dict[str, Any], number: int) -> None:
    """Raise ``InvalidArgumentError`` naming the field of ``record`` (line ``number``) that
    an import must refuse; bring what an export may hold into what a memory may be (a
    headline cut to its limit, times read as the Memory model reads them, naive ones as UTC)."""
    for key in BOOLEAN_REFUSED:
        if isinstance(record.get(key), bool):
            raise InvalidArgumentError(
                f"line {number}: {key} must be a number, not true or false", field=key
            )
    for key, most in BOUNDED_TEXT.items():
        value = record.get(key)
        if isinstance(value, str) and len(value) > most:
            record[key] = value[: most - 1] + "…"  # a rule-written headline may run long
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
    check_times(record, number)


def check_times(record: dict[str, Any], number: int) -> None:
    """Read the times of ``record`` (line ``number``) as ISO 8601 in place, naive ones as UTC;
    refuse one that is not a time or is in the future; a creation after the last update moves
    the update to it."""
    times: dict[str, datetime] = {}
    for key in TIME_FIELDS:
        value = record.get(key)
        if value is None:
            record.pop(key, None)  # null is missing: the import gives its own time
            continue
        try:
            moment = _TIME.validate_python(value)
        except ValidationError:
            raise InvalidArgumentError(
                f"line {number}: {key} {quoted(value)} is not a time; allowed: "
                "ISO 8601, such as 2024-05-01T09:30:00+00:00 (UTC when no offset is given)",
                field=key,
            ) from None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        if moment > utc_now() + CLOCK_SKEW:
            raise InvalidArgumentError(
                f"line {number}: {key} {quoted(str(value))} is in the future; allowed: a time "
                "that has been",
                field=key,
            )
        times[key] = moment
        record[key] = moment.isoformat()
    created, updated = times.get("created_at"), times.get("updated_at")
    if updated and not created:
        record["created_at"] = record["updated_at"]  # made no later than last updated
    elif created and updated and created > updated:
        record["updated_at"] = record["created_at"]  # said ahead of the storing clock
