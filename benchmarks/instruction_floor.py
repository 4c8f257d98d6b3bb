"""How close a message must be to a standing instruction's condition for the instruction to
be injected (``injection_instruction_min_similarity``), chosen with each conversation held out.

    python -m benchmarks.instruction_floor ../shared/bench/beam-dev.json

In each conversation, the standing instructions are the user's sentences the no-LLM capture
rules keep as instructions (``capture.rules``). For every question whose evidence is one of
them, the cosine of the question to that instruction's condition (``recall.instructions``)
is taken, and for every question of the next conversation (off-topic there) the highest
cosine to any of this conversation's conditions. For each floor the report gives the share of
the instructions' questions that would get their instruction and the share of off-topic
questions that would get one; then, with each conversation held out, the floor that the
others choose (the largest difference of the two shares) and what it does to the one held
out. ``--whole`` compares the whole instruction instead of its condition.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.common import save_results
from benchmarks.locomo_data import Conversation, load
from openclaw_tinmem.capture.rules import extract_by_rules
from openclaw_tinmem.config import Settings
from openclaw_tinmem.encoders.dense import FastEmbedEmbedder, Matrix
from openclaw_tinmem.models import INSTRUCTION_TAG
from openclaw_tinmem.recall.instructions import condition_of

FLOORS = tuple(round(0.58 + 0.01 * step, 2) for step in range(18))


@dataclass
class Closeness:
    """One conversation's cosines: its instructions' questions, and off-topic questions."""

    asked: list[float] = field(default_factory=list)
    off_topic: list[float] = field(default_factory=list)


def instructions_of(conversation: Conversation) -> dict[str, str]:
    """The conversation's standing instructions by the id of the message that gave them."""
    return {
        turn.dia_id: draft.content
        for turn in conversation.turns
        for draft in extract_by_rules(turn.text)
        if INSTRUCTION_TAG in draft.tags
    }


def closeness(
    conversations: list[Conversation], embedder: FastEmbedEmbedder, whole: bool
) -> list[Closeness]:
    def unit(vectors: Matrix) -> Matrix:
        return vectors / np.linalg.norm(vectors, axis=-1, keepdims=True)

    found = []
    for index, conversation in enumerate(conversations):
        result = Closeness()
        instructions = instructions_of(conversation)
        if instructions:
            texts = [text if whole else condition_of(text) for text in instructions.values()]
            vectors = unit(embedder.embed_documents(texts))
            ids = list(instructions)
            for question in conversation.questions:
                given = [ids.index(turn) for turn in question.evidence if turn in instructions]
                if question.category != 5 and given:
                    cosines = vectors @ unit(embedder.embed_query(question.text))
                    result.asked.append(float(cosines[given].max()))
            other = conversations[(index + 1) % len(conversations)]
            for question in other.questions:
                if question.category != 5 and other is not conversation:
                    cosines = vectors @ unit(embedder.embed_query(question.text))
                    result.off_topic.append(float(cosines.max()))
        found.append(result)
    return found


def shares(items: list[Closeness], floor: float) -> tuple[float | None, float | None]:
    asked = [value for item in items for value in item.asked]
    off_topic = [value for item in items for value in item.off_topic]

    def share(values: list[float]) -> float | None:
        return round(100 * float(np.mean(np.array(values) >= floor)), 1) if values else None

    return share(asked), share(off_topic)


def report(items: list[Closeness]) -> dict[str, Any]:
    by_floor = {}
    for floor in FLOORS:
        asked, off_topic = shares(items, floor)
        by_floor[str(floor)] = {"instruction_given": asked, "off_topic_given": off_topic}
    held_out = []
    for index, item in enumerate(items):
        others = [other for position, other in enumerate(items) if position != index]

        def gain(floor: float, others: list[Closeness] = others) -> float:
            asked, off_topic = shares(others, floor)
            return (asked or 0.0) - (off_topic or 0.0)

        chosen = max(FLOORS, key=gain)
        asked, off_topic = shares([item], chosen)
        held_out.append({"floor": chosen, "instruction_given": asked, "off_topic_given": off_topic})
    return {"by_floor": by_floor, "held_out": held_out}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("path", type=Path, help="a file in LoCoMo's format")
    parser.add_argument("--whole", action="store_true", help="the whole instruction")
    parser.add_argument(
        "--output", type=Path, default=Path("benchmarks/results/instruction_floor.json")
    )
    arguments = parser.parse_args()
    embedder = FastEmbedEmbedder(Settings.model_validate({"auto_provision": True}))
    result = report(closeness(load(arguments.path), embedder, arguments.whole))
    result.update(data=str(arguments.path), whole=arguments.whole)
    save_results(arguments.output, result)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
