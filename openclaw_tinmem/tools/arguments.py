"""Argument models of the tinmem and workspace tools, exactly as the specs name them.

Each model validates a call's arguments and produces the tool's JSON Schema for LLM
function calling (OpenAI tools format).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    ValidationError,
    field_validator,
    model_validator,
)

from openclaw_tinmem.errors import InvalidArgumentError, invalid_argument
from openclaw_tinmem.models import (
    MAX_CONTENT_CHARACTERS,
    MAX_HEADLINE_CHARACTERS,
    MAX_SUMMARY_CHARACTERS,
    MAX_TAGS,
    Category,
    Level,
    validate_memory_reference,
    validate_scope,
)
from openclaw_tinmem.text import is_well_formed, json_kind

MAX_QUERY_CHARACTERS = 2_000
MAX_RECALL_LIMIT = 100
CATEGORY_NAMES = ", ".join(category.value for category in Category)


class ToolArguments(BaseModel):
    """Strict base: unknown arguments are rejected, never silently dropped."""

    model_config = ConfigDict(extra="forbid", use_enum_values=False)


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank")
    return value


NonBlank = Annotated[str, AfterValidator(_not_blank)]


def _not_a_boolean(value: Any) -> Any:
    if isinstance(value, bool):  # JSON's true is not the number 1
        raise ValueError("must be a number, not true or false")
    return value


Importance = Annotated[
    float, Field(ge=0.0, le=1.0, allow_inf_nan=False), BeforeValidator(_not_a_boolean)
]
Count = Annotated[int, BeforeValidator(_not_a_boolean)]


def _scope(value: str | None) -> str | None:
    return None if value is None else validate_scope(value)


def _scopes(value: str | list[str] | None) -> list[str] | None:
    """One scope or a list of them, as a list (None: the caller's readable scopes)."""
    if value is None:
        return None
    scopes = [value] if isinstance(value, str) else value
    if not scopes:
        raise ValueError("give at least one scope, or leave scope out")
    return [validate_scope(scope) for scope in scopes]


READ_SCOPE_HELP = (
    "Memory namespace, or a list of them (default: every scope you may read: global, your "
    "agent's and your user's)"
)


class RecallArguments(ToolArguments):
    query: str = Field(
        min_length=1,
        max_length=MAX_QUERY_CHARACTERS,
        description="What to look for, in natural language",
    )
    scope: str | list[str] | None = Field(None, description=READ_SCOPE_HELP)
    categories: list[Category] | None = Field(
        None, description=f"Only these categories: {CATEGORY_NAMES}"
    )
    limit: Count = Field(10, ge=1, le=MAX_RECALL_LIMIT, description="Maximum results (default 10)")
    level: Level = Field(
        Level.L1, description="Detail returned: L0 headline, L1 summary (default), L2 full content"
    )

    _check_scope = field_validator("scope")(_scopes)

    @property
    def scopes(self) -> list[str] | None:
        return _scopes(self.scope)


class StoreArguments(ToolArguments):
    content: NonBlank = Field(
        min_length=1, max_length=MAX_CONTENT_CHARACTERS, description="The information to store"
    )
    category: Category = Field(description=f"One of: {CATEGORY_NAMES}")
    scope: str | None = Field(None, description="Memory namespace (default: global)")
    importance: Importance = Field(0.5, description="0.0-1.0 (default 0.5)")
    tags: list[str] | None = Field(None, max_length=32, description="Keywords for searchability")

    _check_scope = field_validator("scope")(_scope)


class ForgetArguments(ToolArguments):
    id: str | None = Field(
        None, description="The id of the memory to delete (or its first 8+ characters)"
    )
    query: str | None = Field(
        None,
        min_length=1,
        max_length=MAX_QUERY_CHARACTERS,
        description="Delete memories matching this query (only confident matches are deleted)",
    )
    scope: str | list[str] | None = Field(
        None,
        description="Only delete within this scope or these scopes (default: every scope you "
        "may read and write)",
    )
    categories: list[Category] | None = Field(None, description="Only delete these categories")
    dry_run: bool = Field(
        False, description="Only say what would be deleted (and what would not), delete nothing"
    )

    _check_scope = field_validator("scope")(_scopes)

    @property
    def scopes(self) -> list[str] | None:
        return _scopes(self.scope)

    @field_validator("id")
    @classmethod
    def _uuid(cls, value: str | None) -> str | None:
        return None if value is None else validate_memory_reference(value)

    @model_validator(mode="after")
    def _id_or_query(self) -> ForgetArguments:
        if self.id is None and (self.query is None or not self.query.strip()):
            raise InvalidArgumentError("give either id or query", field="id")
        if self.id is not None and self.query is not None:  # which one was meant?
            raise InvalidArgumentError("give either id or query, not both", field="query")
        return self


class UpdateArguments(ToolArguments):
    id: str = Field(description="The id of the memory to update (or its first 8+ characters)")
    content: str | None = Field(
        None, min_length=1, max_length=MAX_CONTENT_CHARACTERS, description="New full content"
    )
    summary: str | None = Field(
        None, min_length=1, max_length=MAX_SUMMARY_CHARACTERS, description="New summary"
    )
    headline: str | None = Field(
        None, min_length=1, max_length=MAX_HEADLINE_CHARACTERS, description="New headline"
    )
    importance: Importance | None = Field(None, description="New importance 0.0-1.0")
    tags: list[str] | None = Field(
        None, max_length=MAX_TAGS, description="New tags (replace existing)"
    )

    @field_validator("id")
    @classmethod
    def _uuid(cls, value: str) -> str:
        return validate_memory_reference(value)

    @model_validator(mode="after")
    def _something_to_change(self) -> UpdateArguments:
        fields = ("content", "summary", "headline", "importance", "tags")
        if all(getattr(self, name) is None for name in fields):
            raise InvalidArgumentError(
                "nothing to update: give at least one of " + ", ".join(fields), field="id"
            )
        return self


class HistoryArguments(ToolArguments):
    id: str = Field(description="The memory whose changes to list (or its first 8+ characters)")
    limit: Count = Field(20, ge=1, le=200, description="The most recent N events (default 20)")

    @field_validator("id")
    @classmethod
    def _reference(cls, value: str) -> str:
        return validate_memory_reference(value)


class SearchArguments(ToolArguments):
    query: str = Field(
        min_length=1,
        max_length=MAX_QUERY_CHARACTERS,
        description="What to look for, in natural language",
    )
    limit: Count = Field(5, ge=1, le=20, description="Maximum results (1-20, default 5)")


class WriteArguments(ToolArguments):
    content: NonBlank = Field(
        min_length=1,
        max_length=MAX_CONTENT_CHARACTERS,
        description="What to write; concise, with context",
    )
    target: str = Field(
        "daily_log",
        description="memory (MEMORY.md), daily_log (today's log, default), heartbeat "
        "(HEARTBEAT.md), or a path such as projects/alpha/notes.md",
    )
    append: StrictBool = Field(True, description="Append (default) or replace the whole file")


class ReadArguments(ToolArguments):
    path: str = Field(
        min_length=1, description="File to read, e.g. MEMORY.md or daily/2024-01-15.md"
    )


class TreeArguments(ToolArguments):
    path: str = Field("", description="Directory to start from (empty: the workspace root)")
    depth: Count = Field(1, ge=1, le=10, description="Levels to show (1-10, default 1)")


def parse_arguments(model: type[ToolArguments], arguments: Any) -> ToolArguments:
    """Validate ``arguments`` or raise InvalidArgumentError naming the field and what is allowed."""
    if not isinstance(arguments, dict):
        allowed = ", ".join(model.model_fields)
        raise InvalidArgumentError(
            f"arguments must be a JSON object (of {allowed}), not {json_kind(arguments)}",
            field="arguments",
        )
    for name in arguments:
        if not isinstance(name, str) or not is_well_formed(name):
            allowed = ", ".join(model.model_fields)
            raise InvalidArgumentError(
                f"argument name {name!r} is not valid text; allowed: {allowed}",
                field=ascii(name),
            )
    try:
        return model.model_validate(arguments)
    except InvalidArgumentError:
        raise
    except ValidationError as error:
        raise invalid_argument(error, allowed=model.model_fields) from None


def json_schema(model: type[ToolArguments]) -> dict[str, Any]:
    """A compact JSON Schema for function calling: no titles, optional fields not nullable."""
    schema = model.model_json_schema()
    definitions = schema.pop("$defs", {})
    properties = {
        name: _clean(prop, definitions) for name, prop in schema.get("properties", {}).items()
    }
    result: dict[str, Any] = {"type": "object", "properties": properties}
    if schema.get("required"):
        result["required"] = schema["required"]
    result["additionalProperties"] = False
    return result


def _clean(node: Any, definitions: dict[str, Any]) -> Any:
    if isinstance(node, list):
        return [_clean(item, definitions) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        referenced = definitions[node["$ref"].split("/")[-1]]
        own = {key: value for key, value in node.items() if key != "$ref"}
        return _clean({**referenced, **own}, definitions)
    if "anyOf" in node:
        options = [option for option in node["anyOf"] if option.get("type") != "null"]
        if len(options) == 1:
            merged = {**{k: v for k, v in node.items() if k != "anyOf"}, **options[0]}
            return _clean(merged, definitions)
        node = {**node, "anyOf": options}
    cleaned = {key: _clean(value, definitions) for key, value in node.items() if key != "title"}
    if cleaned.get("default", "absent") is None:
        del cleaned["default"]
    return cleaned
