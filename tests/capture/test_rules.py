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


def test_a_standing_instruction_to_the_agent_is_an_important_preference() -> None:
    for text in (
        "Always include data encryption details when I ask about data privacy.",
        "Please always confirm allergy information when I ask about snack options.",
        "From now on, answer me in French.",
        "Whenever I ask about trains, give me the Berlin times.",
        "Never suggest pork dishes to me.",
        "Please remember to always answer me in French.",
        "Never exceed 200 words in your answers to me.",
        "Never bring up my divorce again.",
    ):
        (found,) = extract_by_rules(text)
        assert found.category is Category.PREFERENCES, text
        assert found.tags == ("instruction",) and found.importance == 0.8, text
        assert found.content in (text, "Always answer me in French."), text


def test_a_sentence_that_only_opens_like_an_instruction_is_not_one() -> None:
    for text in (
        "Never mind, I figured it out myself.",
        "Never saw this coming at all!",
        "Always here to help you out.",
        "Always happy to share them with you.",
        "Always been interested in other countries and I'm excited.",
        "When I asked him about it, he laughed.",
        "Always include the salt when baking bread.",  # a saying, to no one
        "Never again will I fly with that airline, my flight was a disaster.",
        "Never have I been so tired in my life.",
        "Always love chatting with you about books.",
        "Whenever I talk about my ex, I get really sad.",
        "Never know what to cook for my family on weekdays.",
        "Never really liked my job at the bank.",
        "Always forget my keys when I leave the house.",
        "Going forward we need to cut our budget by ten percent.",
        "From now on, my name is Sam.",
    ):
        assert all(draft.tags == () for draft in extract_by_rules(text)), text
    (habit,) = extract_by_rules("I always walk to work in the morning.")
    assert habit.category is Category.PATTERNS and habit.tags == ()


def test_a_statement_before_a_request_of_the_agent_is_kept_without_the_request() -> None:
    (found,) = extract_by_rules(
        "I prefer e-books for their portability, so can you help me find a few for winter?"
    )
    assert found.category is Category.PREFERENCES
    assert found.content == "I prefer e-books for their portability."
    # a question that states nothing is still ignored, and so is a doubt or a question
    # before the request
    for asked in (
        "Do I prefer e-books, or would you say print suits me?",
        "Is it true that I'm allergic to peanuts, can you check my records?",
        "Why do I hate Mondays so much, can you explain?",
        "I don't know if I like sushi, could you tell me more about it?",
    ):
        assert extract_by_rules(asked) == [], asked
