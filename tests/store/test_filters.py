import pytest

from openclaw_tinmem.errors import InvalidArgumentError
from openclaw_tinmem.models import Category
from openclaw_tinmem.store.filters import build_filter, quote


def test_quote_doubles_single_quotes() -> None:
    assert quote("it's") == "'it''s'"
    with pytest.raises(InvalidArgumentError):
        quote("a\x00b")


def test_filter_combines_validated_values() -> None:
    where = build_filter(scopes=["global", "agent:a"], categories=[Category.EVENTS])
    assert where == "(scope IN ('global', 'agent:a')) AND (category IN ('events'))"
    assert build_filter() is None
    assert build_filter(ids=[]) == "(FALSE)"


@pytest.mark.parametrize(
    "scope", ["global') OR ('1'='1", "agent:x' OR scope LIKE '%", "global; DROP TABLE memories"]
)
def test_injection_through_scope_is_rejected(scope: str) -> None:
    with pytest.raises(InvalidArgumentError):
        build_filter(scopes=[scope])


def test_injection_through_id_is_rejected() -> None:
    with pytest.raises(InvalidArgumentError):
        build_filter(ids=["00000000-0000-0000-0000-000000000000' OR '1'='1"])
