"""What the plugin costs an agent per turn.

    python -m benchmarks.plugin_overhead --memories 10000 --turns 100

- ``before_prompt_build`` p50/p95 against a store of ``--memories`` memories, in the fast
  profile (no late interaction, no cross-encoder), with late interaction only, and with the
  shipped default (late interaction, then the cross-encoder on the top 8);
- ``agent_end`` return time (the journal write) p50/p95, for turns that end back to back (the
  worker still busy with the previous ones) and for turns that end after the worker caught up
  (as between the turns of an agent whose own LLM call takes longer than the capture); with
  ``--reply-characters N`` each of those turns ends with an assistant reply of N characters
  after the four earlier messages capture keeps (replies of N characters and user messages),
  as an assistant's prose answers are, instead of a one-word reply;
- post-turn work per turn with a zero-latency fake LLM on 127.0.0.1 (two extracted memories
  per turn, dedup included): wall time minus time spent waiting on the LLM server, and the
  CPU time the process spent per turn (all threads, the fake server's included);
- with ``--llm-latency SECONDS`` the post-turn turns are measured a second time with each LLM
  reply that late, as a real endpoint answers: work the writer does while the judge's call is
  in flight then no longer counts as time outside the LLM client;
- LLM calls per turn and injected tokens per turn.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.common import percentiles, save_results
from benchmarks.recall_latency import OBJECTS, SUBJECTS, fill, synthetic_text
from openclaw_tinmem.capture.journal import TurnRecord
from openclaw_tinmem.config import Settings
from openclaw_tinmem.events import AgentEndEvent, HookContext, Message, PromptBuildEvent
from openclaw_tinmem.plugin.hookimpls import TinmemPlugin
from openclaw_tinmem.recall.injection import estimate_tokens
from openclaw_tinmem.testing import FakeLLM, Reply


def extraction_reply(number: int) -> Reply:
    memories = [
        {
            "category": "preferences",
            "headline": f"User prefers {OBJECTS[number % len(OBJECTS)]}",
            "summary": f"User prefers {OBJECTS[number % len(OBJECTS)]} (turn {number}).",
            "content": f"User prefers {OBJECTS[number % len(OBJECTS)]} for project {number}.",
            "importance": 0.6,
        },
        {
            "category": "events",
            "headline": f"Milestone {number} reached",
            "summary": f"Milestone {number} was reached.",
            "content": f"The team reached milestone {number}.",
            "importance": 0.5,
        },
    ]
    return Reply({"memories": memories})


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure_post_turn(
    plugin: TinmemPlugin,
    fake: FakeLLM,
    rng: random.Random,
    turns: int,
    first: int,
    delay: float = 0.0,
) -> dict[str, Any]:
    """Process ``turns`` captured turns one by one; wall, LLM-client and CPU time per turn."""
    work_times, llm_times, cpu_times, llm_calls = [], [], [], []
    pipeline = plugin.worker.primary
    judge_llm = plugin.service.judge.primary.llm  # type: ignore[attr-defined]
    clients = {id(c): c for c in (pipeline.extractor.llm, judge_llm)}.values()
    for number in range(turns):
        fake.script(
            Reply(extraction_reply(first + number).content, delay=delay),
            Reply({"decisions": []}, delay=delay),
        )
        record = TurnRecord(
            messages=[Message("user", synthetic_text(rng, number) + " I prefer tea.")],
            scope="agent:bench",
            ctx=HookContext(agent_id="bench"),
        )
        calls_before = sum(client.calls for client in clients)
        llm_before = sum(client.seconds for client in clients)
        cpu_before = cpu_seconds()
        started = time.perf_counter()
        pipeline.process(record)
        work_times.append((time.perf_counter() - started) * 1000)
        cpu_times.append((cpu_seconds() - cpu_before) * 1000)
        llm_times.append((sum(client.seconds for client in clients) - llm_before) * 1000)
        llm_calls.append(sum(client.calls for client in clients) - calls_before)
    non_llm = [work - llm for work, llm in zip(work_times, llm_times, strict=True)]
    return {
        "post_turn_total_ms": percentiles(work_times),
        "llm_client_ms_per_turn": percentiles(llm_times),
        "post_turn_non_llm_ms": percentiles(non_llm),
        "post_turn_cpu_ms": percentiles(cpu_times),
        "llm_calls_per_turn_mean": round(float(np.mean(llm_calls)), 2),
        "llm_calls_per_turn_max": int(max(llm_calls)),
    }


def prose(rng: random.Random, number: int, characters: int) -> str:
    """An assistant's answer of ``characters`` characters, made of synthetic sentences."""
    text = ""
    while len(text) < characters:
        text += synthetic_text(rng, number) + " "
    return text[:characters]


def turn_messages(
    rng: random.Random, number: int, text: str, reply_characters: int
) -> tuple[Message, ...]:
    """A finished turn: the user's ``text`` and a one-word reply, or with
    ``reply_characters`` a reply that long after two earlier exchanges."""
    if not reply_characters:
        return (Message("user", text), Message("assistant", "Noted."))
    earlier = []
    for _ in range(2):
        earlier += [
            Message("user", synthetic_text(rng, number)),
            Message("assistant", prose(rng, number, reply_characters)),
        ]
    return (
        *earlier,
        Message("user", text),
        Message("assistant", prose(rng, number, reply_characters)),
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--turns", type=int, default=100)
    parser.add_argument(
        "--llm-latency",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="also measure post-turn work with each LLM reply this late (e.g. 0.5)",
    )
    parser.add_argument(
        "--reply-characters",
        type=int,
        default=0,
        metavar="N",
        help="agent_end turns end with replies this long after four earlier messages",
    )
    parser.add_argument(
        "--output", type=Path, default=Path("benchmarks/results/plugin_overhead.json")
    )
    arguments = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="tinmem-plugin-bench-"))
    rng = random.Random(3)
    try:
        with FakeLLM() as fake:
            settings = Settings(
                db_path=str(root / "db"),
                journal_path=str(root / "journal"),
                track_access=False,
                llm_base_url=fake.base_url,
                llm_api_key="bench",
                query_cache_size=0,
            )
            plugin = TinmemPlugin(settings)
            service = plugin.service
            fill(service, arguments.memories, arguments.memories, rng)
            ctx = HookContext(agent_id="bench")
            questions = [
                f"What do we know about {rng.choice(OBJECTS)} and {rng.choice(SUBJECTS).lower()}? ({n})"
                for n in range(arguments.turns)
            ]
            for question in questions[:5]:
                plugin.before_prompt_build(event=PromptBuildEvent(question + " warm"), ctx=ctx)
            profiles = {
                "fast_profile": {"rerank": False, "late_interaction": False},
                "late_only": {"rerank": False},
                "default": {},
            }
            prompt_times: dict[str, list[float]] = {name: [] for name in profiles}
            tokens = []
            for name, changes in profiles.items():
                service.settings = settings.model_copy(update=changes)
                for question in questions:
                    started = time.perf_counter()
                    result = plugin.before_prompt_build(
                        event=PromptBuildEvent(f"{question} ({name})"), ctx=ctx
                    )
                    prompt_times[name].append((time.perf_counter() - started) * 1000)
                    if name == "default":
                        tokens.append(
                            estimate_tokens(result.prepend_context)
                            if result and result.prepend_context
                            else 0
                        )
            service.settings = settings

            # agent_end: only the journal write and a wake-up; the worker drains in the background.
            end_times: dict[str, list[float]] = {"back_to_back": [], "worker_caught_up": []}
            for phase, (name, times) in enumerate(end_times.items()):
                for number in range(phase * arguments.turns, (phase + 1) * arguments.turns):
                    if name == "worker_caught_up":
                        plugin.flush()  # the previous turn is processed before this one ends
                    fake.script(extraction_reply(number), Reply({"decisions": []}))
                    text = synthetic_text(rng, number) + " I really prefer writing things down."
                    event = AgentEndEvent(
                        messages=turn_messages(rng, number, text, arguments.reply_characters)
                    )
                    started = time.perf_counter()
                    plugin.agent_end(event=event, ctx=ctx)
                    times.append((time.perf_counter() - started) * 1000)
                while plugin.journal.pending(due_only=False):
                    plugin.worker.run_once()

            # post-turn work, turn by turn, with the LLM answering instantly; the time spent
            # inside the LLM client (HTTP on loopback, instructor parsing) is measured apart.
            post_turn = measure_post_turn(plugin, fake, rng, arguments.turns, first=10_000)
            late: dict[str, Any] = {}
            if arguments.llm_latency:
                late = measure_post_turn(
                    plugin, fake, rng, arguments.turns, first=20_000, delay=arguments.llm_latency
                )
            results: dict[str, Any] = {
                "memories": arguments.memories,
                **{
                    f"before_prompt_build_{name}_ms": percentiles(times)
                    for name, times in prompt_times.items()
                },
                **{f"agent_end_{name}_ms": percentiles(times) for name, times in end_times.items()},
                **post_turn,
                **{
                    f"llm_latency_{arguments.llm_latency:g}s_{key}": value
                    for key, value in late.items()
                    if key.startswith("post_turn")
                },
                "injected_tokens_per_turn_mean": round(float(np.mean(tokens)), 1),
                "injected_tokens_per_turn_max": int(max(tokens)),
                "stored_memories_after": service.store.count(scopes=["agent:bench"]),
            }
            plugin.close()
        print(json.dumps(results, indent=2))
        save_results(arguments.output, results)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
