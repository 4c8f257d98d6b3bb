import pytest

from openclaw_tinmem.errors import InvalidArgumentError
from openclaw_tinmem.models import (
    CATEGORY_POLICIES,
    MAX_CONTEXT_CHARACTERS,
    Category,
    MergePolicy,
    content_hash,
    context_tail,
    normalise_tags,
    validate_memory_id,
    validate_scope,
)


@pytest.mark.parametrize(
    "scope",
    ["global", "agent:main", "user:ana@example.com", "project:alpha-1", "custom:team.notes"],
)
def test_valid_scopes(scope: str) -> None:
    assert validate_scope(scope) == scope


@pytest.mark.parametrize(
    "scope",
    [
        "",
        "Global",
        "agent:",
        "team:x",
        "user:a b",
        "user:x' OR '1'='1",
        "custom:../etc",
        "agent:" + "a" * 200,
        "global\n",
    ],
)
def test_invalid_scopes_name_the_field(scope: str) -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        validate_scope(scope)
    assert caught.value.field == "scope"


def test_merge_policies_follow_the_spec() -> None:
    assert Category.PROFILE.policy is MergePolicy.ALWAYS_MERGE
    assert Category.PREFERENCES.policy is MergePolicy.MERGE_SAME_TOPIC
    assert Category.ENTITIES.policy is MergePolicy.MERGE_SAME_ENTITY
    assert Category.EVENTS.policy is MergePolicy.APPEND
    assert Category.CASES.policy is MergePolicy.APPEND
    assert Category.PATTERNS.policy is MergePolicy.MERGE_SAME_PATTERN
    assert set(CATEGORY_POLICIES) == set(Category)


def test_tags_are_normalised_and_deduplicated() -> None:
    assert normalise_tags([" Python ", "python", "Machine Learning", "", "c++", "<b>x</b>"]) == [
        "python",
        "machine-learning",
        "c++",
        "bx/b",
    ]


def test_memory_ids_are_canonical_uuids() -> None:
    assert (
        validate_memory_id(" 123E4567-E89B-12D3-A456-426614174000 ")
        == "123e4567-e89b-12d3-a456-426614174000"
    )
    with pytest.raises(InvalidArgumentError):
        validate_memory_id("123' OR 1=1 --")


def test_content_hash_folds_case_and_space() -> None:
    assert content_hash("I like  Tea") == content_hash("i like tea")
    assert content_hash("I like tea") != content_hash("I like coffee")


def test_a_context_keeps_its_last_characters_without_surrounding_whitespace_and_reads_back_unchanged() -> (
    None
):
    question = "How often do you all work out together?"
    assert context_tail(question + "\n" * 3000) == question
    long_reply = "Here is the plan: " + " ".join(["step"] * 1000)
    kept = context_tail(long_reply)
    assert len(kept) < MAX_CONTEXT_CHARACTERS and not kept.startswith(" ")
    assert long_reply.endswith(kept) and context_tail(kept) == kept
    assert context_tail(" " + kept) == kept  # as a store written before kept it
