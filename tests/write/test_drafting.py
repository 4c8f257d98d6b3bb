from datetime import UTC, datetime

import pytest

from openclaw_tinmem.errors import InvalidArgumentError
from openclaw_tinmem.models import Category, Draft
from openclaw_tinmem.write.drafting import drafted

NOW = datetime(2026, 5, 1, tzinfo=UTC)
SAID = datetime(2026, 4, 2, tzinfo=UTC)


def _levels(content: str) -> tuple[str, str]:
    return content[:10], content[:40]


def test_secrets_are_redacted_and_counted_in_every_text_of_the_draft() -> None:
    secret = "sk-abcdefghijklmnopqrstuvwxyz0123456789"
    draft = Draft(f"The key is {secret}", Category.ENTITIES, headline=f"key {secret}")
    memory, redacted = drafted(draft, _levels, lambda: NOW)
    assert secret not in memory.content and secret not in memory.headline
    assert redacted == 2


def test_missing_levels_are_written_and_given_ones_kept() -> None:
    memory, _ = drafted(
        Draft("Uses pnpm for every repo", Category.PREFERENCES), _levels, lambda: NOW
    )
    assert (memory.headline, memory.summary) == _levels("Uses pnpm for every repo")
    given = Draft("Uses pnpm", Category.PREFERENCES, headline="pnpm", summary="Uses pnpm.")
    memory, _ = drafted(given, _levels, lambda: NOW)
    assert (memory.headline, memory.summary) == ("pnpm", "Uses pnpm.")


def test_a_memory_is_dated_by_when_it_was_said_and_updated_now() -> None:
    memory, _ = drafted(
        Draft("Moved to Lisbon", Category.EVENTS, created_at=SAID), _levels, lambda: NOW
    )
    assert (memory.created_at, memory.updated_at) == (SAID, NOW)


@pytest.mark.parametrize(
    "field,draft",
    [
        ("content", Draft("   ", Category.CASES)),
        ("scope", Draft("Fine text", Category.CASES, scope="bad scope!")),
    ],
)
def test_bad_drafts_name_the_field(field: str, draft: Draft) -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        drafted(draft, _levels, lambda: NOW)
    assert caught.value.field == field
