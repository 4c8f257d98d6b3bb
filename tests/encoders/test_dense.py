"""The cross-encoder behind the Reranker protocol: real provisioned model, real threads."""

from __future__ import annotations

import pytest

from openclaw_tinmem.config import Settings
from openclaw_tinmem.encoders.cross_encoder import FastEmbedReranker
from openclaw_tinmem.encoders.dense import FastEmbedEmbedder
from openclaw_tinmem.encoders.runtime import usable_cores

QUERY = "How often does John work out with his family?"
DOCUMENTS = [
    "Maria adopted a rescue dog named Coco last spring.",
    "John: Three times a week, usually on Saturday mornings at the park with the kids. "
    "(in reply to: how often do you all work out together?)",
    "The quarterly report is due on Friday.",
    "John said his family goes to the gym together three times a week.",
    "Tim is reading a fantasy series set in a school of magic.",
]


@pytest.fixture(scope="module")
def one_worker(model_settings: Settings) -> FastEmbedReranker:
    return FastEmbedReranker(model_settings.model_copy(update={"model_threads": 1}))


@pytest.fixture(scope="module")
def two_workers(model_settings: Settings) -> FastEmbedReranker:
    return FastEmbedReranker(model_settings.model_copy(update={"model_threads": 2}))


def test_scores_come_back_in_the_order_of_the_documents(
    one_worker: FastEmbedReranker, two_workers: FastEmbedReranker
) -> None:
    assert two_workers.workers == 2
    alone = one_worker.score(QUERY, DOCUMENTS)
    parallel = two_workers.score(QUERY, DOCUMENTS)
    assert parallel == pytest.approx(alone, abs=1e-4)
    reversed_scores = two_workers.score(QUERY, DOCUMENTS[::-1])
    assert reversed_scores[::-1] == pytest.approx(alone, abs=1e-4)


def test_the_relevant_documents_score_highest(two_workers: FastEmbedReranker) -> None:
    scores = two_workers.score(QUERY, DOCUMENTS)
    best_two = sorted(range(len(DOCUMENTS)), key=lambda index: -scores[index])[:2]
    assert sorted(best_two) == [1, 3]


def test_pairs_of_different_queries_score_as_each_query_alone(
    two_workers: FastEmbedReranker,
) -> None:
    other = "Who adopted a dog?"
    pairs = [(QUERY if index % 2 else other, document) for index, document in enumerate(DOCUMENTS)]
    expected = [two_workers.score(query, [document])[0] for query, document in pairs]
    assert two_workers.score_pairs(pairs) == pytest.approx(expected, abs=1e-4)
    assert two_workers.score_pairs([]) == []


def test_nothing_to_score(two_workers: FastEmbedReranker) -> None:
    assert two_workers.score(QUERY, []) == []
    assert len(two_workers.score(QUERY, DOCUMENTS[:1])) == 1


def test_pairs_are_read_up_to_rerank_max_tokens(model_settings: Settings) -> None:
    short = FastEmbedReranker(model_settings.model_copy(update={"rerank_max_tokens": 16}))
    padding = "The weather was mild and nothing much happened that day. " * 4
    buried = padding + "John works out with his family three times a week."
    # Beyond 16 tokens the answer is cut off: the pair reads like the padding alone.
    assert short.score(QUERY, [buried])[0] == pytest.approx(
        short.score(QUERY, [padding])[0], abs=1e-4
    )


def test_bundled_models_run_on_our_sessions(
    embedder: FastEmbedEmbedder, two_workers: FastEmbedReranker
) -> None:
    """Loaded lazily by fastembed, then given one session each: no spinning, one load."""
    for wrapper in (embedder._model, two_workers._model):
        options = wrapper.model.model.get_session_options()
        assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    assert two_workers._model.model.model.get_session_options().intra_op_num_threads == 1
    assert embedder.embed_query("green tea").shape == (embedder.dimension,)


def test_one_cross_encoder_worker_per_usable_core_by_default(model_settings: Settings) -> None:
    reranker = FastEmbedReranker(model_settings.model_copy(update={"model_threads": None}))
    assert reranker.workers == usable_cores() >= 1
