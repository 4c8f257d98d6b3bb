"""Bring memories over from other memory systems, as import lines for ``import_memories``.

Both importers produce the JSONL records of ``tinmem import`` — so the import's validation,
redaction, unchanged-line detection and history apply — and keep the original ids, so
importing the same source twice changes nothing.

**mem0** (``Memory.get_all()`` / ``client.get_all()`` output, saved as JSON: an object with
``results``, a list, or JSON lines of such records):

| mem0 | tinmem |
|---|---|
| ``id`` | ``id`` |
| ``memory`` | ``content`` |
| ``user_id`` / else ``agent_id`` | scope ``user:<id>`` / ``agent:<id>`` (else ``global``) |
| ``categories``, ``metadata.category`` | tags (and the category, if one of ours) |
| ``created_at``, ``updated_at`` | the same |
| — | category: ours if given, else by the no-LLM capture rules, else ``entities`` |

**OpenClaw memory-lancedb** (its LanceDB directory; table ``memories`` with ``id``,
``text``, ``vector``, ``importance``, ``category``, ``createdAt`` in milliseconds,
``agentId``, ``scope``):

| memory-lancedb | tinmem |
|---|---|
| ``id``, ``text``, ``importance`` | ``id``, ``content``, ``importance`` |
| ``category`` preference, decision | preferences, events |
| ``category`` entity, fact, other | entities, entities, events |
| ``agentId`` | scope ``agent:<agentId>`` |
| ``scope`` (a partition within the agent) | tag ``scope-<name>`` |
| ``createdAt`` (ms) | ``created_at`` |

Vectors are not carried over: the memories are embedded by this store's own models.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from openclaw_tinmem.access import scope_for
from openclaw_tinmem.capture.rules import classify
from openclaw_tinmem.categories import Category
from openclaw_tinmem.errors import InvalidArgumentError
from openclaw_tinmem.models import GLOBAL_SCOPE, is_full_id
from openclaw_tinmem.text import lines_of

LANCEDB_CATEGORIES = {
    "preference": Category.PREFERENCES,
    "decision": Category.EVENTS,
    "entity": Category.ENTITIES,
    "fact": Category.ENTITIES,
    "other": Category.EVENTS,
}
OURS = {category.value for category in Category}


SOURCE_NAMESPACE = uuid.UUID("3c1e9f5a-8d2b-4f6e-9a7c-5b4d3e2f1a0b")


def _memory_id(value: Any, system: str) -> str | None:
    """The source's id when it is a UUID; otherwise one derived from it, stable across runs."""
    if not value:
        return None
    text = str(value).strip().lower()
    return text if is_full_id(text) else str(uuid.uuid5(SOURCE_NAMESPACE, f"{system}:{value}"))


def _guess(text: str) -> str:
    rule = classify(text)
    return (rule.category if rule else Category.ENTITIES).value


def mem0_lines(text: str) -> list[str]:
    """mem0's exported memories as import lines."""
    stripped = text.strip()
    try:
        data: Any = json.loads(stripped)
        records = data.get("results", data.get("memories", [])) if isinstance(data, dict) else data
    except json.JSONDecodeError:
        records = []
        for number, raw in enumerate(lines_of(stripped), start=1):
            try:
                records += [json.loads(raw)] if raw.strip() else []
            except json.JSONDecodeError as error:
                raise InvalidArgumentError(
                    f"line {number}: not JSON ({error.msg}); expected mem0's export: a JSON "
                    "list, {'results': [...]}, or one memory per line",
                    field="source",
                ) from None
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise InvalidArgumentError(
            "expected mem0 memories: a list or {'results': [...]}", field="source"
        )
    lines = []
    for number, record in enumerate(records, start=1):
        _check_mem0_record(record, number)
        metadata = record.get("metadata") or {}
        categories = record.get("categories") or []
        categories = [categories] if isinstance(categories, str) else categories
        labels = [*categories, metadata.get("category") or ""]
        labels = [str(label) for label in labels if label]
        category = next((label for label in labels if label in OURS), None)
        user, agent = (record.get(key) for key in ("user_id", "agent_id"))
        scope = scope_for("user", None if user is None else str(user)) or scope_for(
            "agent", None if agent is None else str(agent)
        )
        line = {
            "id": _memory_id(record.get("id"), "mem0"),
            "content": record.get("memory") or record.get("text"),
            "category": category or _guess(str(record.get("memory") or "")),
            "scope": scope or GLOBAL_SCOPE,
            "tags": labels,
            "source_ref": "mem0",
        }
        for name in ("created_at", "updated_at"):
            if record.get(name):
                line[name] = record[name]
        lines.append(json.dumps({key: value for key, value in line.items() if value is not None}))
    return lines


def _check_mem0_record(record: dict[str, Any], number: int) -> None:
    """Refuse a mem0 memory whose fields are not of the kinds mem0 writes, naming the field."""
    kinds: dict[str, tuple[type, ...]] = {
        "metadata": (dict,),
        "categories": (list, str),
        "user_id": (str, int),
        "agent_id": (str, int),
        "id": (str, int),
    }
    for name, allowed in kinds.items():
        value = record.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, allowed)):
            names = " or ".join(KIND_NAMES[kind] for kind in allowed)
            raise InvalidArgumentError(
                f"memory {number}: {name} must be {names}, not {type(value).__name__}", field=name
            )


KIND_NAMES = {dict: "an object", list: "a list", str: "text", int: "a number"}


def memory_lancedb_lines(directory: Path, table: str = "memories") -> list[str]:
    """The rows of an OpenClaw memory-lancedb store as import lines."""
    import lancedb

    if not directory.is_dir():
        raise InvalidArgumentError(
            f"{directory} is not a directory: --from memory-lancedb reads the store directory "
            "of OpenClaw's memory-lancedb plugin",
            field="source",
        )
    database = lancedb.connect(str(directory))
    if table not in database.list_tables().tables:
        raise InvalidArgumentError(f"no table {table!r} in {directory}", field="source")
    columns = ["id", "text", "importance", "category", "createdAt", "agentId", "scope"]
    source = database.open_table(table)
    present = [column for column in columns if column in source.schema.names]
    if "text" not in present:
        raise InvalidArgumentError(
            f"table {table!r} in {directory} has no text column: not a memory-lancedb store "
            f"(its columns: {', '.join(source.schema.names)})",
            field="source",
        )
    lines = []
    for row in source.search().select(present).limit(None).to_list():
        category = LANCEDB_CATEGORIES.get(str(row.get("category")), Category.EVENTS)
        line: dict[str, Any] = {
            "id": _memory_id(row.get("id"), "memory-lancedb"),
            "content": row["text"],
            "category": category.value,
            "importance": row.get("importance"),
            "scope": scope_for("agent", row.get("agentId")) or GLOBAL_SCOPE,
            "tags": [f"scope-{row['scope']}"] if row.get("scope") else [],
            "source_ref": "memory-lancedb",
        }
        if row.get("createdAt"):
            line["created_at"] = _said_at(row["createdAt"])
        lines.append(json.dumps({key: value for key, value in line.items() if value is not None}))
    return lines


def _said_at(created: Any) -> Any:
    """memory-lancedb's ``createdAt`` (milliseconds since 1970) as ISO 8601; a value that is
    no such time is passed on as it is, for the import to refuse that row by name."""
    try:
        return datetime.fromtimestamp(float(created) / 1000, UTC).isoformat()
    except (TypeError, ValueError, OverflowError, OSError):
        return created
