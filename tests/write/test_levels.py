from openclaw_tinmem.write.levels import HEADLINE_MAX_WORDS, headline, split_sentences, summary


def test_headline_is_the_first_sentence_within_the_word_limit() -> None:
    text = "I moved to Berlin in May. I work at a robotics startup."
    assert headline(text) == "I moved to Berlin in May."
    long = " ".join(f"word{i}" for i in range(40))
    assert len(headline(long).split()) == HEADLINE_MAX_WORDS
    assert headline(long).endswith("…")


def test_summary_keeps_up_to_four_sentences() -> None:
    text = "One. Two. Three. Four. Five."
    assert summary(text) == "One. Two. Three. Four."
    assert split_sentences("a line\nanother line") == ["a line", "another line"]


def test_a_summary_of_lines_without_full_stops_keeps_them_apart() -> None:
    merged = "User is a backend engineer at Acme\nUser lives in Berlin\nUser has two kids"
    assert summary(merged) == (
        "User is a backend engineer at Acme. User lives in Berlin. User has two kids"
    )
    assert (
        summary("Hi there! We met in Porto\nIt rained.") == "Hi there! We met in Porto. It rained."
    )
