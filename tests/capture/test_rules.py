from openclaw_tinmem.capture.rules import extract_by_rules
from openclaw_tinmem.models import Category


def _categories(text: str) -> list[Category]:
    return [candidate.category for candidate in extract_by_rules(text)]


def test_memorable_statements_are_classified() -> None:
    assert _categories("My name is Dana and I work at Acme as a data engineer.") == [
        Category.PROFILE
    ]
    assert _categories("I really prefer tabs over spaces in Go code.") == [Category.PREFERENCES]
    assert _categories("We decided to move the launch to June 3rd.") == [Category.EVENTS]
    assert _categories("I'm building a budgeting app called Penny with SvelteKit.") == [
        Category.ENTITIES
    ]
    assert _categories("The fix was to raise the connection pool size to 50.") == [Category.CASES]


def test_explicit_requests_are_important_and_questions_are_ignored() -> None:
    (found,) = extract_by_rules("Please remember that my daughter's birthday is on 12 May.")
    assert found.content.startswith("my daughter's birthday") and found.importance == 0.8
    assert extract_by_rules("Do I prefer tabs or spaces?") == []
    assert extract_by_rules("What is the weather like today in Paris?") == []


def test_what_the_user_cannot_or_will_not_eat_is_a_preference_however_it_is_said() -> None:
    for text in ("I'm allergic to peanuts.", "I am allergic to peanuts.", "I am vegan these days."):
        assert _categories(text) == [Category.PREFERENCES], text
    (found,) = extract_by_rules("Please remember that I am allergic to peanuts.")
    assert found.category is Category.PREFERENCES and found.content == "I am allergic to peanuts."


def test_a_sentence_repeated_is_one_statement() -> None:
    drafts = extract_by_rules("I work at ACME. " * 50 + "I work at  acme. I live in Porto.")
    assert [draft.content for draft in drafts] == ["I work at ACME.", "I live in Porto."]
