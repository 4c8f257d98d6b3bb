from datetime import UTC, datetime

from openclaw_tinmem.models import Action, Category, Memory
from openclaw_tinmem.write.dedup import Decision
from openclaw_tinmem.write.merging import merged_memory, too_long

NOW = datetime(2026, 5, 1, tzinfo=UTC)


def _memory(content: str, category: Category = Category.PREFERENCES, **fields: object) -> Memory:
    levels = {"headline": content[:20], "summary": content[:60]}
    return Memory(scope="global", category=category, content=content, **levels, **fields)


def test_a_rule_merge_appends_and_keeps_the_stronger_importance_and_every_tag() -> None:
    existing = _memory("Prefers dark mode in editors", importance=0.4, tags=["ui"])
    candidate = _memory("Prefers dark mode in terminals too", importance=0.8, tags=["shell"])
    result = merged_memory(existing, candidate, Decision(Action.MERGED, existing), NOW)
    assert result.id == existing.id
    assert "editors" in result.content and "terminals" in result.content
    assert result.importance == 0.8 and set(result.tags) == {"ui", "shell"}
    assert result.updated_at == NOW and result.headline and result.summary


def test_text_the_judge_wrote_is_kept_with_its_secrets_redacted() -> None:
    existing = _memory("Deploy key lives in the vault")
    candidate = _memory("Deploy key rotated monthly")
    written = "Deploy key (sk-abcdefghijklmnopqrstuvwxyz0123456789) lives in the vault"
    decision = Decision(Action.MERGED, existing, content=written, headline="Deploy key")
    result = merged_memory(existing, candidate, decision, NOW)
    assert "sk-abcdefghijklmnopqrstuvwxyz0123456789" not in result.content
    assert result.content.startswith("Deploy key") and result.headline == "Deploy key"


def test_only_an_appended_merge_that_grew_past_the_limit_is_too_long() -> None:
    target = _memory("x" * 50)
    longer = "x" * 50 + "\ny" * 60
    assert too_long(Category.PREFERENCES, longer, Decision(Action.MERGED, target), 100)
    assert not too_long(Category.PREFERENCES, longer, Decision(Action.MERGED, target), 500)
    assert not too_long(Category.PROFILE, longer, Decision(Action.MERGED, target), 100)
    by_judge = Decision(Action.MERGED, target, content=longer)
    assert not too_long(Category.PREFERENCES, longer, by_judge, 100)
    assert not too_long(Category.PREFERENCES, target.content, Decision(Action.MERGED, target), 10)
