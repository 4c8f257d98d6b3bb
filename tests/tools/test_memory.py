import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from openclaw_tinmem.config import Settings
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.tools.toolbox import Toolbox

SPEC_PARAMETERS = {
    "memory_recall": ({"query"}, {"query", "scope", "categories", "limit", "level"}),
    "memory_store": (
        {"content", "category"},
        {"content", "category", "scope", "importance", "tags"},
    ),
    # the skill's parameters, and dry_run (a preview, added for safe forgetting)
    "memory_forget": (set(), {"id", "query", "scope", "categories", "dry_run"}),
    "memory_update": ({"id"}, {"id", "content", "summary", "headline", "importance", "tags"}),
}


def test_tool_schemas_follow_the_spec(toolbox: Toolbox) -> None:
    schemas = {tool["function"]["name"]: tool["function"] for tool in toolbox.openai_tools()}
    assert set(schemas) == set(SPEC_PARAMETERS)
    for name, (required, allowed) in SPEC_PARAMETERS.items():
        parameters = schemas[name]["parameters"]
        assert set(parameters.get("required", [])) == required
        assert set(parameters["properties"]) == allowed
        json.dumps(parameters)  # serialisable for any function-calling API
    recall = schemas["memory_recall"]["parameters"]["properties"]
    # one scope or a list; none: every scope the caller may read (global among them)
    assert [option["type"] for option in recall["scope"]["anyOf"]] == ["string", "array"]
    assert "default" not in recall["scope"] and recall["limit"]["default"] == 10
    assert schemas["memory_store"]["parameters"]["properties"]["importance"]["default"] == 0.5


def test_store_recall_update_forget_round_trip(toolbox: Toolbox) -> None:
    stored = toolbox.call(
        "memory_store",
        {
            "content": "User is building a SaaS product called TaskFlow for project management, using Next.js 14 and PostgreSQL with Prisma",
            "category": "entities",
            "importance": 0.9,
            "tags": ["taskflow", "nextjs", "postgresql", "saas"],
        },
    )
    assert stored.data["action"] == "created"
    memory_id = stored.data["id"]
    recalled = toolbox.call(
        "memory_recall",
        {"query": "what is the user building", "categories": ["entities"], "level": "L0"},
    )
    first = recalled.data["results"][0]
    assert first["id"] == memory_id and set(first) >= {"id", "category", "scope", "text", "score"}
    assert first["text"].startswith("User is building a SaaS product")
    updated = toolbox.call(
        "memory_update", {"id": memory_id, "importance": 0.3, "tags": ["taskflow"]}
    )
    assert updated.data["memory"]["importance"] == 0.3 and updated.data["memory"]["tags"] == [
        "taskflow"
    ]
    headline = updated.data["memory"]["headline"]
    assert toolbox.call("memory_forget", {"id": memory_id}).data == {
        "deleted": [memory_id],
        "candidates": [],
        "memories": [{"id": memory_id, "headline": headline, "scope": "global"}],
    }
    assert toolbox.call("memory_recall", {"query": "TaskFlow"}).data["results"] == []


@pytest.mark.parametrize(
    ("name", "arguments", "field"),
    [
        ("memory_store", {"content": "x", "category": "hobbies"}, "category"),
        ("memory_store", {"content": "x", "category": "events", "importance": 1.5}, "importance"),
        ("memory_store", {"content": "x", "category": "events", "importance": True}, "importance"),
        ("memory_recall", {"query": "x", "limit": True}, "limit"),
        ("memory_store", {"content": "   ", "category": "events"}, "content"),
        ("memory_store", {"category": "events"}, "content"),
        ("memory_store", {"content": "x", "category": "events", "scope": "team:x"}, "scope"),
        ("memory_recall", {"query": "x", "limit": 0}, "limit"),
        ("memory_recall", {"query": "x", "limit": 101}, "limit"),
        ("memory_recall", {"query": "x", "level": "L9"}, "level"),
        ("memory_recall", {"query": "x", "unknown": 1}, "unknown"),
        ("memory_forget", {}, "id"),
        ("memory_forget", {"id": "42"}, "id"),
        ("memory_forget", {"id": "123e4567-e89b-12d3-a456-426614174000", "query": "x"}, "query"),
        ("memory_update", {"id": "123e4567-e89b-12d3-a456-426614174000"}, "id"),
        ("memory_update", {"id": "123e4567-e89b-12d3-a456-426614174000", "importance": 0.1}, "id"),
    ],
)
def test_invalid_input_gives_an_error_object_and_writes_nothing(
    toolbox: Toolbox, service: MemoryService, name: str, arguments: dict[str, Any], field: str
) -> None:
    before = service.store.table.version
    result = toolbox.call(name, arguments)
    assert result.is_error
    assert result.data["error"]["field"] == field
    assert result.data["error"]["message"]
    assert service.store.table.version == before


def test_unknown_tool_is_an_error(toolbox: Toolbox) -> None:
    assert toolbox.call("memory_explode", {}).data["error"]["type"] == "unknown_tool"


def test_an_error_does_not_echo_a_huge_argument_name_back(toolbox: Toolbox) -> None:
    name = "x" * 1_000_000
    error = toolbox.call("memory_recall", {"query": "tea", name: 1}).data["error"]
    assert error["type"] == "invalid_argument" and error["field"].startswith("xxx")
    assert len(json.dumps(error)) < 2_000


async def test_async_call_runs_off_the_event_loop(toolbox: Toolbox) -> None:
    result = await toolbox.acall(
        "memory_store", {"content": "Async hosts work too", "category": "patterns"}
    )
    assert result.data["action"] == "created"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=30),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=8,
)
argument_keys = st.sampled_from(
    [
        "query",
        "content",
        "category",
        "scope",
        "categories",
        "limit",
        "level",
        "importance",
        "tags",
        "id",
        "summary",
        "headline",
        "bogus",
    ]
)


@pytest.mark.faults
@hypothesis_settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    name=st.sampled_from(list(SPEC_PARAMETERS)),
    arguments=st.dictionaries(argument_keys, json_values, max_size=5) | json_values,
)
def test_no_input_escapes_as_an_exception(toolbox: Toolbox, name: str, arguments: Any) -> None:
    result = toolbox.call(name, arguments)
    assert isinstance(result.data, dict)
    if result.is_error:
        assert result.data["error"]["type"] != "internal_error", result.data


def test_the_history_tool_is_off_by_default_and_lists_changes_when_on(
    settings: Settings, make_service
) -> None:  # type: ignore[no-untyped-def]
    from openclaw_tinmem.tools.toolbox import build_toolbox

    assert "memory_history" not in build_toolbox(make_service(settings)).names()
    service = make_service(settings.model_copy(update={"history_tool": True}))
    tools = build_toolbox(service)
    stored = tools.call("memory_store", {"content": "Standups at 9:30", "category": "events"})
    tools.call("memory_update", {"id": stored.data["id"], "importance": 0.8})
    listed = tools.call("memory_history", {"id": stored.data["id"][:8]})
    assert [event["action"] for event in listed.data["events"]] == ["created", "updated"]


def test_recall_puts_the_standing_instructions_for_the_request_first(toolbox: Toolbox) -> None:
    instruction = "Always include the narrator when I ask about audiobook recommendations."
    stored = [
        ("I listened to Project Hail Mary on my commute and loved it.", "events", []),
        ("User prefers science fiction audiobooks.", "preferences", []),
        (instruction, "preferences", ["instruction"]),
    ]
    for content, category, tags in stored:
        toolbox.call("memory_store", {"content": content, "category": category, "tags": tags})
    asked = {"query": "Can you recommend me some audiobooks?", "limit": 2}
    results = toolbox.call("memory_recall", asked).data["results"]
    assert results[0]["text"] == instruction and len(results) == 2
    # only where preferences are asked for, and only for requests of its kind
    events = toolbox.call("memory_recall", {**asked, "categories": ["events"]}).data["results"]
    assert all(result["category"] == "events" for result in events)
    other = toolbox.call("memory_recall", {"query": "What did I think of the film?"})
    assert instruction not in [result["text"] for result in other.data["results"]]
