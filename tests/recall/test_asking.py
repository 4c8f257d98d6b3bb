import pytest

from openclaw_tinmem.recall.asking import about_the_user, plain_question, speaks_of_the_user


@pytest.mark.parametrize(
    ("query", "question"),
    [
        ("Where do I live again?", "Where do I live?"),
        ("Remind me, what is my dog's name?", "What is my dog's name?"),
        ("Do you still remember where I work?", "Where I work?"),
        ("Hey, quick question: when is my dentist appointment?", "When is my dentist appointment?"),
        ("Could you remind me of the date of the workshop?", "The date of the workshop?"),
        ("so, remind me: where is the meeting again?", "Where is the meeting?"),
        ("Remind me again what my wifi password is, please?", "What my wifi password is?"),
        ("I forgot my sister's birthday, when is it?", "My sister's birthday, when is it?"),
        ("I can\u2019t remember, where did I park?", "Where did I park?"),
        ("Hi there, what is my name?", "What is my name?"),
    ],
)
def test_the_words_that_only_ask_to_be_reminded_are_dropped(query: str, question: str) -> None:
    assert plain_question(query) == question


@pytest.mark.parametrize(
    "query",
    [
        "What can you tell me about existentialism?",  # the wrapper is not at the start
        "Tell me about Paris",
        "Remember that I like tea",  # an instruction to store, not a question
        "Again?",  # nothing would be left
        "remind me",
        "hey",
        "Which database did we pick for billing?",
        "Hello world program in Rust?",  # an opener needs its punctuation
        "So-called microservices, are they worth it?",
    ],
)
def test_a_query_with_nothing_to_drop_or_too_little_left_is_read_whole(query: str) -> None:
    assert plain_question(query) == query


@pytest.mark.parametrize(
    ("question", "about_user"),
    [
        ("Where do I work?", "Where does the user work?"),
        ("Am I allergic to anything?", "Is the user allergic to anything?"),
        ("Have I ever used Rust?", "Has the user ever used Rust?"),
        ("What did I decide about the database?", "What did the user decide about the database?"),
        ("What\u2019s my name?", "What\u2019s the user's name?"),
        ("do i have any pets?", "Does the user have any pets?"),
        (
            "I'm not sure what my dog is called",
            "The user is not sure what the user's dog is called",
        ),
    ],
)
def test_a_question_in_the_first_person_asked_about_the_user(
    question: str, about_user: str
) -> None:
    assert about_the_user(question) == about_user


@pytest.mark.parametrize(
    "question",
    [
        "What did Caroline research?",
        "Which database did we pick?",
        "What is the iPhone IP?",
        "What caused World War I?",
        "How does I/O scheduling work?",
        "Is ME bigger than TX?",
    ],
)
def test_a_question_not_in_the_first_person_singular_is_not_rewritten(question: str) -> None:
    assert about_the_user(question) is None


@pytest.mark.parametrize(
    ("text", "speaks"),
    [
        ("User works at Siemens as a data engineer.", True),
        ("TaskFlow is the user's SaaS project", True),
        ("User is allergic to peanuts.\nUser: thanks", True),
        ("User: I live in Berlin.\nassistant: Nice city!", False),  # a label: the user speaking
        ("User (1:56 pm on 8 May, 2023): I moved to Berlin", False),
        ("I live in Berlin.", False),
        ("Users of the app log in with SSO", False),
        ("Add a user-agent header to every request", False),
        ("The project's end user is a doctor", False),
    ],
)
def test_what_tells_of_the_user_in_the_third_person(text: str, speaks: bool) -> None:
    assert speaks_of_the_user(text) is speaks
