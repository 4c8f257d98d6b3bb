from openclaw_tinmem.models import Category, Hit, MatchKind, Memory
from openclaw_tinmem.recall.names import about_known_names, names_in, unknown_names


def _hit(content: str, category: Category = Category.EVENTS) -> Hit:
    memory = Memory(category=category, headline=content[:40], summary=content, content=content)
    return Hit(memory, 0.9, 0.9, MatchKind.BOTH)


def test_names_are_capitalised_words_not_starting_a_sentence_and_acronyms() -> None:
    assert names_in("When did Caroline go to the LGBTQ support group?") == {"caroline", "lgbtq"}
    assert names_in("What is John's degree in?") == {"john"}
    assert names_in("I told Bob. Then Alice said hi.") == {"bob", "alice"}


def test_words_capitalised_for_other_reasons_are_not_names() -> None:
    assert names_in("Where do I live?") == set()
    assert names_in("What did we plan in May, on Friday?") == set()
    assert names_in("Hi! Can you suggest a snack?") == set()


def test_unknown_names_are_those_no_hit_mentions() -> None:
    hits = [_hit("Caroline: I went to a support group yesterday.")]
    assert unknown_names("Did Caroline meet Jon at the group?", hits) == {"jon"}


def test_a_message_about_strangers_keeps_only_facts_about_the_user() -> None:
    episode = _hit("Gina: I went to a support group for founders.")
    preference = _hit("Prefers short answers", Category.PREFERENCES)
    hits = [episode, preference]
    kept = about_known_names("When did Caroline go to the support group?", hits, hits)
    assert kept == [preference]


def test_a_message_naming_something_memory_knows_keeps_every_hit() -> None:
    hits = [_hit("Gina: I went to a support group."), _hit("Jon opened a dance studio.")]
    assert about_known_names("What did Gina do with Jon?", hits, hits) == hits
    assert about_known_names("what did we do last week?", hits, hits[:1]) == hits[:1]


def test_a_name_is_a_whole_word() -> None:
    hits = [_hit("Joanna: it is time to go.")]
    assert unknown_names("What forum did Tim join?", hits) == {"tim"}


def test_with_one_name_unknown_only_memories_of_the_known_names_remain() -> None:
    about_caroline = _hit("Caroline: I went to a support group yesterday.")
    about_gina = _hit("Gina: I went to a support group for founders.")
    hits = [about_caroline, about_gina]
    assert about_known_names("Did Caroline meet Jon at the group?", hits, hits) == [about_caroline]
