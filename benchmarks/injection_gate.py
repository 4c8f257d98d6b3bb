"""Automatic recall's relevance floor: what it keeps of the relevant and drops of the rest.

Recall always returns its best few memories, whether or not any of them is related to the
message. Before each turn the plugin injects only those that share words with the message
or whose embedding is at least ``injection_min_similarity`` close to it
(``openclaw_tinmem.recall.scoring.is_related``). This script measures that floor two ways,
each at several floors in one run:

``locomo``: every turn of each conversation stored as the LoCoMo harness stores it. Each
question (categories 1–4) is recalled with the plugin's limit (``injection_limit``) against
its own conversation, where its evidence is, and against the next conversation, where it
is not. Reported: the share of evidence turns among the recalled that pass the floor, and
how many memories pass it per question in either case.

``assistant``: a dozen memories of the kind an assistant keeps (preferences, projects, a
fix that worked), then messages about them and messages about nothing stored. Reported:
the share of related messages whose memory passes, and of unrelated ones that get nothing.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.progress import Progress

from benchmarks.common import save_results
from benchmarks.locomo import ingest
from benchmarks.locomo_data import Conversation, load
from openclaw_tinmem.config import Settings
from openclaw_tinmem.models import Category, Hit
from openclaw_tinmem.recall.scoring import is_related
from openclaw_tinmem.service import MemoryService

DEFAULT_FLOORS = (0.0, 0.5, 0.55, 0.6, 0.65)
SCOPE = "user:bench"

ASSISTANT_MEMORIES = (
    ("Alice works at Acme as a data engineer", Category.PROFILE),
    (
        "The staging deploy failed because the DATABASE_URL secret was missing; adding it to the "
        "CI environment fixed it",
        Category.CASES,
    ),
    ("User's dog is called Biscuit, a beagle", Category.ENTITIES),
    ("User prefers pytest over unittest and likes type hints everywhere", Category.PREFERENCES),
    ("User wants answers short, with code first and explanation after", Category.PREFERENCES),
    ("TaskFlow is the user's SaaS project: Next.js 14, PostgreSQL with Prisma", Category.ENTITIES),
    ("Decided on 2026-03-02 to move the billing service from Heroku to Fly.io", Category.EVENTS),
    (
        "Before each release the user runs the migration on a copy of production first",
        Category.PATTERNS,
    ),
    ("User lives in Lisbon and works remotely, UTC+0", Category.PROFILE),
    ("User dislikes ORMs for reporting queries and writes raw SQL there", Category.PREFERENCES),
    (
        "Flaky Playwright tests were fixed by waiting for network idle instead of fixed sleeps",
        Category.CASES,
    ),
    ("Marco is the user's co-founder and handles sales", Category.ENTITIES),
)
# Each related message names the index of the memory it is about.
RELATED_MESSAGES = (
    ("Where does Alice work?", 0),
    ("Why did the deploy fail?", 1),
    ("What is my dog's name?", 2),
    ("Which test framework should we use?", 3),
    ("How should you format your replies?", 4),
    ("What stack does TaskFlow use?", 5),
    ("Where is billing hosted now?", 6),
    ("What do we do before a release?", 7),
    ("What timezone am I in?", 8),
    ("Should I use Prisma for the monthly revenue report?", 9),
    ("My end-to-end tests are flaky again", 10),
    ("Who handles sales?", 11),
    ("Can you write a unit test for this parser?", 3),
    ("Set up the CI pipeline for the new repo", 1),
)
UNRELATED_MESSAGES = (
    "How do I bake sourdough bread?",
    "What's the capital of France?",
    "Explain quantum entanglement simply",
    "Translate 'good morning' into Japanese",
    "What is 17 times 23?",
    "Recommend a good science fiction novel",
    "How tall is Mount Everest?",
    "Write a haiku about autumn",
    "What causes rainbows?",
    "Convert 5 miles to kilometres",
)


@dataclass(frozen=True)
class Recalled:
    """One message's recalled memories and which of them it is about."""

    relevant: frozenset[str]
    hits: tuple[Hit, ...]

    def passing(self, floor: float) -> list[Hit]:
        return [hit for hit in self.hits if is_related(hit, floor)]


def locomo_summary(
    own: Sequence[Recalled], other: Sequence[Recalled], floor: float
) -> dict[str, Any]:
    """Evidence kept against its own conversation; what passes against another one."""
    own_passing = [item.passing(floor) for item in own]
    other_counts = [len(item.passing(floor)) for item in other]
    recalled_evidence = sum(
        1 for item in own for hit in item.hits if hit.memory.source_ref in item.relevant
    )
    kept_evidence = sum(
        1
        for item, passing in zip(own, own_passing, strict=True)
        for hit in passing
        if hit.memory.source_ref in item.relevant
    )
    return {
        "floor": floor,
        "evidence_kept_percent": round(100 * kept_evidence / max(recalled_evidence, 1), 1),
        "own_injected_mean": round(statistics.fmean(len(hits) for hits in own_passing), 2),
        "other_injected_mean": round(statistics.fmean(other_counts), 2),
        "other_nothing_percent": round(100 * statistics.fmean(n == 0 for n in other_counts), 1),
    }


def assistant_summary(
    related: Sequence[Recalled], unrelated: Sequence[Recalled], floor: float
) -> dict[str, Any]:
    """Related messages whose memory passes; unrelated messages that get nothing."""
    kept = [
        any(hit.memory.content in item.relevant for hit in item.passing(floor)) for item in related
    ]
    unrelated_counts = [len(item.passing(floor)) for item in unrelated]
    return {
        "floor": floor,
        "related_kept_percent": round(100 * statistics.fmean(kept), 1),
        "unrelated_nothing_percent": round(
            100 * statistics.fmean(n == 0 for n in unrelated_counts), 1
        ),
        "unrelated_injected_mean": round(statistics.fmean(unrelated_counts), 2),
    }


def recall_locomo(
    service: MemoryService, conversations: Sequence[Conversation], progress: Progress, limit: int
) -> tuple[list[Recalled], list[Recalled]]:
    pairs = list(zip(conversations, [*conversations[1:], conversations[0]], strict=True))
    questions = [(own, other, q) for own, other in pairs for q in own.questions if q.category != 5]
    task = progress.add_task("locomo questions", total=len(questions))
    own_results: list[Recalled] = []
    other_results: list[Recalled] = []
    for own, other, question in questions:
        relevant = frozenset(question.evidence)
        for conversation, results in ((own, own_results), (other, other_results)):
            hits = service.recall(
                question.text, scopes=[conversation.scope], limit=limit, min_similarity=0.0
            )
            results.append(Recalled(relevant, tuple(hits)))
        progress.advance(task)
    return own_results, other_results


def recall_assistant(service: MemoryService, limit: int) -> tuple[list[Recalled], list[Recalled]]:
    for content, category in ASSISTANT_MEMORIES:
        service.remember(content, category, scope=SCOPE)

    def recalled(message: str, relevant: frozenset[str]) -> Recalled:
        hits = service.recall(message, scopes=[SCOPE], limit=limit, min_similarity=0.0)
        return Recalled(relevant, tuple(hits))

    related = [
        recalled(message, frozenset([ASSISTANT_MEMORIES[index][0]]))
        for message, index in RELATED_MESSAGES
    ]
    unrelated = [recalled(message, frozenset()) for message in UNRELATED_MESSAGES]
    return related, unrelated


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("path", type=Path, help="a file in LoCoMo's format")
    parser.add_argument(
        "--floors",
        type=float,
        nargs="+",
        default=list(DEFAULT_FLOORS),
        help="values of injection_min_similarity to compare",
    )
    parser.add_argument(
        "--limit",
        type=int,
        default=None,
        help="results per recall (default: injection_limit, as automatic "
        "recall; 10 for memory_recall's default)",
    )
    parser.add_argument(
        "--conversations",
        type=int,
        default=None,
        help="use only the first N conversations (at least 2)",
    )
    parser.add_argument(
        "--output", type=Path, default=Path("benchmarks/results/injection_gate.json")
    )
    arguments = parser.parse_args()
    conversations = load(arguments.path)[: arguments.conversations]
    if len(conversations) < 2:
        parser.error("need at least two conversations: each question is also asked of another")
    with tempfile.TemporaryDirectory(prefix="tinmem-gate-") as root:
        settings = Settings(db_path=str(Path(root) / "db"), track_access=False)
        limit = arguments.limit or settings.injection_limit
        service = MemoryService.from_settings(settings)
        try:
            with Progress() as progress:
                ingest(service, conversations)
                own, other = recall_locomo(service, conversations, progress, limit)
            related, unrelated = recall_assistant(service, limit)
        finally:
            service.close()
    floors = sorted(set(arguments.floors))
    results = {
        "shipped_injection_floor": Settings().injection_min_similarity,
        "shipped_recall_floor": Settings().recall_min_similarity,
        "limit": limit,
        "conversations": len(conversations),
        "questions": len(own),
        "locomo": [locomo_summary(own, other, floor) for floor in floors],
        "assistant": [assistant_summary(related, unrelated, floor) for floor in floors],
    }
    for row in itertools.chain(results["locomo"], results["assistant"]):
        print(json.dumps(row))
    save_results(arguments.output, results)


if __name__ == "__main__":
    main()
