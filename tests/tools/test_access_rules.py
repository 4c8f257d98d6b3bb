"""Every access rule on every tool: read, write, update by id, forget by id and by query."""

from typing import Any

import pytest

from openclaw_tinmem.access import Identity
from openclaw_tinmem.config import Settings
from openclaw_tinmem.config.identities import ScopeRule
from openclaw_tinmem.models import Category
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.tools.toolbox import Toolbox, build_toolbox

ALPHA = Identity(agent_id="alpha", user_id="ana")
BETA = Identity(agent_id="beta", user_id="bob")
AUDITOR = Identity(agent_id="auditor")


@pytest.fixture
def shared(settings: Settings, make_service) -> MemoryService:  # type: ignore[no-untyped-def]
    rights = {"auditor": ScopeRule(read=["*"], write=[])}
    return make_service(  # type: ignore[no-any-return]
        settings.model_copy(
            update={"agent_access": rights, "workspace_search_memories": True, "rerank": False}
        )
    )


@pytest.fixture
def memories(shared: MemoryService) -> dict[str, str]:
    """One memory per scope, stored by the owner; returns scope -> id."""
    texts = {
        "agent:alpha": "Alpha's deploy key rotates every Monday",
        "user:ana": "Ana's launch code for the rocket demo is 4451",
        "agent:beta": "Beta's launch code for the rocket demo is 9907",
        "global": "The office closes at 18:00 on Fridays",
    }
    return {
        scope: shared.remember(text, Category.EVENTS, scope=scope).memory.id
        for scope, text in texts.items()
    }


@pytest.fixture
def tools(shared: MemoryService) -> Toolbox:
    return build_toolbox(shared)


def call(tools: Toolbox, identity: Identity, name: str, **arguments: Any) -> Any:
    return tools.call(name, arguments, identity).data


def scopes_of(data: Any) -> set[str]:
    return {result["scope"] for result in data["results"]}


def test_recall_reads_only_the_caller_s_scopes(tools: Toolbox, memories: dict[str, str]) -> None:
    found = call(tools, ALPHA, "memory_recall", query="launch code for the rocket demo")
    assert scopes_of(found) <= {"agent:alpha", "user:ana", "global"}
    assert "user:ana" in scopes_of(found)
    found = call(tools, BETA, "memory_recall", query="launch code for the rocket demo")
    assert scopes_of(found) <= {"agent:beta", "global"} and "agent:beta" in scopes_of(found)
    assert "agent:beta" in scopes_of(
        call(tools, AUDITOR, "memory_recall", query="launch code for the rocket demo")
    )


def test_naming_another_scope_is_denied_with_its_name(
    tools: Toolbox, memories: dict[str, str]
) -> None:
    for scope in ("agent:beta", ["global", "agent:beta"]):
        error = call(tools, ALPHA, "memory_recall", query="launch code", scope=scope)["error"]
        assert error["type"] == "access_denied" and "agent:beta" in error["message"]
    error = call(tools, ALPHA, "memory_forget", query="launch code", scope="agent:beta")["error"]
    assert error["type"] == "access_denied"


def test_store_writes_only_where_allowed(tools: Toolbox, shared: MemoryService) -> None:
    error = call(
        tools,
        ALPHA,
        "memory_store",
        content="Beta owes me lunch",
        category="events",
        scope="agent:beta",
    )["error"]
    assert error["type"] == "access_denied" and "agent:beta" in error["message"]
    assert shared.store.count() == 0
    own = call(
        tools,
        ALPHA,
        "memory_store",
        content="Alpha runs the nightly backup",
        category="events",
        scope="agent:alpha",
    )
    assert own["scope"] == "agent:alpha"
    default = call(tools, ALPHA, "memory_store", content="Lunch is at noon", category="events")
    assert default["scope"] == "global"  # the skill's default
    denied = call(tools, AUDITOR, "memory_store", content="Audit done", category="events")
    assert denied["error"]["type"] == "access_denied"


def test_update_and_forget_by_id_never_touch_another_scope(
    tools: Toolbox, shared: MemoryService, memories: dict[str, str]
) -> None:
    theirs = memories["agent:beta"]
    for name, arguments in (
        ("memory_update", {"id": theirs, "importance": 0.9}),
        ("memory_forget", {"id": theirs}),
    ):
        error = call(tools, ALPHA, name, **arguments)["error"]
        assert error["type"] == "not_found"  # not even its existence is revealed
    readable_only = call(tools, AUDITOR, "memory_update", id=theirs, importance=0.9)["error"]
    assert readable_only["type"] == "access_denied" and "agent:beta" in readable_only["message"]
    assert call(tools, AUDITOR, "memory_forget", id=theirs)["error"]["type"] == "access_denied"
    assert shared.get(theirs).importance == 0.5 and shared.store.count() == 4
    mine = memories["agent:alpha"]
    assert (
        call(tools, ALPHA, "memory_update", id=mine, importance=0.9)["memory"]["importance"] == 0.9
    )
    assert call(tools, ALPHA, "memory_forget", id=mine)["deleted"] == [mine]


def test_forget_by_query_deletes_only_in_writable_scopes(
    tools: Toolbox, shared: MemoryService, memories: dict[str, str]
) -> None:
    sentence = "Beta's launch code for the rocket demo is 9907"
    result = call(tools, ALPHA, "memory_forget", query=sentence)
    assert memories["agent:beta"] not in result["deleted"]
    assert all(c["scope"] != "agent:beta" for c in result.get("candidates", []))
    assert shared.get(memories["agent:beta"])  # still there
    result = call(tools, BETA, "memory_forget", query=sentence)
    assert result["deleted"] == [memories["agent:beta"]]


def test_workspace_search_reads_only_the_caller_s_memories(
    tools: Toolbox, memories: dict[str, str]
) -> None:
    results = call(tools, ALPHA, "memory_search", query="launch code for the rocket demo")
    ids = {result["document_id"] for result in results["results"]}
    assert memories["agent:beta"] not in ids and memories["user:ana"] in ids


def test_an_agent_that_may_write_nothing_is_told_so_when_it_forgets(
    tools: Toolbox, memories: dict[str, str]
) -> None:
    error = call(tools, AUDITOR, "memory_forget", query="office closes on Fridays")["error"]
    assert error["type"] == "access_denied" and "may write no scope" in error["message"]
    assert call(tools, AUDITOR, "memory_recall", query="office closes")["results"]
