import pytest

from openclaw_tinmem.text import (
    clip_words,
    is_small_talk,
    quoted,
    split_sentences,
    terminal_safe,
)


@pytest.mark.parametrize(
    "text", ["hi", "Hello there!", "thanks so much", "ok", "Got it.", "good morning"]
)
def test_small_talk_is_detected(text: str) -> None:
    assert is_small_talk(text)


@pytest.mark.parametrize(
    "text",
    [
        "hi, what database did we pick?",
        "thanks — also, I moved to Berlin",
        "okay so the deploy failed",
    ],
)
def test_real_questions_are_not_small_talk(text: str) -> None:
    assert not is_small_talk(text)


def test_sentences_split_on_punctuation_and_line_breaks() -> None:
    assert split_sentences("One. Two! three\nFour?") == ["One.", "Two! three", "Four?"]


def test_clip_words_folds_whitespace_and_cuts_after_the_limit_without_dangling_punctuation():
    assert clip_words("one  two\nthree", 3) == "one two three"
    assert clip_words("one two, three four", 2) == "one two…"
    assert clip_words("a b c d", 3) == "a b c…"
    assert clip_words("", 3) == ""


def test_an_echoed_value_is_cut_to_its_head_and_length() -> None:
    assert quoted("short") == "'short'"
    assert quoted(3) == "3"
    assert quoted("x" * 81) == "'" + "x" * 80 + "'… (81 characters)"


def test_terminal_codes_are_written_out_and_other_text_kept() -> None:
    assert terminal_safe("a\x1b[31mb\x07\u202ec\rd") == "a\\x1b[31mb\\x07\\u202ec\\x0dd"
    kept = "line\n\tnext 👩\u200d💻 soft\u00adhyphen \u200fmark 🏴\U000e0067\U000e007f"
    assert terminal_safe(kept) == kept
    assert terminal_safe("crlf\r\nline") == "crlf\nline"
