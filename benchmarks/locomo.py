"""LoCoMo turn-level retrieval benchmark: our configurations and peers side by side, one run.

    python -m benchmarks.locomo ../shared/bench/locomo-dev.json

Every turn of a conversation is stored as a memory (speaker and session date in the text, the
image caption when a photo was shared, the dia_id as source reference, the session's date and
time as its creation time, the turn before it in the same session as its context unless
``--without-context``) through the product's batch import path, one scope per conversation.
Each question is asked through the normal recall path against its conversation's scope only,
and the ranked dia_ids are scored against the evidence (see ``benchmarks/metrics.py`` and
``../shared/bench/README.md``).
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.progress import Progress

from benchmarks.locomo_data import Conversation, Retriever, as_reminders, load, preceding
from benchmarks.locomo_peers import bm25_peer, mem0_peer
from benchmarks.locomo_report import (
    ability_table,
    category_table,
    comparison_table,
    conversation_table,
    length_table,
    markdown_table,
)
from benchmarks.locomo_results import RunResult, add_comparisons
from benchmarks.metrics import fraction_at, score_question
from openclaw_tinmem.config import Settings
from openclaw_tinmem.encoders.dense import FastEmbedEmbedder
from openclaw_tinmem.maintenance import import_memories
from openclaw_tinmem.models import Level
from openclaw_tinmem.recall.injection import estimate_tokens
from openclaw_tinmem.service import MemoryService, open_store


def ingest(
    service: MemoryService, conversations: Sequence[Conversation], *, with_context: bool = True
) -> float:
    """Store every turn through the batch import path; returns the seconds it took."""
    started = time.perf_counter()
    for conversation in conversations:
        lines = [
            json.dumps(
                {
                    "content": turn.memory_text(),
                    "category": "events",
                    "scope": conversation.scope,
                    "source_ref": turn.dia_id,
                    "headline": turn.memory_text()[:200],
                    "summary": turn.memory_text(),
                    "created_at": turn.created_at(),
                    "context": preceding(conversation, index) if with_context else "",
                }
            )
            for index, turn in enumerate(conversation.turns)
        ]
        import_memories(service, lines)
    return time.perf_counter() - started


def evaluate(
    name: str,
    conversations: Sequence[Conversation],
    retrieve: Retriever,
    progress: Progress,
    service: MemoryService | None = None,
) -> RunResult:
    result = RunResult(name)
    total = sum(len(c.questions) for c in conversations)
    task = progress.add_task(f"{name:<18}", total=total)
    for conversation in conversations:
        words = {turn.dia_id: len(turn.text.split()) for turn in conversation.turns}
        for question in conversation.questions:
            started = time.perf_counter()
            ranked = retrieve(conversation, question.text)
            result.latencies_ms.append((time.perf_counter() - started) * 1000)
            score = score_question(ranked, question.evidence, question.category)
            if len(ranked) > 10 and question.category != 5:
                result.deep.append(fraction_at(ranked, question.evidence, len(ranked)))
            if question.category == 5:
                result.adversarial.append(score)
            else:
                result.scores.append(score)
                result.conversation_of.append(conversation.sample_id)
                result.ability_of.append(question.ability)
                top = set(ranked[:10])
                result.evidence_found.extend(
                    (words.get(dia_id, 0), dia_id in top) for dia_id in question.evidence
                )
            progress.advance(task)
    return result


def tinmem_retriever(service: MemoryService, limit: int = 10) -> Retriever:
    def retrieve(conversation: Conversation, question: str) -> list[str]:
        hits = service.recall(
            question, scopes=[conversation.scope], limit=limit, min_similarity=0.0
        )
        return [hit.memory.source_ref for hit in hits]

    return retrieve


def token_counts(
    service: MemoryService, conversations: Sequence[Conversation], sample: int = 100
) -> dict[str, list[int]]:
    counts: dict[str, list[int]] = {level.value: [] for level in Level}
    questions = [(c, q) for c in conversations for q in c.questions][:sample]
    for conversation, question in questions:
        hits = service.recall(
            question.text, scopes=[conversation.scope], limit=10, min_similarity=0.0
        )
        for level in Level:
            counts[level.value].append(
                sum(estimate_tokens(hit.memory.text_at(level)) for hit in hits)
            )
    return counts


NO_RERANKING = {"late_interaction": False, "rerank": False}
CONFIGURATIONS: dict[str, dict[str, Any]] = {
    "full-text": {**NO_RERANKING, "vector_weight": 0.0},
    "vector": {**NO_RERANKING, "text_weight": 0.0},
    "hybrid (fast profile)": NO_RERANKING,
    "hybrid+cross-encoder 20": {"late_interaction": False, "rerank_candidates": 20},
    "hybrid+late interaction": {"rerank": False},
    "default": {},
    # what the first stage hands the re-rankers: the fused list as deep as late interaction reads
    "fused candidates (200)": NO_RERANKING,
}
RETRIEVAL_LIMITS = {"fused candidates (200)": 200}  # the others return the usual top 10


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("path", type=Path, help="a file in LoCoMo's format")
    parser.add_argument(
        "--configs", nargs="+", default=list(CONFIGURATIONS), choices=list(CONFIGURATIONS)
    )
    parser.add_argument("--peers", nargs="*", default=["bm25", "mem0"], choices=["bm25", "mem0"])
    parser.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="OPTION=VALUE",
        help="add a configuration 'custom' with these settings changed (repeatable)",
    )
    parser.add_argument(
        "--store-set",
        dest="store_overrides",
        action="append",
        default=[],
        metavar="OPTION=VALUE",
        help="write the memories with these settings changed, for every configuration (such "
        "as late_interaction_passages, which is fixed when a memory is written; repeatable)",
    )
    parser.add_argument(
        "--without-context",
        action="store_true",
        help="store each turn without the turn before it as its context",
    )
    parser.add_argument(
        "--store",
        type=Path,
        help="keep the memories in this directory and, when it already holds them, read them "
        "instead of writing them again (for trying recall settings one after another)",
    )
    parser.add_argument(
        "--asked-as",
        choices=["written", "reminders"],
        default="written",
        help="ask the questions as written, or as people ask to be reminded ('Remind me, …', "
        "'… again?', 'Quick question: …', in turn), every system alike",
    )
    parser.add_argument("--output", type=Path, default=Path("benchmarks/results/locomo.json"))
    arguments = parser.parse_args()
    if arguments.overrides:
        CONFIGURATIONS["custom"] = dict(item.split("=", 1) for item in arguments.overrides)
        arguments.configs = [*arguments.configs, "custom"]
    conversations = load(arguments.path)
    if arguments.asked_as == "reminders":
        as_reminders(conversations)
    root = Path(tempfile.mkdtemp(prefix="tinmem-locomo-"))
    database = arguments.store or root / "db"
    reuse = (database / "memories.lance").exists()
    base = Settings.model_validate(
        {
            "db_path": str(database),
            "track_access": False,
            "query_cache_size": 0,
            **dict(item.split("=", 1) for item in arguments.store_overrides),
        }
    )
    embedder = FastEmbedEmbedder(base)
    try:
        store = open_store(base, embedder)
        ingest_seconds = (
            0.0
            if reuse
            else ingest(
                MemoryService(base, store, embedder),
                conversations,
                with_context=not arguments.without_context,
            )
        )
        store.purge()  # compacted, no older versions: what the memories cost on disk
        store_bytes = sum(path.stat().st_size for path in database.rglob("*") if path.is_file())
        results: list[dict[str, Any]] = []
        runs: list[RunResult] = []
        with Progress() as progress:
            for name in arguments.configs:
                settings = Settings.model_validate({**base.model_dump(), **CONFIGURATIONS[name]})
                service = MemoryService(settings, open_store(settings, embedder), embedder)
                limit = RETRIEVAL_LIMITS.get(name, 10)
                run = evaluate(name, conversations, tinmem_retriever(service, limit), progress)
                run.tokens = token_counts(service, conversations)
                runs.append(run)
                results.append(run.summary())
                service.close()
            peers = {
                "bm25": ("peer: bm25s", lambda: bm25_peer(conversations)),
                "mem0": (
                    "peer: mem0 (infer=False)",
                    lambda: mem0_peer(conversations, embedder, root),
                ),
            }
            for key in arguments.peers:
                name, build = peers[key]
                try:
                    retriever = build()
                except Exception as error:  # a peer that cannot run is reported, not fatal
                    results.append({"name": name, "skipped": f"{type(error).__name__}: {error}"})
                    continue
                run = evaluate(name, conversations, retriever, progress)
                runs.append(run)
                results.append(run.summary())
        add_comparisons(results, runs)
        report = {
            "data": str(arguments.path),
            "asked_as": arguments.asked_as,
            "conversations": len(conversations),
            "turns": sum(len(c.turns) for c in conversations),
            "questions_1_to_4": sum(
                1 for c in conversations for q in c.questions if q.category != 5
            ),
            "malformed_evidence_ids": sum(c.malformed_evidence for c in conversations),
            "ingest_seconds": round(ingest_seconds, 1),
            "ingest_ms_per_memory": round(
                1000 * ingest_seconds / max(sum(len(c.turns) for c in conversations), 1), 1
            ),
            "store_megabytes": round(store_bytes / 2**20, 1),
            "store_kilobytes_per_memory": round(
                store_bytes / 1024 / max(sum(len(c.turns) for c in conversations), 1), 1
            ),
            "results": results,
        }
        arguments.output.parent.mkdir(parents=True, exist_ok=True)
        arguments.output.write_text(json.dumps(report, indent=2))
        tables = (
            f"{markdown_table(results)}\n\n"
            + "".join(
                f"{result['name']}: {result['frac_at_depth']} % of the evidence is in the list.\n\n"
                for result in results
                if "frac_at_depth" in result
            )
            + "frac@10 / nDCG@10 by category:\n\n"
            f"{category_table(results)}\n\nfrac@10 / nDCG@10 by conversation (categories 1–4):"
            f"\n\n{conversation_table(results)}\n\n"
            f"frac@10 / nDCG@10 by ability (BEAM):\n\n{ability_table(results)}\n\n"
            f"Evidence turns in the top 10 by turn length:\n\n{length_table(results)}\n\n"
            "Against the baseline, categories 1–4 (paired bootstrap over questions):"
            f"\n\n{comparison_table(results)}\n"
        )
        arguments.output.with_suffix(".md").write_text(tables)
        print(tables)
        print(json.dumps({k: v for k, v in report.items() if k != "results"}))
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
