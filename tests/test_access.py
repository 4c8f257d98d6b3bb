import pytest
from hypothesis import given
from hypothesis import strategies as st

from openclaw_tinmem.access import Access, Identity, resolve_scope_setting, scope_for
from openclaw_tinmem.config import Settings
from openclaw_tinmem.config.identities import ScopeRule
from openclaw_tinmem.errors import AccessDeniedError, InvalidArgumentError
from openclaw_tinmem.events import HookContext
from openclaw_tinmem.models import GLOBAL_SCOPE, validate_scope

ANA = Identity(agent_id="main", user_id="ana@example.com")


def test_an_agent_reads_its_own_scopes_its_users_and_global_by_default() -> None:
    access = Access.of(ANA, Settings())
    assert access.readable_scopes() == ["global", "agent:main", "user:ana@example.com"]
    assert access.scopes_to_read(None) == access.readable_scopes()
    assert access.can_write("agent:main") and access.can_write("global")
    assert not access.can_read("agent:other") and not access.can_write("user:bob")


def test_naming_a_scope_outside_the_rights_is_an_error_that_names_it() -> None:
    access = Access.of(ANA, Settings())
    with pytest.raises(AccessDeniedError) as caught:
        access.scopes_to_read(["global", "agent:other"])
    assert "agent:other" in caught.value.message and caught.value.field == "scope"
    with pytest.raises(AccessDeniedError, match="may not write scope 'project:x'"):
        access.check_write("project:x")
    with pytest.raises(InvalidArgumentError):
        access.scopes_to_read(["not a scope"])


def test_without_a_user_the_user_pattern_is_dropped() -> None:
    access = Access.of(Identity(agent_id="bot"), Settings())
    assert access.readable_scopes() == ["global", "agent:bot"]


def test_an_administrator_reads_and_writes_everything_unfiltered() -> None:
    access = Access.of(Identity.administrator(), Settings())
    assert access.readable_scopes() is None and access.can_write("agent:anyone")


def test_per_agent_rules_take_patterns_and_placeholders() -> None:
    settings = Settings(
        agent_access={
            "auditor": ScopeRule(read=["*"], write=[]),
            "ops-*": ScopeRule(read=["agent:*", "global"], write=["{agent}"]),
        }
    )
    auditor = Access.of(Identity(agent_id="auditor"), settings)
    assert auditor.can_read("agent:x") and auditor.readable_scopes() is None
    assert not auditor.can_write("global")
    ops = Access.of(Identity(agent_id="ops-1"), settings)
    assert ops.can_read("agent:main") and ops.can_write("agent:ops-1")
    assert not ops.can_write("agent:main") and ops.readable_scopes() == ["global"]


def test_scope_settings_resolve_against_the_identity() -> None:
    assert resolve_scope_setting("agent", ANA) == "agent:main"
    assert resolve_scope_setting("user", ANA) == "user:ana@example.com"
    assert resolve_scope_setting("user", Identity(agent_id="bot")) == "agent:bot"
    assert resolve_scope_setting("project:x", ANA) == "project:x"
    assert scope_for("user", "+1 (555) 010").startswith("user:1__555__010~")
    assert scope_for("user", "") is None


def test_an_identity_comes_from_a_hook_context() -> None:
    identity = Identity.from_context(HookContext(agent_id="a", user_id="u", session_id="s"))
    assert (identity.agent_id, identity.user_id, identity.session_id) == ("a", "u", "s")
    assert Identity.from_context(None).agent_id == "main"
    assert "agent a, user u" in identity.describe()


IDS = st.text(min_size=1, max_size=300)


@given(IDS, IDS)
def test_distinct_ids_never_share_a_scope(first: str, second: str) -> None:
    import unicodedata

    if unicodedata.normalize("NFC", first) != unicodedata.normalize("NFC", second):
        assert scope_for("agent", first) != scope_for("agent", second)


@given(IDS)
def test_every_id_has_a_valid_scope_of_its_own(identifier: str) -> None:
    scope = scope_for("user", identifier)
    assert scope is not None and scope != GLOBAL_SCOPE and scope.startswith("user:")
    assert validate_scope(scope) == scope


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("team/alpha", "team_alpha"),
        ("team alpha", "team:alpha"),
        ("_bob", "bob"),
        ("josé", "josè"),
        ("张三", "李四"),
        ("a" * 128 + "x", "a" * 128 + "y"),
    ],
)
def test_the_ids_that_used_to_collide_have_scopes_of_their_own(first: str, second: str) -> None:
    assert scope_for("agent", first) != scope_for("agent", second)
    assert scope_for("agent", "张三") != GLOBAL_SCOPE
