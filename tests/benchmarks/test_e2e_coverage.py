from benchmarks.e2e_coverage import coverage, holds
from openclaw_tinmem.models import FOLDED_TAG, Category, Memory, Provenance

SAID = {
    "D1:1": "I finally finished restoring the old sailing boat in my garage.",
    "D1:2": "Nice!",
}


def memory(content: str, tags: list[str]) -> Memory:
    return Memory(
        category=Category.EVENTS,
        headline=content[:20],
        summary=content,
        content=content,
        tags=tags,
        provenance=Provenance(message_ids=("D1:1", "D1:2")),
    )


def test_a_text_holds_a_message_by_a_run_of_six_of_its_words_or_all_of_a_short_one() -> None:
    assert holds("Ines: restoring the OLD sailing boat, in my garage", SAID["D1:1"])
    assert not holds("Ines restored a sailing boat in her garage", SAID["D1:1"])
    assert holds("- [2023] Marek: Nice! — Ines: thanks", SAID["D1:2"])


def test_an_episode_counts_by_provenance_and_a_folded_session_by_what_was_shown() -> None:
    episode = memory("anything", ["episode"])
    assert coverage([episode], ["D1:1", "D1:2"], SAID, shown="") == 1.0
    session = memory(f"[2023-05-08 10:00] Ines: {SAID['D1:1']}", [FOLDED_TAG])
    assert coverage([session], ["D1:1"], SAID, shown=session.content) == 1.0
    assert coverage([session], ["D1:1"], SAID, shown="Conversation on 2023-05-08") == 0.0
