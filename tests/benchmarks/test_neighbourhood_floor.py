from benchmarks.neighbourhood_floor import Asked, held_out, scores

A, B = frozenset({"D1:1"}), frozenset({"D1:2"})


def asked(benchmark: str, conversation: str) -> list[Asked]:
    return [
        # on topic, close neighbours: the evidence found by closeness stays
        Asked(benchmark, conversation, True, ((A, False), (B, True)), 2, 0.7),
        # on topic, but its neighbours are far: only what was judged relevant stays
        Asked(benchmark, conversation, True, ((A, False), (B, True)), 2, 0.6),
        # off topic: one memory admitted by closeness alone
        Asked(benchmark, conversation, False, ((frozenset(), False),), 0, 0.6),
    ]


def test_a_floor_keeps_what_was_judged_relevant_and_quiets_far_messages() -> None:
    rows = asked("beam", "c1")
    assert scores(rows, 0.0) == (100.0, 0.0)
    assert scores(rows, 0.65) == (75.0, 100.0)
    assert scores(rows, 0.75) == (50.0, 100.0)


def test_held_out_the_floor_is_the_highest_the_others_allow() -> None:
    rows = asked("beam", "c1") + asked("beam", "c2") + asked("locomo", "c3")
    chosen = held_out(rows, max_loss=30.0)
    assert [row["floor"] for row in chosen] == [0.7, 0.7, 0.7]
    assert chosen[0]["coverage"] == [100.0, 75.0] and chosen[0]["silence"] == [0.0, 100.0]
    assert all(row["floor"] == 0.6 for row in held_out(rows, max_loss=10.0))  # costs nothing
