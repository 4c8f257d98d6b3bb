import json

import lancedb
import numpy as np
import pyarrow as pa
import pytest

from openclaw_tinmem import maintenance
from openclaw_tinmem.cli.doctor import diagnose
from openclaw_tinmem.config import Settings
from openclaw_tinmem.encoders.dense import FastEmbedEmbedder
from openclaw_tinmem.encoders.late_interaction import LateInteractionEncoder, shared_encoder
from openclaw_tinmem.encoders.token_vectors import (
    FORMAT_MARKER,
    QUANTIZATION_SCALE,
    STATE_DIMENSION,
    TOKEN_DIMENSION,
    TokenVectorCache,
    current,
    dequantize,
    is_packed,
    join,
    maxsim,
    pack,
    project,
    projection,
    quantize,
    token_count,
)
from openclaw_tinmem.models import MAX_CONTEXT_CHARACTERS, Action, Category
from openclaw_tinmem.service import MemoryService, open_store
from openclaw_tinmem.store.schema import ADDED_FIELDS, memory_schema
from openclaw_tinmem.store.table import MemoryStore

DIMENSION = STATE_DIMENSION


@pytest.fixture(scope="module")
def encoder(model_settings: Settings) -> LateInteractionEncoder:
    return shared_encoder(model_settings)


def _unit(rows: int, seed: int) -> np.ndarray:
    vectors = np.random.default_rng(seed).standard_normal((rows, DIMENSION)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_quantisation_round_trip_is_within_half_a_step() -> None:
    vectors = _unit(5, seed=1)
    restored = dequantize(quantize(vectors), DIMENSION)
    assert restored.shape == vectors.shape
    assert np.abs(restored - vectors).max() <= 0.5 / QUANTIZATION_SCALE + 1e-6


def test_maxsim_is_the_mean_best_token_match() -> None:
    basis = np.eye(TOKEN_DIMENSION, dtype=np.float32)
    query = basis[[0, 1]]  # two query tokens
    both = pack(basis[[1, 0, 5]])  # every query token has an exact match
    one = pack(basis[[0, 7]])  # only the first has one; the second's best cosine is 0
    empty = b""
    assert maxsim(query, [both, one, empty]) == pytest.approx([1.0, 0.5, 0.0])
    assert maxsim(query, []) == []


def test_the_projection_is_orthonormal_and_keeps_each_vectors_length() -> None:
    matrix = projection()
    assert matrix.shape == (STATE_DIMENSION, TOKEN_DIMENSION)
    assert np.allclose(matrix.T @ matrix, np.eye(TOKEN_DIMENSION), atol=1e-4)
    states = _unit(4, seed=2) * np.array([[1.0], [0.85], [0.5], [1.0]], dtype=np.float32)
    projected = project(states)
    assert projected.shape == (4, TOKEN_DIMENSION)
    assert np.linalg.norm(projected, axis=1) == pytest.approx([1.0, 0.85, 0.5, 1.0], abs=1e-5)


def test_token_vectors_are_stored_in_a_third_of_the_unprojected_bytes(
    encoder: LateInteractionEncoder,
) -> None:
    (states,) = encoder.states([ANSWER])
    (document,) = encoder.encode_documents([ANSWER])
    assert is_packed(document) and document[:1] == FORMAT_MARKER
    assert len(document) == 1 + len(states) * TOKEN_DIMENSION == 1 + len(quantize(states)) // 3
    assert token_count(document) == len(states)


def test_an_older_stores_unprojected_vectors_are_read_in_the_projected_form(
    encoder: LateInteractionEncoder,
) -> None:
    """Stores written before the projection hold 384 int8 per token and no marker: read,
    they score as the same text written now does, and join with it."""
    texts = [ANSWER, "Melanie (8 May 2023): We went camping by the lake last weekend."]
    older = [quantize(states) for states in encoder.states(texts, [QUESTION, ""])]
    newer = encoder.encode_documents(texts, [QUESTION, ""])
    assert not any(is_packed(document) for document in older)
    assert all(is_packed(current(document)) for document in older)
    assert [current(document) for document in newer] == newer
    query = encoder.encode_query("How often does John work out with his family?")
    assert maxsim(query, older) == pytest.approx(maxsim(query, newer), abs=0.01)
    joined = join(older[0], newer[1])
    assert is_packed(joined) and token_count(joined) == sum(map(token_count, newer))
    assert join(b"", newer[1]) == newer[1]


def test_the_encoder_prefers_the_memory_that_answers(encoder: LateInteractionEncoder) -> None:
    documents = encoder.encode_documents(
        [
            "Caroline (8 May 2023): I have been learning to play the violin since spring.",
            "Melanie (8 May 2023): We went camping by the lake with the kids last weekend.",
        ]
    )
    assert all(is_packed(document) for document in documents)
    query = encoder.encode_query("What instrument does Caroline play?")
    assert query.shape[1] == TOKEN_DIMENSION
    assert np.allclose(np.linalg.norm(query, axis=1), 1.0, atol=1e-5)
    violin, camping = maxsim(query, documents)
    assert violin > camping


def test_long_texts_are_truncated_to_the_token_cap(model_settings: Settings) -> None:
    capped = LateInteractionEncoder(
        model_settings.model_copy(update={"late_interaction_max_tokens": 16})
    )
    (document,) = capped.encode_documents(["word " * 500])
    assert token_count(document) == 16


def stored_tokens(store: MemoryStore, memory_ids: list[str]) -> dict[str, bytes]:
    """The token vectors the table holds for these memories (those that have any)."""
    return {row["id"]: row["token_vectors"] for row in store.token_rows(memory_ids)}


def test_writes_store_token_vectors_only_with_an_encoder(
    settings: Settings, embedder: FastEmbedEmbedder, service: MemoryService
) -> None:
    stored = service.remember("The staging database runs on port 5433", Category.ENTITIES).memory
    assert is_packed(stored_tokens(service.store, [stored.id])[stored.id])
    plain = MemoryStore(settings, model_name=embedder.model_name, dimension=embedder.dimension)
    off = settings.model_copy(update={"late_interaction": False})
    other = MemoryService(off, plain, embedder)
    assert not other.late_interaction.enabled
    written = other.remember("Backups run nightly at 02:00", Category.PATTERNS).memory
    assert stored_tokens(plain, [written.id]) == {}
    other.close()


def test_recall_relevance_is_the_late_interaction_score(
    settings: Settings,
    make_service,
    encoder: LateInteractionEncoder,  # type: ignore[no-untyped-def]
) -> None:
    # episodes off: these memories, written together, would share one episode's relevance
    service = make_service(settings.model_copy(update={"rerank": False, "episode_weight": 0.0}))
    for text in (
        "Caroline is learning to play the violin",
        "Melanie went camping by the lake",
        "The team ships releases on Thursdays",
    ):
        service.remember(text, Category.EVENTS)
    query = "what instrument is Caroline learning"
    hits = service.recall(query)
    expected = maxsim(
        encoder.encode_query(query),
        encoder.encode_documents([hit.memory.content for hit in hits]),
    )
    assert [hit.relevance for hit in hits] == pytest.approx(expected, abs=0.01)
    assert hits[0].memory.content.startswith("Caroline")


def test_memories_without_token_vectors_are_encoded_at_recall(
    settings: Settings,
    embedder: FastEmbedEmbedder,
    make_service,  # type: ignore[no-untyped-def]
) -> None:
    plain = MemoryStore(settings, model_name=embedder.model_name, dimension=embedder.dimension)
    off = settings.model_copy(update={"late_interaction": False})
    writer = MemoryService(off, plain, embedder)  # as an older version, or with the setting off
    for text in ("Caroline is learning to play the violin", "Melanie went camping by the lake"):
        writer.remember(text, Category.EVENTS)
    writer.close()
    reader = make_service(settings.model_copy(update={"rerank": False}))
    assert stored_tokens(reader.store, [m.id for m in reader.store.list_memories()]) == {}
    hits = reader.recall("what instrument is Caroline learning")
    assert hits[0].memory.content.startswith("Caroline") and hits[0].relevance > 0.3
    doctor = diagnose(
        None, overrides={"db_path": settings.db_path, "model_dir": settings.model_dir}
    )
    store_check = next(check for check in doctor["checks"] if check["name"] == "store")
    assert "2 memories have no token vectors" in store_check["detail"]
    assert maintenance.reembed(reader) == 2  # reembed fills the token vectors in
    assert maintenance.statistics(reader.store)["without_token_vectors"] == 0
    assert len(stored_tokens(reader.store, [m.id for m in reader.store.list_memories()])) == 2


def test_a_table_from_an_older_version_gains_the_new_columns(
    settings: Settings,
    embedder: FastEmbedEmbedder,
    make_service,  # type: ignore[no-untyped-def]
) -> None:
    current = memory_schema(embedder.model_name, embedder.dimension)
    added = {field.name for field in ADDED_FIELDS}
    old = pa.schema(
        [field for field in current if field.name not in added], metadata=current.metadata
    )
    database = lancedb.connect(settings.resolved_db_path())
    database.create_table(settings.table_name, schema=old)
    service = make_service(settings)
    assert added <= set(service.store.table.schema.names)
    memory = service.remember("The office moved to Lisbon", Category.EVENTS).memory
    assert service.recall("where is the office")[0].memory.id == memory.id


def test_a_missing_late_interaction_model_turns_it_off_instead_of_failing(
    settings: Settings,
    embedder: FastEmbedEmbedder,
    tmp_path,
    caplog,  # type: ignore[no-untyped-def]
) -> None:
    empty = settings.model_copy(
        update={"model_dir": str(tmp_path / "no-models"), "auto_provision": False}
    )
    store = open_store(empty, embedder)
    service = MemoryService(empty.model_copy(update={"rerank": False}), store, embedder)
    assert not service.late_interaction.enabled
    assert "late interaction is off" in caplog.text
    memory = service.remember("The office moved to Lisbon", Category.EVENTS).memory
    assert service.recall("where is the office")[0].memory.id == memory.id
    service.close()


def test_the_token_vector_cache_keeps_the_most_recent_within_its_capacity() -> None:
    cache = TokenVectorCache(capacity=10)
    first, second, third = (cache.key(name, "content", "") for name in ("a", "b", "c"))
    cache.put(first, b"1234")
    cache.put(second, b"5678")
    assert cache.get(first) == b"1234"  # now the most recent
    cache.put(third, b"90ab")  # over capacity: the least recently used goes
    assert (cache.get(first), cache.get(second), cache.get(third)) == (b"1234", None, b"90ab")
    assert cache.size == 8
    cache.put(cache.key("d", "content", ""), b"x" * 11)  # larger than the whole cache
    assert cache.size == 8 and cache.get(cache.key("a", "other content", "")) is None
    cache.clear()
    assert cache.size == 0 and cache.get(first) is None


def test_cached_token_vectors_follow_edits_made_by_any_writer(
    settings: Settings,
    make_service,
    encoder: LateInteractionEncoder,  # type: ignore[no-untyped-def]
) -> None:
    options = {"rerank": False, "read_consistency_seconds": 0, "episode_weight": 0.0}
    reader = make_service(settings.model_copy(update=options))
    writer = make_service(settings)  # another store on the same table, as another process
    memory = writer.remember("Caroline is learning to play the violin", Category.EVENTS).memory
    writer.remember("Melanie went camping by the lake", Category.EVENTS)
    query = "what instrument is Caroline learning"
    cache = writer.late_interaction.cache
    written = cache.get(cache.key(memory.id, memory.content, memory.context))
    assert written == stored_tokens(writer.store, [memory.id])[memory.id]  # cached as written
    reader.recall(query)
    assert reader.late_interaction.cache.size > 0
    edited = "Caroline switched from the violin to the cello last spring"
    writer.update(memory.id, content=edited)
    hit = next(hit for hit in reader.recall(query) if hit.memory.id == memory.id)
    expected = maxsim(encoder.encode_query(query), encoder.encode_documents([edited]))
    assert hit.memory.content == edited and hit.relevance == pytest.approx(expected[0], abs=0.01)
    off = make_service(settings.model_copy(update={"late_interaction_cache_megabytes": 0}))
    off.recall(query)
    assert off.late_interaction.cache.size == 0


def test_updating_content_re_encodes_its_token_vectors(
    service: MemoryService, encoder: LateInteractionEncoder
) -> None:
    memory = service.remember("The standup is at nine", Category.PATTERNS).memory
    before = stored_tokens(service.store, [memory.id])[memory.id]
    service.update(memory.id, importance=0.9)  # content unchanged: same token vectors
    assert stored_tokens(service.store, [memory.id])[memory.id] == before
    service.update(memory.id, content="The standup moved to half past ten on Mondays")
    after = stored_tokens(service.store, [memory.id])[memory.id]
    assert after != before
    assert after == encoder.encode_documents(["The standup moved to half past ten on Mondays"])[0]


def test_a_merge_by_the_rules_joins_token_vectors_instead_of_encoding(
    service: MemoryService, encoder: LateInteractionEncoder
) -> None:
    first = service.remember("I prefer dark mode in every editor", Category.PREFERENCES).memory
    before = stored_tokens(service.store, [first.id])[first.id]
    line = "I prefer dark mode in all my editors and terminals"
    merged = service.remember(line, Category.PREFERENCES)
    assert merged.action is Action.MERGED and merged.target_id == first.id
    assert service.get(first.id).content.split("\n") == [first.content, line]
    stored = stored_tokens(service.store, [first.id])[first.id]
    assert stored == join(before, encoder.encode_documents([line])[0])
    # the appended line is scored as if it stood alone: each query token's best match
    query = encoder.encode_query("terminals")
    alone = maxsim(query, encoder.encode_documents([line]))[0]
    hit = next(h for h in service.recall("terminals", rerank=False) if h.memory.id == first.id)
    assert hit.relevance >= alone - 0.01
    again = service.remember(line, Category.PREFERENCES)  # already contained: nothing appended
    assert again.target_id == first.id
    assert stored_tokens(service.store, [first.id])[first.id] == stored
    created = service.remember("The release train leaves on Thursdays", Category.PATTERNS).memory
    assert (
        stored_tokens(service.store, [created.id])[created.id]
        == (encoder.encode_documents([created.content])[0])
    )


# --------------------------------------------------------------- conversational context

ANSWER = "John (4 May 2023): Three times a week; it keeps us on track."
QUESTION = "Maria (4 May 2023): Great news! How often do you all work out together as a family?"


def is_word(token: str) -> bool:
    return any(character.isalnum() for character in token)


def words(encoder: LateInteractionEncoder, text: str, special_tokens: bool = True) -> int:
    """How many of the text's tokens are not punctuation (with [CLS] and [SEP], if asked)."""
    tokens = encoder._tokenizer.encode(text, add_special_tokens=special_tokens).tokens
    return sum(map(is_word, tokens))


def test_punctuation_is_read_but_not_kept(encoder: LateInteractionEncoder) -> None:
    """Punctuation's vectors are dropped, from memories and queries alike; every other token
    keeps one, in any script."""
    (document,) = encoder.encode_documents(["Well... hello, world!"])
    assert token_count(document) == 5  # [CLS] well hello world [SEP]
    assert len(encoder.encode_query("hello, world?")) == 4
    japanese = "東京に住んでいます"
    (kept,) = encoder.encode_documents([japanese])
    assert token_count(kept) == len(encoder._tokenizer.encode(japanese).ids) > 2
    (bare,) = encoder.encode_documents(["?!"])
    assert token_count(bare) == 2  # [CLS] [SEP]: never empty


def test_function_words_are_kept_unless_turned_off(
    encoder: LateInteractionEncoder, model_settings: Settings
) -> None:
    """Off, the function words' vectors are dropped from memories and queries alike; a word
    that only starts like one ("itinerary") keeps its pieces; what either encoder stored
    scores against the other's queries."""
    text = "The itinerary of our trip to Lisbon is in the folder"
    (full,) = encoder.encode_documents([text])
    lean_encoder = LateInteractionEncoder(
        model_settings.model_copy(update={"late_interaction_function_words": False})
    )
    (lean,) = lean_encoder.encode_documents([text])
    pieces = encoder._tokenizer.encode(text).tokens
    dropped = [token for token in pieces if token in {"the", "of", "our", "to", "is", "in"}]
    assert len(dropped) == 7
    assert token_count(lean) == token_count(full) - len(dropped)
    assert len(lean_encoder.encode_query("the trip to Lisbon")) == 4  # [CLS] trip lisbon [SEP]
    query = lean_encoder.encode_query("Where is the Lisbon itinerary?")
    assert maxsim(query, [full, lean])[0] >= maxsim(query, [lean])[0] > 0.5


def test_without_context_a_memory_is_encoded_as_plain_bert_input(
    encoder: LateInteractionEncoder,
) -> None:
    count = words(encoder, ANSWER)  # [CLS] ... [SEP]
    plain, empty_context = encoder.encode_documents([ANSWER, ANSWER], ["", ""])
    assert plain == encoder.encode_documents([ANSWER])[0] == empty_context
    assert token_count(plain) == count


def test_context_is_encoded_first_and_weighted_down(model_settings: Settings) -> None:
    settings = model_settings.model_copy(update={"late_interaction_context_weight": 0.5})
    encoder = LateInteractionEncoder(settings)
    context_count = words(encoder, QUESTION, special_tokens=False)
    (document,) = encoder.encode_documents([ANSWER], [QUESTION])
    norms = np.linalg.norm(dequantize(document[1:], TOKEN_DIMENSION), axis=1)
    own_count = words(encoder, ANSWER)
    assert len(norms) == own_count + context_count + 1  # the context ends with its own [SEP]
    assert norms[0] == pytest.approx(1.0, abs=0.01)  # [CLS]
    assert np.allclose(norms[1 : 2 + context_count], 0.5, atol=0.01)
    assert np.allclose(norms[2 + context_count :], 1.0, atol=0.01)


def test_only_the_end_of_a_long_context_is_encoded(model_settings: Settings) -> None:
    settings = model_settings.model_copy(update={"late_interaction_context_tokens": 8})
    encoder = LateInteractionEncoder(settings)
    (document,) = encoder.encode_documents([ANSWER], ["word " * 300 + QUESTION])
    own_count = words(encoder, ANSWER)
    tail = encoder._tokenizer.encode(QUESTION, add_special_tokens=False).tokens[-8:]
    tail_words = sum(map(is_word, tail))  # "family" but "?"
    assert token_count(document) == own_count + tail_words + 1
    off = LateInteractionEncoder(
        model_settings.model_copy(update={"late_interaction_context_tokens": 0})
    )
    assert off.encode_documents([ANSWER], [QUESTION]) == off.encode_documents([ANSWER])


def test_the_context_lets_a_terse_reply_answer_the_question(
    encoder: LateInteractionEncoder,
) -> None:
    distractor = "John (4 May 2023): Work has been busy, I often stay late at the office."
    query = encoder.encode_query("How often does John work out with his family?")
    bare, with_context, other = encoder.encode_documents(
        [ANSWER, ANSWER, distractor], ["", QUESTION, ""]
    )
    bare_score, context_score, other_score = maxsim(query, [bare, with_context, other])
    assert context_score > bare_score
    assert context_score > other_score


def test_context_is_stored_with_the_memory_and_used_on_every_encode(
    service: MemoryService, encoder: LateInteractionEncoder
) -> None:
    (line,) = [
        json.dumps({"content": ANSWER, "category": "events", "context": QUESTION}),
    ]
    maintenance.import_memories(service, [line])
    (memory,) = service.store.list_memories()
    assert memory.context == QUESTION
    expected = encoder.encode_documents([ANSWER], [QUESTION])[0]
    assert stored_tokens(service.store, [memory.id])[memory.id] == expected
    maintenance.reembed(service)  # re-encoding keeps reading the content after its context
    assert stored_tokens(service.store, [memory.id])[memory.id] == expected
    service.update(memory.id, content=ANSWER + " Mostly on weekends.")
    updated = stored_tokens(service.store, [memory.id])[memory.id]
    assert updated == encoder.encode_documents([ANSWER + " Mostly on weekends."], [QUESTION])[0]
    hits = service.recall("How often does John work out with his family?")
    assert hits[0].memory.id == memory.id and hits[0].memory.context == QUESTION


def test_a_long_context_read_back_is_the_one_stored_so_its_token_vectors_are_not_re_encoded(
    settings: Settings,
    make_service,  # type: ignore[no-untyped-def]
) -> None:
    long_reply = "Here is the plan: " + " ".join(["step"] * 1000)
    assert long_reply[-MAX_CONTEXT_CHARACTERS] == " "  # the tail kept starts with a space
    service = make_service(settings.model_copy(update={"late_interaction_cache_megabytes": 0}))
    line = json.dumps({"content": ANSWER, "category": "events", "context": long_reply})
    maintenance.import_memories(service, [line])
    (memory,) = service.store.list_memories()
    assert memory.context == long_reply[-MAX_CONTEXT_CHARACTERS:].strip()
    # read from the table, the memory is the one written: its token vectors are used as stored
    assert set(service.late_interaction.stored([memory], service.store)) == {memory.id}
    # a store written before contexts were cut then stripped: the tail kept its leading space
    table = lancedb.connect(settings.resolved_db_path()).open_table(settings.table_name)
    table.update(where=f"id = '{memory.id}'", values={"context": " " + memory.context})
    reader = make_service(settings.model_copy(update={"late_interaction_cache_megabytes": 0}))
    (older,) = reader.store.list_memories()
    assert set(reader.late_interaction.stored([older], reader.store)) == {memory.id}
