"""The benchmark scripts' set-up code runs against the current store API (a script that
breaks silently leaves docs/benchmarks.md unreproducible)."""

import json
import random
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from rich.progress import Progress

from benchmarks.injection_gate import Recalled, assistant_summary, locomo_summary
from benchmarks.locomo import evaluate, ingest, tinmem_retriever
from benchmarks.locomo_data import Conversation, Question, Turn, preceding
from benchmarks.locomo_report import (
    category_table,
    comparison_table,
    conversation_table,
    markdown_table,
)
from benchmarks.locomo_results import RunResult, add_comparisons
from benchmarks.metrics import score_question
from benchmarks.recall_latency import fill, measure_import
from benchmarks.store_upkeep import measure_recall, measure_writes
from benchmarks.store_upkeep import measure_size as measure_upkeep
from benchmarks.token_projection import fit, sample_turns
from openclaw_tinmem.config import Settings
from openclaw_tinmem.encoders.dense import FastEmbedEmbedder
from openclaw_tinmem.models import Category, Hit, MatchKind, Memory
from openclaw_tinmem.service import MemoryService


def test_recall_latency_fills_a_store_reusing_real_vectors_beyond_the_limit(
    service: MemoryService,
) -> None:
    fill(service, 12, real_limit=8, rng=random.Random(1))
    memories = service.store.list_memories(limit=100)
    assert len(memories) == 12
    tokens = {
        row["id"]: row["token_vectors"]
        for row in service.store.token_rows([memory.id for memory in memories])
    }
    assert len(tokens) == 12  # encoded for the first 8, reused for the rest


def test_recall_latency_measures_import_against_raw_model_work(
    settings: Settings, embedder: FastEmbedEmbedder, tmp_path: Path
) -> None:
    result = measure_import(embedder, settings, 6, tmp_path)
    assert json.loads(json.dumps(result))  # a JSON-ready result


def test_token_projection_fits_an_orthonormal_basis_of_sampled_turns(
    model_settings: Settings, tmp_path: Path
) -> None:
    lines = [
        "I have been learning to play the violin since spring.",
        "That is lovely! Which pieces are you practising?",
        "Mostly Bach, and a little Vivaldi for the school concert.",
        "We went camping by the lake with the kids last weekend.",
    ]
    session = [
        {"speaker": "AB"[index % 2], "dia_id": f"D1:{index + 1}", "text": text}
        for index, text in enumerate(lines)
    ]
    conversation = {
        "speaker_a": "A",
        "speaker_b": "B",
        "session_1": session,
        "session_1_date_time": "1:56 pm on 8 May, 2023",
    }
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps([{"sample_id": "t", "conversation": conversation, "qa": []}]))
    pairs = sample_turns(path, 3, seed=0)
    assert len(pairs) == 3 and all(text.startswith(("A (", "B (")) for text, _ in pairs)
    basis, kept = fit(pairs, 8, model_settings)
    assert basis.shape == (384, 8) and 0 < kept <= 1
    assert np.allclose(basis.T @ basis, np.eye(8), atol=1e-4)


def test_store_upkeep_times_both_optimisers_on_equal_stores(
    settings: Settings, embedder: FastEmbedEmbedder, tmp_path: Path
) -> None:
    result = measure_upkeep(embedder, settings, 20, 1, tmp_path)
    assert result["size"] == 20 and result["rounds"] == 1
    for name in ("tinmem", "lancedb"):
        assert result[name]["p50_ms"] > 0 and result[name]["fragments_after"] >= 1
    assert json.loads(json.dumps(result))  # a JSON-ready result


def test_store_upkeep_times_writes_with_upkeep_inline_and_in_the_background(
    settings: Settings, embedder: FastEmbedEmbedder, tmp_path: Path
) -> None:
    result = measure_writes(embedder, settings, 20, 4, 0.0, tmp_path, every=2)
    for name in ("background", "inline"):
        assert result[name]["due_writes"] == 2 and result[name]["max_ms"] > 0
    assert json.loads(json.dumps(result))  # a JSON-ready result


def test_store_upkeep_times_recall_beside_upkeep(
    settings: Settings, embedder: FastEmbedEmbedder, tmp_path: Path
) -> None:
    result = measure_recall(embedder, settings, 20, 1, tmp_path)
    assert result["quiet"]["recalls"] == 20 and result["during_upkeep"]["recalls"] >= 1
    assert json.loads(json.dumps(result))  # a JSON-ready result


def test_locomo_ingest_stores_the_previous_turn_of_the_session_as_context(
    service: MemoryService,
) -> None:
    conversation = Conversation("conv-x")
    conversation.turns += [
        Turn("D1:1", 1, "Maria", "How often do you all work out?", "4 May 2023"),
        Turn("D1:2", 1, "John", "Three times a week.", "4 May 2023"),
        Turn("D2:1", 2, "John", "Hi again!", "9 May 2023"),
    ]
    assert [preceding(conversation, index) for index in range(3)] == [
        "",
        "Maria (4 May 2023): How often do you all work out?",
        "",
    ]
    ingest(service, [conversation])
    contexts = {m.source_ref: m.context for m in service.store.list_memories(limit=10)}
    assert contexts == {"D1:1": "", "D1:2": preceding(conversation, 1), "D2:1": ""}
    ingest(service, [conversation], with_context=False)  # same ids: contexts are replaced
    assert {m.context for m in service.store.list_memories(limit=10)} == {""}


def test_locomo_ingest_dates_each_memory_by_its_session(service: MemoryService) -> None:
    conversation = Conversation("conv-x")
    conversation.turns += [
        Turn("D1:1", 1, "Maria", "Hi John!", "1:56 pm on 8 May, 2023"),
        Turn("D1:2", 1, "John", "Hi Maria!", "1:56 pm on 8 May, 2023"),
        Turn("D2:1", 2, "John", "Back again.", "an evening in spring"),  # does not parse
    ]
    ingest(service, [conversation])
    created = {m.source_ref: m.created_at for m in service.store.list_memories(limit=10)}
    assert created["D1:1"] == created["D1:2"] == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert created["D2:1"] == datetime(2000, 1, 3, tzinfo=UTC)  # start + 2 sessions


def test_locomo_scores_a_conversation_through_the_real_recall_path(
    service: MemoryService,
) -> None:
    conversation = Conversation("conv-y")
    conversation.turns += [
        Turn("D1:1", 1, "Maria", "I adopted a rescue dog called Coco.", "4 May 2023"),
        Turn("D1:2", 1, "John", "My violin lessons start next Tuesday.", "4 May 2023"),
        Turn("D1:3", 1, "Maria", "We went camping by the lake last weekend.", "4 May 2023"),
    ]
    conversation.questions += [
        Question("What is the name of Maria's dog?", ["D1:1"], 4),
        Question("Which instrument is John learning?", ["D1:2"], 4),
        Question("Where did Maria go camping?", ["D1:3"], 5),
    ]
    ingest(service, [conversation])
    with Progress(disable=True) as progress:
        run = evaluate("default", [conversation], tinmem_retriever(service), progress)
    summary = run.summary()
    assert summary["overall"]["mrr"] == 100.0  # each answer is the first hit
    assert summary["adversarial"]["frac@10"] == 100.0
    assert summary["by_category"]["single-hop"]["ndcg@10"] == 100.0
    assert len(run.latencies_ms) == 3
    table = markdown_table([summary, {"name": "peer: missing", "skipped": "ImportError"}])
    assert "| default | 100.0 |" in table and "skipped: ImportError" in table
    by_category = category_table([summary])
    assert by_category.splitlines()[0].endswith("| adversarial |")
    assert by_category.splitlines()[2] == "| default | – | – | – | 100.0 / 100.0 | 100.0 / 100.0 |"


def test_locomo_reports_each_conversation_apart() -> None:
    run = RunResult("default")
    for sample, ranked in (("conv-a", ["D1:1"]), ("conv-a", ["D9:9"]), ("conv-b", ["D2:2"])):
        run.scores.append(score_question(ranked, [ranked[0] if sample == "conv-b" else "D1:1"], 4))
        run.conversation_of.append(sample)
    summary = run.summary()
    assert summary["overall"]["frac@10"] == 66.7
    assert {
        sample: figures["frac@10"] for sample, figures in summary["by_conversation"].items()
    } == {
        "conv-a": 50.0,
        "conv-b": 100.0,
    }
    assert summary["by_conversation"]["conv-a"]["questions"] == 2
    table = conversation_table([summary, {"name": "peer: missing", "skipped": "ImportError"}])
    assert table.splitlines() == [
        "| system | conv-a | conv-b |",
        "|---|---|---|",
        "| default | 50.0 / 50.0 | 100.0 / 100.0 |",
    ]


def test_locomo_compares_each_system_with_the_default_question_by_question() -> None:
    runs = [RunResult("peer: x"), RunResult("default")]
    for number in range(40):
        runs[0].scores.append(score_question(["D9:9"], ["D1:1"], 4))  # the peer misses all
        runs[1].scores.append(score_question(["D1:1"] if number % 4 else ["D9:9"], ["D1:1"], 4))
    for run in runs:
        run.conversation_of += ["conv-a"] * 40
    results = [run.summary() for run in runs]
    add_comparisons(results, runs)
    assert "against" not in results[1]  # the default is the baseline even when it is not first
    against = results[0]["against"]
    assert against["baseline"] == "default"
    assert against["frac@10"]["difference"] == -75.0
    low, high = against["frac@10"]["interval"]
    assert low < -75.0 < high < 0.0
    lines = comparison_table(results).splitlines()
    assert lines[0] == "| system | frac@10 (95 % interval) | nDCG@10 (95 % interval) |"
    low, high = results[1]["intervals"]["frac@10"]
    assert lines[2].startswith(f"| default | 75.0 ({low} to {high}) |")
    assert lines[3].startswith("| peer: x − default | -75.0 (")


def _recalled_hit(source_ref: str, match: MatchKind, similarity: float | None) -> Hit:
    memory = Memory(
        category=Category.EVENTS,
        headline=source_ref,
        summary=source_ref,
        content=source_ref,
        source_ref=source_ref,
    )
    return Hit(memory, 0.5, 0.5, match, similarity)


def test_injection_gate_counts_kept_evidence_and_what_passes() -> None:
    own = [
        Recalled(
            frozenset({"D1:1", "D1:2"}),
            (
                _recalled_hit("D1:1", MatchKind.VECTOR, 0.7),  # evidence, close: kept
                _recalled_hit("D1:2", MatchKind.VECTOR, 0.4),  # evidence, far: dropped at 0.5
                _recalled_hit("D1:3", MatchKind.FULL_TEXT, None),  # shares words: kept
            ),
        ),
        Recalled(frozenset({"D2:1"}), (_recalled_hit("D2:1", MatchKind.BOTH, 0.1),)),
    ]
    other = [
        Recalled(frozenset({"D1:1"}), (_recalled_hit("X:1", MatchKind.VECTOR, 0.45),)),
        Recalled(frozenset({"D2:1"}), (_recalled_hit("X:2", MatchKind.VECTOR, 0.6),)),
    ]
    assert locomo_summary(own, other, 0.5) == {
        "floor": 0.5,
        "evidence_kept_percent": 66.7,  # 2 of 3
        "own_injected_mean": 1.5,
        "other_injected_mean": 0.5,
        "other_nothing_percent": 50.0,
    }
    assert locomo_summary(own, other, 0.0)["evidence_kept_percent"] == 100.0
    related = [Recalled(frozenset({"D1:1"}), own[0].hits)]
    unrelated = other
    assert assistant_summary(related, unrelated, 0.8) == {
        "floor": 0.8,
        "related_kept_percent": 0.0,
        "unrelated_nothing_percent": 100.0,
        "unrelated_injected_mean": 0.0,
    }


def test_object_storage_benchmark_checks_every_acknowledged_write(tmp_path: Path) -> None:
    from benchmarks.object_storage import run_case

    case = run_case(str(tmp_path / "db"), {}, writers=1, writes=3)
    assert (case["writes"], case["lost_writes"], case["duplicate_ids"]) == (3, 0, 0)


def test_shared_store_benchmark_times_recalls_after_another_writers_commits(
    tmp_path: Path, model_settings: Settings
) -> None:
    from benchmarks.shared_store import run

    result = run(model_settings, memories=60, rounds=3, root=tmp_path)
    assert result["reader_snapshot_loads"] == {"whole": 1, "caught up": 3}
    assert result["recall_after_a_foreign_commit_ms"]["p50"] > 0
    assert result["store"] == "local"


def test_plugin_overhead_turns_with_long_replies_fill_the_capture_window() -> None:
    from benchmarks.plugin_overhead import turn_messages
    from openclaw_tinmem.capture.pipeline import capture_window

    messages = turn_messages(random.Random(0), 1, "I prefer tea.", 1500)
    assert [m.role for m in messages] == ["user", "assistant"] * 3
    assert len(messages[-1].content) == 1500 and messages[-2].content == "I prefer tea."
    assert capture_window(messages, 4) == list(messages)  # the four before the last user, too
    assert len(turn_messages(random.Random(0), 1, "I prefer tea.", 0)) == 2


def _conversation(sample: str, a: str, b: str, lines: list[str], qa: list[dict]) -> dict:  # type: ignore[type-arg]
    turns = [
        {"speaker": (a, b)[index % 2], "dia_id": f"D1:{index + 1}", "text": text}
        for index, text in enumerate(lines)
    ]
    return {
        "sample_id": sample,
        "conversation": {
            "speaker_a": a,
            "speaker_b": b,
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": turns,
        },
        "qa": qa,
    }


def test_locomo_e2e_replays_through_the_hooks_and_finds_evidence_by_provenance(
    tmp_path: Path,
) -> None:
    import subprocess
    import sys

    data = [
        _conversation(
            "conv-a",
            "Priya",
            "Tomas",
            [
                "I adopted a rescue greyhound called Pixel last weekend.",
                "That is lovely! How is Pixel settling in at your flat?",
                "My pottery class moved to Thursday evenings at the community hall.",
                "Thursday suits you better, since you work late on Mondays.",
            ],
            [
                {
                    "question": "What is the name of Priya's greyhound?",
                    "evidence": ["D1:1"],
                    "category": 4,
                }
            ],
        ),
        _conversation(
            "conv-b",
            "Ines",
            "Marek",
            [
                "I finally finished restoring the old sailing boat in my garage.",
                "Are you taking the boat out on the lake this summer?",
                "Yes, and I signed up for a navigation course in June.",
                "The navigation course will help on the bigger lakes.",
            ],
            [
                {
                    "question": "What did Ines restore in her garage?",
                    "evidence": ["D1:1"],
                    "category": 4,
                }
            ],
        ),
    ]
    path = tmp_path / "sample.json"
    path.write_text(json.dumps(data))
    output = tmp_path / "e2e.json"
    kept = tmp_path / "kept"
    e2e = [sys.executable, "-m", "benchmarks.locomo_e2e", str(path), "--output", str(output)]
    subprocess.run([*e2e, "--keep", str(kept)], check=True, capture_output=True, timeout=600)
    report = json.loads(output.read_text())
    assert report["turns"] == report["captured_turns"] == 8  # two speakers, roles swapped
    assert report["questions"] == 2
    assert report["recall_coverage"] == 100.0  # found through the memories' message ids
    assert report["off_topic_without_block"] == 100.0  # names neither store has heard of

    # the kept store asked again, with another recall setting, replays nothing
    changed = ["--reuse", str(kept), "--set", "rerank=false"]
    subprocess.run([*e2e, *changed], check=True, capture_output=True, timeout=600)
    again = json.loads(output.read_text())
    assert again["memories_kept"] == report["memories_kept"]
    assert "turns" not in again and "store_mb_per_1000_turns" not in again  # not measured
    assert again["recall_coverage"] == 100.0 and again["settings"] == ["rerank=false"]

    subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.locomo_e2e",
            str(path),
            "--fold",
            "--output",
            str(output),
        ],
        check=True,
        capture_output=True,
        timeout=600,
    )
    folded = json.loads(output.read_text())
    assert folded["episodes_folded"] == 8
    assert folded["recall_coverage"] == 100.0  # the session's line holds Ines's words


def test_first_turn_benchmark_times_a_cold_bridge_until_it_recalls(settings: Settings) -> None:
    from benchmarks.openclaw_first_turn import FACT, cold_start_ms

    service = MemoryService.from_settings(settings)
    service.remember(FACT, Category.PROFILE, scope="agent:main")
    service.close()
    assert 0 < cold_start_ms(settings) < 60_000


def test_instruction_floor_scores_the_instructions_questions_and_holds_each_out(
    embedder: FastEmbedEmbedder,
) -> None:
    from benchmarks.instruction_floor import FLOORS, closeness, instructions_of, report

    def chat(name: str, instruction: str, asked: str) -> Conversation:
        conversation = Conversation(name)
        date = "1:56 pm on 8 May, 2023"
        conversation.turns = [
            Turn("D1:1", 1, "user", instruction, date),
            Turn("D1:2", 1, "assistant", "Understood, I will.", date),
        ]
        conversation.questions = [Question(asked, ["D1:1"], 3)]
        return conversation

    books = chat(
        "books",
        "Always include the narrator when I ask about audiobook recommendations.",
        "Can you recommend some audiobooks?",
    )
    plants = chat(
        "plants",
        "Always mention the watering schedule when I ask about houseplant care.",
        "How should I look after my fern?",
    )
    assert list(instructions_of(books)) == ["D1:1"]
    found = closeness([books, plants], embedder, whole=False)
    assert len(found[0].asked) == 1 and len(found[0].off_topic) == 1
    assert found[0].asked[0] > found[0].off_topic[0]  # its own request is closer
    result = report(found)
    assert all(item["floor"] in FLOORS for item in result["held_out"])
    assert result["by_floor"]["0.58"] == {"instruction_given": 100.0, "off_topic_given": 0.0}
