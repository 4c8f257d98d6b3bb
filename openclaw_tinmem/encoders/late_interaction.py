"""Late interaction: token-level (ColBERT-style MaxSim) relevance for re-ranking candidates.

A single vector per memory blurs a turn into one point; a cross-encoder reads every
(query, memory) pair but costs milliseconds per pair. Late interaction sits between: each
memory is encoded once, when it is written, into one small vector per token; at recall the
query is encoded once and each candidate scores

    relevance = mean over query tokens of (the best cosine with any of the memory's tokens)

which is a matrix product over a few thousand token vectors — about a millisecond for a
hundred candidates. Token vectors are stored with the memory, 128 bytes per token (see
``token_vectors``: the states projected onto 128 dimensions, as int8).

The encoder is the bundled ONNX model provisioned with the others (see provisioning.py); it
lacks ColBERT's own 384-to-96 projection layer, so its 384-dimensional token states are
projected by a fitted one (``token_vectors.projection``). Plain BERT inputs are used, without
ColBERT's query/document marker tokens or query padding: on the LoCoMo development split the
markers cut turn-level frac@10 from 77.7 to 43.0 with this export. As ColBERT does, the
vectors of punctuation tokens (no letter or digit in them) are dropped from memories and
queries alike once the model has read them: they carry little of their own, and a seventh of
the stored bytes (LoCoMo import 82.3 → 82.6 frac@10 without them). With
``late_interaction_function_words`` off, so are those of the function words
(``text.FUNCTION_WORDS``: "the", "of", "you" …, as whole tokens): a third of an exchange's
tokens and a quarter of the store, for a little recall (docs/benchmarks.md, "What a user
gets", its store). MaxSim takes any set of tokens, so vectors stored either way score against
queries encoded either way.

A memory written from a conversation can carry its *context*: the message before it, such as
the question a reply answers ("How often do you all work out?" — "Three times a week"). The
tail of the context is encoded in front of the memory, ``[CLS] context [SEP] memory [SEP]``,
so the memory's own token states are read in that light, and the context's token vectors are
stored too, scaled down by ``late_interaction_context_weight``: a query that matches only the
context scores a little below one that matches the memory itself.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from openclaw_tinmem.config import Settings
from openclaw_tinmem.encoders.dense import Matrix
from openclaw_tinmem.encoders.provisioning import LATE_INTERACTION
from openclaw_tinmem.encoders.runtime import SharedModels, model_path, session_options
from openclaw_tinmem.encoders.token_vectors import (
    TokenVectorCache,
    current,
    join,
    maxsim,
    pack,
    project,
    token_count,
)
from openclaw_tinmem.errors import ModelError
from openclaw_tinmem.models import Memory, context_tail
from openclaw_tinmem.text import FUNCTION_WORDS

logger = logging.getLogger("openclaw_tinmem")

ENCODE_BATCH_SIZE = 16
# A merged memory's joined token vectors (``LateInteraction.appended``) hold at most this many
# times the tokens one encoding reads; longer, the merged text is encoded (and truncated) anew.
APPENDED_TOKENS_FACTOR = 4


class TokenEncoder(Protocol):
    """What the late-interaction stage needs from an encoder."""

    def encode_documents(
        self, texts: Sequence[str], contexts: Sequence[str] | None = None
    ) -> list[bytes]: ...

    def encode_query(self, text: str) -> Matrix: ...


class LateInteractionEncoder:
    """Encodes texts into L2-normalised token vectors with the bundled ONNX model."""

    def __init__(self, settings: Settings) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        self.model_name = LATE_INTERACTION.name
        self.dimension = LATE_INTERACTION.dimension or 0
        directory = model_path(settings, LATE_INTERACTION)
        try:
            self._session = onnxruntime.InferenceSession(
                f"{directory}/model.onnx",
                session_options(settings.model_threads),
                providers=["CPUExecutionProvider"],
            )
            self._tokenizer = Tokenizer.from_file(f"{directory}/tokenizer.json")
        except Exception as error:  # onnxruntime and tokenizers raise their own error types
            raise ModelError(f"cannot load late-interaction model {directory}: {error}") from error
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()
        first = self._tokenizer.token_to_id("[CLS]")
        separator = self._tokenizer.token_to_id("[SEP]")
        if first is None or separator is None:
            raise ModelError(f"late-interaction tokenizer in {directory} lacks [CLS] or [SEP]")
        self._first, self._separator = first, separator
        self._kept = TokenFilter(
            self._tokenizer.get_vocab(), function_words=settings.late_interaction_function_words
        )
        self._max_tokens = settings.late_interaction_max_tokens
        self._context_tokens = settings.late_interaction_context_tokens
        self._context_weight = settings.late_interaction_context_weight
        self._input_names = {item.name for item in self._session.get_inputs()}

    def _sequences(
        self, texts: Sequence[str], contexts: Sequence[str] | None
    ) -> list[tuple[list[int], int]]:
        """Each text's input ids, and how many of them (after [CLS]) belong to its context."""
        pieces = self._tokenizer.encode_batch(list(texts), add_special_tokens=False)
        tails: list[list[int]] = [[] for _ in texts]
        if contexts is not None and self._context_tokens:
            context_pieces = self._tokenizer.encode_batch(list(contexts), add_special_tokens=False)
            tails = [piece.ids[-self._context_tokens :] for piece in context_pieces]
        sequences: list[tuple[list[int], int]] = []
        for piece, tail in zip(pieces, tails, strict=True):
            context = [*tail, self._separator] if tail else []
            own = piece.ids[: self._max_tokens - 2]
            sequences.append(([self._first, *context, *own, self._separator], len(context)))
        return sequences

    def states(self, texts: Sequence[str], contexts: Sequence[str] | None = None) -> list[Matrix]:
        """Normalised token states of each text (batched by similar length) but its
        punctuation's, before they are projected for storage; the states of context tokens
        come first, scaled by the context weight."""
        sequences = self._sequences(texts, contexts)
        results: list[Matrix] = [np.zeros((0, self.dimension), np.float32)] * len(texts)
        order = sorted(range(len(texts)), key=lambda index: len(sequences[index][0]))
        for start in range(0, len(order), ENCODE_BATCH_SIZE):
            batch = order[start : start + ENCODE_BATCH_SIZE]
            width = max(len(sequences[index][0]) for index in batch)
            ids = np.zeros((len(batch), width), dtype=np.int64)
            mask = np.zeros((len(batch), width), dtype=np.int64)
            for row, index in enumerate(batch):
                tokens = sequences[index][0]
                ids[row, : len(tokens)] = tokens
                mask[row, : len(tokens)] = 1
            feed: dict[str, Any] = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self._input_names:
                feed["token_type_ids"] = np.zeros_like(ids)
            states = self._session.run(None, feed)[0]
            for row, index in enumerate(batch):
                vectors = states[row, : int(mask[row].sum())].astype(np.float32)
                norms = np.linalg.norm(vectors, axis=1, keepdims=True)
                vectors = vectors / np.maximum(norms, 1e-12)
                context_length = sequences[index][1]
                vectors[1 : 1 + context_length] *= self._context_weight
                results[index] = vectors[self._kept(sequences[index][0])]
        return results

    def encode_documents(
        self, texts: Sequence[str], contexts: Sequence[str] | None = None
    ) -> list[bytes]:
        """Token vectors of each text (read after its context, when given), projected and
        int8-quantised, as bytes for storage."""
        if not texts:
            return []
        return [pack(project(vectors)) for vectors in self.states(texts, contexts)]

    def encode_query(self, text: str) -> Matrix:
        """The query's token vectors, projected as stored ones are, as floats."""
        return project(self.states([text])[0])


class TokenFilter:
    """Which tokens of a sequence keep their vectors: those with a letter or digit in any
    script (the special tokens, [CLS] and [SEP], have letters too); punctuation's are
    dropped, and without ``function_words`` so are the function words read whole ("the",
    "of", "you"), but not a word's first piece that is spelled like one ("it" of
    "it ##iner ##ary")."""

    def __init__(self, vocabulary: dict[str, int], *, function_words: bool = True) -> None:
        size = max(vocabulary.values(), default=-1) + 1
        self.words = np.zeros(size, dtype=bool)
        self.continuations = np.zeros(size, dtype=bool)
        for token, index in vocabulary.items():
            self.words[index] = any(character.isalnum() for character in token)
            self.continuations[index] = token.startswith("##")
        self.drops_function_words = not function_words
        self.function_words = np.zeros(size, dtype=bool)
        for word in FUNCTION_WORDS if self.drops_function_words else ():
            if word in vocabulary:
                self.function_words[vocabulary[word]] = True

    def __call__(self, ids: Sequence[int]) -> np.ndarray:
        """The positions of ``ids`` whose vectors are kept."""
        tokens = np.asarray(ids, dtype=np.int64)
        kept = self.words[tokens]
        if self.drops_function_words and len(tokens):
            continued = np.append(self.continuations[tokens[1:]], False)
            kept &= ~(self.function_words[tokens] & ~continued)
        return kept


_encoders = SharedModels(
    LateInteractionEncoder,
    key=lambda settings: (
        settings.model_dir,
        settings.model_threads,
        settings.late_interaction_max_tokens,
        settings.late_interaction_context_tokens,
        settings.late_interaction_context_weight,
        settings.late_interaction_function_words,
    ),
)


def shared_encoder(settings: Settings) -> LateInteractionEncoder:
    """One loaded encoder per model directory and options in a process."""
    return _encoders.get(settings)


class TokenRows(Protocol):
    """Where stored token vectors are read from (the memories table)."""

    def token_rows(self, memory_ids: Sequence[str]) -> list[dict[str, Any]]: ...


class LateInteraction:
    """The late-interaction stage: the encoder, the token-vector cache and MaxSim scoring.

    Memories are encoded here when they are written (the store keeps the bytes it is given)
    and scored here at recall. Without an encoder (the setting is off, or its model cannot be
    loaded) nothing is encoded and ``enabled`` is False: recall skips the stage.
    """

    def __init__(self, encoder: TokenEncoder | None, cache_bytes: int, max_tokens: int) -> None:
        self.encoder = encoder
        self.cache = TokenVectorCache(cache_bytes)
        self.max_tokens = max_tokens  # what one encoding of a memory reads

    @classmethod
    def from_settings(cls, settings: Settings) -> LateInteraction:
        """The stage with the shared encoder when ``late_interaction`` is on.

        A model that cannot be loaded (say, an offline machine provisioned by an older
        version) turns the stage off with a warning instead of failing: recall falls back to
        fusion and the cross-encoder, and ``tinmem doctor`` reports the model.
        """
        encoder: TokenEncoder | None = None
        if settings.late_interaction:
            try:
                encoder = shared_encoder(settings)
            except ModelError as error:
                logger.warning("late interaction is off for this process: %s", error.message)
        cache_bytes = int(settings.late_interaction_cache_megabytes * 2**20)
        return cls(encoder, cache_bytes, settings.late_interaction_max_tokens)

    @property
    def enabled(self) -> bool:
        return self.encoder is not None

    def encode(self, memories: Sequence[Memory]) -> list[bytes | None]:
        """Token vectors of memories (content read after context); Nones when disabled."""
        if self.encoder is None or not memories:
            return [None] * len(memories)
        contents = [memory.content for memory in memories]
        return list(self.encoder.encode_documents(contents, [m.context for m in memories]))

    def encode_query(self, text: str) -> Matrix:
        if self.encoder is None:
            raise ModelError("late interaction is disabled: no encoder")
        return self.encoder.encode_query(text)

    def written(self, memories: Sequence[Memory], tokens: Sequence[bytes | None]) -> None:
        """Cache what was just written: the next recall is likely to ask about it."""
        for memory, token in zip(memories, tokens, strict=True):
            if token:
                self.cache.put(self.cache.key(memory.id, memory.content, memory.context), token)

    def score(
        self, query_tokens: Matrix, memories: Sequence[Memory], source: TokenRows
    ) -> list[float]:
        """Token-level relevance in [0, 1] of each memory; those stored without token vectors
        (or changed since they were read) are encoded now."""
        if self.encoder is None:
            raise ModelError("late interaction is disabled: no encoder")
        stored = self.stored(memories, source)
        missing = [memory for memory in memories if memory.id not in stored]
        stored.update(zip([m.id for m in missing], self.encode(missing), strict=True))
        documents = [stored[memory.id] or b"" for memory in memories]
        scores = maxsim(query_tokens, documents)
        return [min(max(score, 0.0), 1.0) for score in scores]

    def appended(self, stored: bytes | None, line: bytes | None) -> bytes | None:
        """Token vectors of a memory with a line appended, without encoding it: its stored
        vectors followed by the line's (as encoded when it was captured, in its own context).
        MaxSim takes each query token's best match, so the joined memory scores at least
        what either part does, as a passage split in two would. None (encode the merged text
        instead) when either is missing or the join would exceed ``APPENDED_TOKENS_FACTOR``
        times the tokens one encoding reads."""
        if self.encoder is None or not stored or not line:
            return None
        joined = join(stored, line)
        return joined if token_count(joined) <= APPENDED_TOKENS_FACTOR * self.max_tokens else None

    def stored(self, memories: Sequence[Memory], source: TokenRows) -> dict[str, bytes | None]:
        """Token vectors of these memories as they are, from the cache where it has them."""
        cache = self.cache
        found: dict[str, bytes | None] = {}
        for memory in memories:
            cached = cache.get(cache.key(memory.id, memory.content, memory.context))
            if cached is not None:
                found[memory.id] = cached
        wanted = {memory.id: memory for memory in memories if memory.id not in found}
        for row in source.token_rows(list(wanted)):
            content, context = row["content"], context_tail(row["context"] or "")
            tokens = current(row["token_vectors"])  # an older store's projected once, here
            cache.put(cache.key(row["id"], content, context), tokens)
            memory = wanted[row["id"]]
            if (content, context) == (memory.content, memory.context):
                found[memory.id] = tokens  # else changed meanwhile: re-encoded
        return found
