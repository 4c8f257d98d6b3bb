"""What a user gets: conversations replayed through the plugin's hooks, then asked about.

    python -m benchmarks.locomo_e2e ../shared/bench/locomo-dev.json
    python -m benchmarks.locomo_e2e ../shared/bench/beam-dev.json --roles given

Each conversation (LoCoMo's format) is one agent of the reference ``Host``. Every session is
replayed turn by turn: a speaker's message as the user's, the other's answer as the model's
reply, each message dated by its session's date (30 seconds apart, in order) and carrying its
``dia_id`` as its id and its speaker as its name. With ``--roles swap`` (the default, for
conversations between two people) the sessions are then replayed again with the roles
swapped into the same agent; ``--roles given`` replays them once, the first speaker as the
user (for chats with an assistant, such as BEAM's). Capture runs as it does for a user — the
journal, the background worker — and is flushed after each turn, so the post-turn cost of
every turn is measured; no LLM is configured unless ``--llm`` (a scripted server on
127.0.0.1 that answers every extraction: the LLM path's plumbing, not its quality).

Then each question of categories 1–4 is asked of the conversation's agent through
``before_prompt_build`` (what is injected) and through the ``memory_recall`` tool (limit 10),
and an evidence turn counts as found when a returned memory's provenance names its message.
Each question of the next conversation is asked too, through ``before_prompt_build``: it is
off-topic there, and the share that gets no block is reported.

With ``--fold`` every episode is folded into its session's memory and forgotten before the
questions, as episode retention does once episodes are old: what a user gets from sessions
older than ``episode_retention_days`` (a folded session counts for a message only where what
was shown holds its words: ``e2e_coverage``). With ``--keep DIR`` the store is built in
``DIR`` (a new directory) and left there; ``--reuse DIR`` asks the questions of it again
(with other ``--set`` recall settings, say) without replaying.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pluggy
from rich.progress import Progress

from benchmarks.common import save_results
from benchmarks.e2e_coverage import coverage, shown_coverage
from benchmarks.e2e_report import Asked, OffTopic, Replay, percentile, summary
from benchmarks.e2e_sweep import assistant_probe, floor_sweep, sweep_summary
from benchmarks.locomo_data import Conversation, Turn, load
from openclaw_tinmem.capture.transcripts import LOCOMO_SECONDS_BETWEEN
from openclaw_tinmem.config import Settings
from openclaw_tinmem.events import HookContext, Message, PromptBuildEvent, ToolRegistration
from openclaw_tinmem.models import Memory
from openclaw_tinmem.plugin.hookimpls import TinmemPlugin
from openclaw_tinmem.plugin.host import Host, load_plugins
from openclaw_tinmem.recall.injection import estimate_tokens
from openclaw_tinmem.testing import FakeLLM, Reply
from openclaw_tinmem.write.retention import expire_episodes


def said_at(turn: Turn, index: int) -> datetime:
    """A message's time: its session's date and time, plus 30 seconds per earlier message."""
    start = datetime.fromisoformat(turn.created_at())
    return start + timedelta(seconds=LOCOMO_SECONDS_BETWEEN * index)


def message(turn: Turn, index: int, role: str) -> Message:
    return Message(
        role, turn.text, name=turn.speaker, timestamp=said_at(turn, index), id=turn.dia_id
    )  # type: ignore[arg-type]


def exchanges(turns: Sequence[Turn], user: str) -> Iterator[tuple[Message, Message | None]]:
    """One session's turns as (user message, reply) pairs with ``user`` as the user: a turn
    by ``user`` and the next turn, if it is the other speaker's. A turn of the other speaker
    with no user turn before it opens no exchange."""
    for index, turn in enumerate(turns):
        if turn.speaker != user:
            continue
        following = turns[index + 1] if index + 1 < len(turns) else None
        reply = None
        if following is not None and following.speaker != user:
            reply = message(following, index + 1, "assistant")
        yield message(turn, index, "user"), reply


class TimedHost(Host):
    """The reference host, timing the ``agent_end`` hook of each turn."""

    def __init__(self, manager: pluggy.PluginManager, model: Callable[..., Any]) -> None:
        super().__init__(manager, model)
        self.agent_end_ms: list[float] = []

    def _call(self, hook: Callable[..., list[Any]], **kwargs: Any) -> list[Any]:
        started = time.perf_counter()
        result = super()._call(hook, **kwargs)
        if getattr(hook, "name", "") == "agent_end":
            self.agent_end_ms.append((time.perf_counter() - started) * 1000)
        return result


def replay(
    host: TimedHost,
    plugin: TinmemPlugin,
    conversation: Conversation,
    roles: str,
    replies: dict[str, Message | None],
    replay_stats: Replay,
) -> None:
    sessions: dict[int, list[Turn]] = {}
    for turn in conversation.turns:
        sessions.setdefault(turn.session, []).append(turn)
    speakers = list(dict.fromkeys(turn.speaker for turn in conversation.turns))
    users = speakers[:1] if roles == "given" else speakers[:2]
    replay_stats.turns += len(conversation.turns)
    for user in users:
        for turns in sessions.values():
            session = host.start_session(agent_id=agent_of(conversation))
            for said, reply in exchanges(turns, user):
                replies["next"] = reply
                host.turn(session, said)
                replay_stats.captures += 1
                started = time.perf_counter()
                plugin.flush()
                replay_stats.post_turn_ms.append((time.perf_counter() - started) * 1000)
            host.end_session(session)


def agent_of(conversation: Conversation) -> str:
    return f"bench-{conversation.sample_id}"


@dataclass
class Answers:
    """What a question got: the memories injected before the prompt and the block's text,
    and memory_recall's top 10 and the texts it returned."""

    injected: list[Memory]
    block: str
    recalled: list[Memory]
    recall_text: str

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.block) if self.block else 0


def ask(
    host: TimedHost, plugin: TinmemPlugin, conversation: Conversation, question: str
) -> Answers:
    """What ``question`` gets through the block and through memory_recall."""
    ctx = HookContext(agent_id=agent_of(conversation), session_id="questions")
    event = PromptBuildEvent(prompt=question)
    results = host.manager.hook.before_prompt_build(event=event, ctx=ctx)
    block = next((result for result in results if result and result.prepend_context), None)
    injected = plugin.service.store.get(list(block.memory_ids)) if block else {}
    tool: ToolRegistration = host.tools["memory_recall"]
    answer = tool.handler({"query": question, "limit": 10}, ctx)
    results = answer.data.get("results", [])
    ids = [item["id"] for item in results]
    recalled = plugin.service.store.get(ids)
    return Answers(
        list(injected.values()),
        block.prepend_context if block else "",
        [recalled[i] for i in ids if i in recalled],
        "\n".join(f"{item['text']} {item.get('passage') or ''}" for item in results),
    )


def store_bytes(path: Path) -> int:
    return sum(item.stat().st_size for item in path.rglob("*") if item.is_file())


def extraction_reply(body: dict[str, Any]) -> Reply:
    """The scripted LLM's answer to any request: the exchange's own levels, and no facts
    (or, for a merge decision, nothing to merge)."""
    prompt = body["messages"][-1]["content"]
    if "The turn to extract from" in prompt:
        turn = prompt.split("The turn to extract from:", 1)[1].strip()
        first = turn.splitlines()[0][:200] if turn else "an exchange"
        return Reply({"episode": {"headline": first, "summary": turn[:400]}, "memories": []})
    return Reply({"memories": [], "decisions": []})


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("path", type=Path, help="a file in LoCoMo's format")
    parser.add_argument("--roles", choices=["swap", "given"], default="swap")
    parser.add_argument("--conversations", type=int, default=None, help="only the first N")
    parser.add_argument("--llm", action="store_true", help="capture through a scripted LLM server")
    parser.add_argument(
        "--sweep",
        action="store_true",
        help="also score the block at each relevance floor, and the floor chosen with each "
        "conversation held out",
    )
    parser.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="OPTION=VALUE",
        help="change a setting (repeatable)",
    )
    parser.add_argument(
        "--fold",
        action="store_true",
        help="before the questions, fold every episode into its session's memory and forget "
        "it, as episode retention does once episodes are old",
    )
    parser.add_argument("--output", type=Path, default=Path("benchmarks/results/locomo_e2e.json"))
    parser.add_argument(
        "--keep", type=Path, help="build the store in this (new) directory and keep it"
    )
    parser.add_argument(
        "--reuse",
        type=Path,
        help="ask the questions of a store --keep left, without replaying (other recall "
        "settings on the same memories; capture and store figures are not measured)",
    )
    arguments = parser.parse_args()
    conversations = load(arguments.path)[: arguments.conversations]
    if arguments.keep:
        arguments.keep.mkdir(parents=True)
    root = arguments.reuse or arguments.keep or Path(tempfile.mkdtemp(prefix="tinmem-e2e-"))
    llm = FakeLLM() if arguments.llm else None
    try:
        values: dict[str, Any] = {
            "db_path": str(root / "db"),
            "journal_path": str(root / "journal"),
            "track_access": False,
            "auto_provision": True,
            **dict(item.split("=", 1) for item in arguments.overrides),
        }
        if llm is not None:
            llm.responder = extraction_reply
            llm.__enter__()
            values.update(llm_base_url=llm.base_url, llm_api_key="scripted")
        settings = Settings.model_validate(values)
        plugin = TinmemPlugin(settings)
        replies: dict[str, Message | None] = {"next": None}

        def model(messages: Sequence[Message], tools: Sequence[ToolRegistration]) -> Message | str:
            return replies["next"] or ""

        host = TimedHost(load_plugins([plugin], entry_points=False), model)
        replayed = Replay()
        asked: list[Asked] = []
        off_topic: list[OffTopic] = []
        started = time.perf_counter()
        with Progress() as progress:
            task = progress.add_task("replaying", total=len(conversations))
            for conversation in conversations:
                if not arguments.reuse:
                    replay(host, plugin, conversation, arguments.roles, replies, replayed)
                progress.advance(task)
            replay_seconds = time.perf_counter() - started
            if arguments.fold:  # every episode folded by session, as retention does
                folding = settings.model_copy(update={"episode_retention_days": 1})
                service = plugin.service
                folded = expire_episodes(service.store, folding, service.writer)
            questions = [(c, q) for c in conversations for q in c.questions if q.category != 5]
            task = progress.add_task("asking", total=len(questions))
            for index, conversation in enumerate(conversations):
                other = conversations[(index + 1) % len(conversations)]
                said = {turn.dia_id: turn.text for turn in conversation.turns}
                for question in conversation.questions:
                    if question.category == 5:
                        continue
                    answers = ask(host, plugin, conversation, question.text)
                    sweep = (
                        floor_sweep(
                            plugin,
                            agent_of(conversation),
                            question.text,
                            question.evidence,
                            coverage,
                        )
                        if arguments.sweep
                        else []
                    )
                    asked.append(
                        Asked(
                            index,
                            question.category,
                            coverage(answers.injected, question.evidence, said, answers.block),
                            coverage(
                                answers.recalled, question.evidence, said, answers.recall_text
                            ),
                            answers.tokens,
                            shown_coverage(question.evidence, said, answers.block),
                            sweep,
                        )
                    )
                    progress.advance(task)
                if other is not conversation:
                    for question in other.questions:
                        if question.category != 5:
                            injected = ask(host, plugin, conversation, question.text).injected
                            blocks = (
                                [
                                    bool(tokens)
                                    for _, tokens in floor_sweep(
                                        plugin, agent_of(conversation), question.text, [], coverage
                                    )
                                ]
                                if arguments.sweep
                                else []
                            )
                            off_topic.append(OffTopic(index, bool(injected), blocks))
        store = plugin.service.store
        kept = store.count()
        raw_bytes = store_bytes(root / "db")
        if not arguments.reuse:
            # upkeep keeping no older version, of the memories and of their history: the
            # store as it settles once version_retention_seconds have passed
            store.purge()
            store.history.flush()
            store.history.prune(timedelta(days=settings.history_retention_days), timedelta(0))
        report = summary(
            asked, off_topic, None if arguments.reuse else replayed, kept, store_bytes(root / "db")
        )
        report.update(
            data=str(arguments.path),
            roles=arguments.roles,
            llm=bool(llm),
            conversations=len(conversations),
            llm_requests=len(llm.requests) if llm else 0,
            settings=arguments.overrides,
        )
        if not arguments.reuse:
            report.update(
                replay_seconds=round(replay_seconds, 1),
                store_mb_before_upkeep=round(raw_bytes / 1e6, 2),
                agent_end_ms_p95=round(percentile(host.agent_end_ms, 0.95), 2),
            )
        if arguments.fold:
            report["episodes_folded"] = folded
        if arguments.sweep:
            probe = assistant_probe(plugin)
            report["relevance_floor"] = sweep_summary(asked, off_topic, probe)
        save_results(arguments.output, report)
        print(json.dumps(report, indent=2))
        plugin.close()
    finally:
        if llm is not None:
            llm.__exit__(None, None, None)
        if not (arguments.keep or arguments.reuse):
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
