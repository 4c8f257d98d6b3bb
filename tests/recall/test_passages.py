from openclaw_tinmem.recall.passages import PASSAGE_WORDS, best_passage
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
