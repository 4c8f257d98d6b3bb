"""Fit the projection that stores late-interaction token vectors in fewer dimensions.

The bundled late-interaction encoder gives 384-dimensional token states (it lacks its own
384-to-96 projection layer). Nine tenths of a store would be those vectors, one int8 per
dimension. Token states of a language model are far from isotropic: a few hundred thousand
of them from conversational text lie mostly in a 128-dimensional subspace (about 94 % of their
squared length). This script finds that subspace — the leading right singular vectors of the
unit token states, uncentred, so the directions every state shares stay in it and cosines
are kept — and writes it as the (384, 128) matrix ``encoders.token_vectors`` projects with.

    python -m benchmarks.token_projection ../shared/bench/locomo-dev.json \
        ../shared/bench/beam-dev.json --output openclaw_tinmem/encoders/token_projection.npy

Each memory is encoded as the import benchmark writes it (the turn read after the turn before
it), from an equal random sample of turns of each file. The fit needs no labels; whether it
holds beyond the text it saw is measured by fitting on one split and scoring the other
(docs/benchmarks.md, "Store size").
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

import numpy as np

from benchmarks.locomo_data import load, preceding
from openclaw_tinmem.config import Settings
from openclaw_tinmem.encoders.late_interaction import shared_encoder
from openclaw_tinmem.encoders.token_vectors import TOKEN_DIMENSION

BATCH = 64


def sample_turns(path: Path, count: int, seed: int) -> list[tuple[str, str]]:
    """``count`` (memory text, context) pairs of one file, drawn at random."""
    pairs = [
        (turn.memory_text(), preceding(conversation, index))
        for conversation in load(path)
        for index, turn in enumerate(conversation.turns)
    ]
    random.Random(seed).shuffle(pairs)
    return pairs[:count]


def fit(
    pairs: list[tuple[str, str]], dimension: int, settings: Settings
) -> tuple[np.ndarray, float]:
    """The leading ``dimension`` right singular vectors of the pairs' unit token states, and
    the share of their squared length those keep."""
    encoder = shared_encoder(settings)
    gram = np.zeros((encoder.dimension, encoder.dimension))
    for start in range(0, len(pairs), BATCH):
        batch = pairs[start : start + BATCH]
        for states in encoder.states([text for text, _ in batch], [c for _, c in batch]):
            units = states / np.maximum(np.linalg.norm(states, axis=1, keepdims=True), 1e-12)
            gram += units.T.astype(np.float64) @ units
    values, vectors = np.linalg.eigh(gram)
    order = np.argsort(values)[::-1]
    kept = float(values[order[:dimension]].sum() / values.sum())
    return vectors[:, order[:dimension]].astype(np.float32), kept


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("paths", nargs="+", type=Path, help="files in LoCoMo's format")
    parser.add_argument("--turns", type=int, default=3000, help="turns sampled from each file")
    parser.add_argument("--dimension", type=int, default=TOKEN_DIMENSION)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", type=Path, required=True)
    arguments = parser.parse_args()
    pairs = [
        pair
        for path in arguments.paths
        for pair in sample_turns(path, arguments.turns, arguments.seed)
    ]
    basis, kept = fit(pairs, arguments.dimension, Settings())
    np.save(arguments.output, basis)
    print(f"{len(pairs)} turns; {arguments.dimension} dimensions keep {kept:.1%} of the states")


if __name__ == "__main__":
    main()
