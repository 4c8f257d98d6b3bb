from openclaw_tinmem.config import Settings
from openclaw_tinmem.models import Action, Category, Memory
from openclaw_tinmem.write.dedup import Neighbour, decide_by_similarity, merge_contents


def _neighbour(category: Category, similarity: float) -> Neighbour:
    return Neighbour(Memory(category=category, headline="h", summary="s", content="c"), similarity)


def test_events_and_cases_never_merge_nor_skip_on_similarity() -> None:
    settings = Settings()
    for category in (Category.EVENTS, Category.CASES):
        for similarity in (0.9, 0.99):
            decision = decide_by_similarity(category, [_neighbour(category, similarity)], settings)
            assert decision.action is Action.CREATED


def test_near_identical_is_skipped_for_merging_categories() -> None:
    for category in (c for c in Category if c.policy.merges):
        decision = decide_by_similarity(category, [_neighbour(category, 0.99)], Settings())
        assert decision.action is Action.SKIPPED


def test_profile_merges_at_a_lower_similarity_than_preferences() -> None:
    settings = Settings()
    similarity = (settings.profile_merge_similarity + settings.merge_similarity) / 2
    assert (
        decide_by_similarity(
            Category.PROFILE, [_neighbour(Category.PROFILE, similarity)], settings
        ).action
        is Action.MERGED
    )
    assert (
        decide_by_similarity(
            Category.PREFERENCES, [_neighbour(Category.PREFERENCES, similarity)], settings
        ).action
        is Action.CREATED
    )


def test_merge_contents_does_not_repeat_contained_text() -> None:
    assert (
        merge_contents("Likes tea. Drinks it daily.", "likes tea.") == "Likes tea. Drinks it daily."
    )
    assert merge_contents("Likes tea.", "Also likes coffee.") == "Likes tea.\nAlso likes coffee."
