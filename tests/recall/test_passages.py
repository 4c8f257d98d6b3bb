from openclaw_tinmem.recall.passages import (
    PASSAGE_WORDS,
    SNIPPET_WORDS,
    best_passage,
    best_sentence,
    brief_line,
)
from openclaw_tinmem.text import passages

FILLER = "We compared sourdough starters and proofing times at some length. "


def test_the_passage_with_most_of_the_query_words_is_chosen() -> None:
    content = FILLER * 15 + "The Frankfurt backup server answers on port 8443. " + FILLER * 15
    chosen = best_passage("Which port does the Frankfurt backup server use?", content)
    assert chosen is not None and "8443" in chosen
    assert len(chosen.split()) <= PASSAGE_WORDS


def test_short_memories_and_unrelated_queries_have_no_passage() -> None:
    assert best_passage("Frankfurt server port", "The Frankfurt server answers on 8443.") is None
    assert best_passage("Which port?", FILLER * 30) is None  # no word in common
    assert best_passage("the of and what", FILLER * 30) is None  # function words only


def test_passages_keep_whole_sentences_and_every_word() -> None:
    text = " ".join(f"Sentence number {n} has exactly seven words." for n in range(40))
    parts = passages(text, 20)
    assert all(len(part.split()) <= 20 for part in parts)
    assert all(part.endswith(".") for part in parts)  # cut between sentences
    assert " ".join(parts).split() == text.split()
    long_sentence = "word " * 50
    assert [len(part.split()) for part in passages(long_sentence, 20)] == [20, 20, 10]
    assert passages("short text", 20) == ["short text"]


EXCHANGE = (
    "Caroline: Wow, Mel, that's so cool! How was the museum?\n"
    "Melanie: They were stoked for the dinosaur exhibit! The kids love learning about animals "
    "and the bones were so cool, and afterwards we all went for ice cream by the river."
)
SPEAKERS = ("Caroline", "Melanie")


def test_the_sentence_a_question_is_about_stands_for_the_headline() -> None:
    shown = best_sentence(
        "What do Melanie's kids love?", EXCHANGE, "Caroline: How was the museum?", SPEAKERS
    )
    assert shown == "Melanie: The kids love learning about animals and the…"
    assert len(shown.split()) == SNIPPET_WORDS + 1  # the speaker, then the snippet
    later = best_sentence("Did they get ice cream by the river?", EXCHANGE, "", SPEAKERS)
    assert later == "Melanie: …all went for ice cream by the river."


def test_speakers_names_and_a_headline_that_answers_as_well_choose_nothing() -> None:
    # every line is Melanie's or Caroline's: their names say nothing about which one
    assert best_sentence("What did Melanie tell Caroline?", EXCHANGE, "", SPEAKERS) is None
    headline = "Caroline: How was the museum?"
    assert best_sentence("How was the museum?", EXCHANGE, headline, SPEAKERS) is None


def test_the_snippet_shown_holds_more_of_the_query_than_the_headline() -> None:
    content = (
        "Caroline: We drove to the lake on Saturday.\n"
        "Melanie: Saturday was busy for us, we had a long list of errands and chores and then, "
        "at the lake, at last, the fireworks."
    )
    headline = "Caroline: We drove to the lake on Saturday."
    shown = best_sentence("lake saturday fireworks", content, headline, SPEAKERS)
    assert shown is None or ("lake" in shown and "fireworks" in shown)
    shown = best_sentence("fireworks at the lake", content, headline, SPEAKERS)
    assert shown == "Melanie: …then, at the lake, at last, the fireworks."


def test_a_brief_line_is_the_users_sentence_about_the_query_in_eight_words() -> None:
    content = (
        "Caroline: Wow, that's so cool! I went to a support group yesterday and it was great. "
        "I'm keen on counseling or working in mental health, helping people like me.\n"
        "Melanie: Counseling would suit you so well, you are a great listener and a kind friend."
    )
    headline = "Caroline: I went to a support group yesterday and it was great."
    shown = brief_line("What does Caroline want to study? Counseling?", content, headline, SPEAKERS)
    assert shown == "Caroline: …keen on counseling or working in mental health…"
    assert len(shown.split()) == SNIPPET_WORDS + 1  # the speaker, then the snippet


def test_a_long_headline_is_cut_to_the_words_around_the_query() -> None:
    headline = "Caroline: Last weekend we finally drove up north to the lake house that my aunt…"
    content = headline.removesuffix("…") + " rents every summer."
    shown = brief_line("Where is the lake house?", content, headline, SPEAKERS)
    assert shown == "Caroline: …north to the lake house that my aunt…"
    assert brief_line("hello", content, headline, SPEAKERS).startswith("Caroline: Last weekend")
    short = "Caroline: We drove to the lake."
    assert brief_line("Where is the lake?", short, short, SPEAKERS) == short
