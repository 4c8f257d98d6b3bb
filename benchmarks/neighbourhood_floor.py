"""How close a message's nearest memories must be for closeness to admit a memory
(``injection_min_neighbourhood``), chosen with each conversation held out.

    python -m benchmarks.neighbourhood_floor ../shared/bench/locomo-dev.json:swap \
        ../shared/bench/beam-dev.json:given --stores /tmp/neighbourhood

Each file's conversations are replayed through the plugin's hooks as ``locomo_e2e`` replays
them (``:swap`` or ``:given``, its ``--roles``) into a store kept under ``--stores`` (a store
already there is read again, not replayed). Then each question of a conversation, and each of
the next conversation's (off-topic there), is recalled as automatic recall does with the
floor off, keeping, for every memory that would be injected, whether the cross-encoder found
it relevant, its category and the evidence it covers, and the mean cosine of the message's
ten nearest memories. For each floor it reports, per benchmark, the evidence the memories
left would cover (before the token budget) and the share of off-topic messages left with
none; then, with each conversation held out, the highest floor that costs the others at most
``--max-loss`` points of coverage on either benchmark, and what it does to the one held out.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.progress import Progress

from benchmarks.e2e_report import Replay
from benchmarks.locomo_data import Conversation, load
from benchmarks.locomo_e2e import TimedHost, agent_of, replay
from openclaw_tinmem.config import Settings
from openclaw_tinmem.events import HookContext, Message, ToolRegistration
from openclaw_tinmem.plugin.hookimpls import TinmemPlugin
from openclaw_tinmem.plugin.host import load_plugins
from openclaw_tinmem.recall.pipeline import (
    NEIGHBOURHOOD_MIN_MEMORIES,
    about_something_stored,
    neighbourhood,
)
from openclaw_tinmem.recall.scoring import STANDING_KNOWLEDGE

FLOORS = (0.0, 0.58, 0.6, 0.61, 0.62, 0.63, 0.64, 0.65, 0.66, 0.68, 0.7)


@dataclass(frozen=True)
class Asked:
    """One message: the memories automatic recall would inject without the floor, as
    (evidence turns it names, admitted without closeness), how many evidence turns the
    message has, and its nearest memories' mean cosine."""

    benchmark: str
    conversation: str
    on_topic: bool
    memories: tuple[tuple[frozenset[str], bool], ...]
    evidence: int
    neighbourhood: float | None

    def left(self, floor: float) -> list[tuple[frozenset[str], bool]]:
        if about_something_stored(self.neighbourhood, floor):
            return list(self.memories)
        return [memory for memory in self.memories if memory[1]]


def store_for(path: Path, roles: str, root: Path) -> tuple[list[Conversation], TinmemPlugin]:
    """The file's conversations and a plugin over their replayed store (replayed once)."""
    conversations = load(path)
    directory = root / path.stem
    replayed = (directory / "db").exists()
    settings = Settings.model_validate(
        {
            "db_path": str(directory / "db"),
            "journal_path": str(directory / "journal"),
            "track_access": False,
            "auto_provision": True,
            "injection_min_neighbourhood": 0.0,
        }
    )
    plugin = TinmemPlugin(settings)
    if not replayed:
        replies: dict[str, Message | None] = {"next": None}

        def model(messages: Any, tools: list[ToolRegistration]) -> Message | str:
            return replies["next"] or ""

        host = TimedHost(load_plugins([plugin], entry_points=False), model)
        for conversation in conversations:
            replay(host, plugin, conversation, roles, replies, Replay())
    return conversations, plugin


def asked_of(
    plugin: TinmemPlugin, conversation: Conversation, question: str, evidence: list[str]
) -> tuple[tuple[tuple[frozenset[str], bool], ...], float | None]:
    service = plugin.service
    settings = plugin.settings
    ctx = HookContext(agent_id=agent_of(conversation), session_id="questions")
    hits = plugin.recall_for_prompt(question, ctx)
    memories = tuple(
        (
            frozenset(evidence) & set(hit.memory.provenance.message_ids),
            hit.relevance >= settings.injection_min_relevance
            or hit.memory.category in STANDING_KNOWLEDGE,
        )
        for hit in hits
    )
    vector = service.embedder.embed_query(question[: settings.max_query_characters])
    nearest = service.store.vector_search(
        vector, NEIGHBOURHOOD_MIN_MEMORIES, scopes=[f"agent:{agent_of(conversation)}"]
    )
    return memories, neighbourhood(nearest)  # as automatic recall judges it


def scores(asked: list[Asked], floor: float) -> tuple[float, float]:
    """(evidence covered %, off-topic messages left with nothing %)."""
    covered = [
        len(frozenset().union(*(named for named, _ in a.left(floor)))) / max(a.evidence, 1)
        for a in asked
        if a.on_topic
    ]
    silent = [not a.left(floor) for a in asked if not a.on_topic]
    return 100 * statistics.fmean(covered), 100 * statistics.fmean(silent)


def held_out(asked: list[Asked], max_loss: float) -> list[dict[str, Any]]:
    """For each conversation: the highest floor costing the others at most ``max_loss``
    points of coverage on each benchmark, and what it does to the one left out."""
    conversations = sorted({(a.benchmark, a.conversation) for a in asked})
    rows = []
    for benchmark, conversation in conversations:
        others = [a for a in asked if (a.benchmark, a.conversation) != (benchmark, conversation)]
        benchmarks = sorted({a.benchmark for a in others})

        def loss(floor: float, name: str, others: list[Asked] = others) -> float:
            these = [a for a in others if a.benchmark == name]
            return scores(these, 0.0)[0] - scores(these, floor)[0]

        chosen = max(f for f in FLOORS if all(loss(f, name) <= max_loss for name in benchmarks))
        this = [a for a in asked if (a.benchmark, a.conversation) == (benchmark, conversation)]
        (before_coverage, before_silence), (after_coverage, after_silence) = (
            scores(this, 0.0),
            scores(this, chosen),
        )
        rows.append(
            {
                "benchmark": benchmark,
                "conversation": conversation,
                "floor": chosen,
                "coverage": [round(before_coverage, 1), round(after_coverage, 1)],
                "silence": [round(before_silence, 1), round(after_silence, 1)],
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("data", nargs="+", help="FILE:swap or FILE:given")
    parser.add_argument("--stores", type=Path, default=None, help="keep the replayed stores here")
    parser.add_argument("--max-loss", type=float, default=1.0)
    parser.add_argument("--output", type=Path, default=None)
    arguments = parser.parse_args()
    root = arguments.stores or Path(tempfile.mkdtemp(prefix="tinmem-neighbourhood-"))
    asked: list[Asked] = []
    with Progress() as progress:
        for item in arguments.data:
            name, _, roles = item.partition(":")
            path = Path(name)
            conversations, plugin = store_for(path, roles or "swap", root)
            questions = [q for c in conversations for q in c.questions if q.category != 5]
            task = progress.add_task(path.stem, total=2 * len(questions))
            for index, conversation in enumerate(conversations):
                other = conversations[(index + 1) % len(conversations)]
                for source, on_topic in ((conversation, True), (other, False)):
                    for question in source.questions:
                        if question.category == 5:
                            continue
                        evidence = list(question.evidence) if on_topic else []
                        memories, near = asked_of(plugin, conversation, question.text, evidence)
                        sample = conversation.sample_id
                        asked.append(
                            Asked(path.stem, sample, on_topic, memories, len(evidence), near)
                        )
                        progress.advance(task)
            plugin.close()
    report: dict[str, Any] = {
        "floors": {
            str(floor): {
                name: [
                    round(v, 1) for v in scores([a for a in asked if a.benchmark == name], floor)
                ]
                for name in sorted({a.benchmark for a in asked})
            }
            for floor in FLOORS
        },
        "held_out": held_out(asked, arguments.max_loss),
    }
    if arguments.output:
        arguments.output.write_text(json.dumps(report, indent=2))
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
