import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import zstandard

from openclaw_tinmem.capture import transcripts
from openclaw_tinmem.capture.episodes import EPISODE_TAG
from openclaw_tinmem.capture.ingest import ingest, pipelines, turns_of
from openclaw_tinmem.capture.transcript_files import transcript_files
from openclaw_tinmem.config import Settings
from openclaw_tinmem.events import Message
from openclaw_tinmem.models import Source
from openclaw_tinmem.plugin.hookimpls import TinmemPlugin
from openclaw_tinmem.plugin.host import Host, load_plugins
from openclaw_tinmem.service import MemoryService

MAY_8 = 1683554160000  # 2023-05-08T13:56:00Z in milliseconds, as OpenClaw writes it


def _openclaw_session(folder: Path) -> Path:
    """A transcript as an OpenClaw gateway writes it, with the events capture passes over."""
    sessions = folder / "agents" / "travel" / "sessions"
    sessions.mkdir(parents=True)
    lines = [
        {"type": "session", "version": 3, "id": "s-42", "timestamp": "2023-05-08T13:55:00Z"},
        {"type": "model_change", "id": "e0", "provider": "openai", "modelId": "gpt-5"},
        {
            "type": "message",
            "id": "e1",
            "parentId": None,
            "timestamp": "2023-05-08T13:56:01Z",
            "message": {
                "role": "user",
                "timestamp": MAY_8,
                "content": [
                    {
                        "type": "text",
                        "text": "I really prefer aisle seats on night trains to Vienna.",
                    }
                ],
                "__openclaw": {"senderName": "Ana", "senderId": "tg:77"},
            },
        },
        {
            "type": "message",
            "id": "e2",
            "parentId": "e1",
            "timestamp": "2023-05-08T13:56:30Z",
            "message": {
                "role": "assistant",
                "timestamp": MAY_8 + 30000,
                "content": [
                    {"type": "thinking", "thinking": "The user likes aisles."},
                    {"type": "text", "text": "Noted: aisle seats on the Vienna night train."},
                    {"type": "toolCall", "id": "t1", "name": "memory_store", "arguments": {}},
                ],
            },
        },
        {
            "type": "message",
            "id": "e3",
            "parentId": "e2",
            "timestamp": "2023-05-08T13:56:31Z",
            "message": {"role": "toolResult", "toolCallId": "t1", "content": "stored"},
        },
    ]
    path = sessions / "s-42.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_an_openclaw_transcript_is_captured_with_its_times_speakers_and_messages(
    service: MemoryService, settings: Settings, tmp_path: Path
) -> None:
    _openclaw_session(tmp_path / "state")
    reading = transcripts.read([tmp_path / "state"])
    assert reading.problems == [] and reading.files == 1
    (transcript,) = reading.transcripts
    assert (transcript.ctx.agent_id, transcript.ctx.session_id) == ("travel", "s-42")
    # the tool result is read (to tell whether the reply quotes it), never stored
    assert [m.role for m in transcript.messages] == ["user", "assistant", "tool"]
    assert "likes aisles" not in transcript.messages[1].content  # thinking is not said

    told: list[tuple[str, int]] = []
    report = ingest(
        reading.transcripts,
        settings,
        *pipelines(service, settings),
        progress=lambda done: told.append(("done", done)),
        counted=lambda total: told.append(("total", total)),
    )
    assert (report.sessions, report.turns) == (1, 1) and report.created >= 2
    assert told == [("total", 1), ("done", 1)]  # the bar's total comes before any progress
    memories = service.store.list_memories(scopes=["agent:travel"])
    (episode,) = [m for m in memories if EPISODE_TAG in m.tags]
    assert episode.created_at == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert episode.source is Source.INGEST
    assert episode.content.startswith("Ana: I really prefer aisle seats")
    assert episode.provenance.message_ids == ("e1", "e2")
    assert episode.provenance.session_id == "s-42"
    facts = [m for m in memories if EPISODE_TAG not in m.tags]
    assert facts and all(fact.provenance.episode_id == episode.id for fact in facts)

    again = ingest(reading.transcripts, settings, *pipelines(service, settings))
    assert again.created == 0 and service.store.count() == len(memories)


def test_a_conversation_captured_live_then_ingested_is_kept_once(
    settings: Settings, tmp_path: Path
) -> None:
    live = settings.model_copy(update={"journal_path": str(tmp_path / "journal")})
    plugin = TinmemPlugin(live)
    said = datetime(2024, 2, 1, 9, 0, tzinfo=UTC)
    reply = Message("assistant", "Then Lisbon it is for the offsite.", timestamp=said)
    host = Host(load_plugins([plugin], entry_points=False), lambda messages, tools: reply)
    session = host.start_session(agent_id="main")
    question = Message("user", "We decided the offsite will be in Lisbon in June.", timestamp=said)
    host.turn(session, question)
    assert plugin.flush()
    kept = plugin.service.store.count()
    assert kept >= 2

    exported = tmp_path / "history.jsonl"
    rows = [
        {"role": m.role, "content": m.content, "timestamp": said.isoformat(), "session": "x"}
        for m in (question, reply)
    ]
    exported.write_text("".join(json.dumps(row) + "\n" for row in rows))
    reading = transcripts.read([exported])
    report = ingest(reading.transcripts, live, *pipelines(plugin.service, live))
    assert report.created == 0 and plugin.service.store.count() == kept
    plugin.close()


def test_every_bad_line_is_named_and_nothing_is_read_from_its_file(tmp_path: Path) -> None:
    path = tmp_path / "messages.jsonl"
    path.write_text(
        '{"role": "user", "content": "I moved to Porto last year.", "timestamp": 1700000000}\n'
        "not json\n"
        '{"role": "narrator", "content": "x"}\n'
        '{"role": "system", "content": "You are helpful."}\n'
        '{"role": "assistant", "content": 42}\n'
        '{"role": "user", "content": "hi", "timestamp": "last Tuesday"}\n'
    )
    reading = transcripts.read([path])
    assert [(problem.line, problem.message.split(":")[0]) for problem in reading.problems] == [
        (2, "not JSON (Expecting value)"),
        (3, "role"),
        (5, "content"),
        (6, "timestamp"),
    ]
    assert reading.transcripts == []


def test_plain_messages_are_cut_into_turns_as_a_host_would(settings: Settings) -> None:
    transcript = transcripts.Transcript(
        "x",
        transcripts.HookContext(agent_id="main", session_id="s"),
        [
            Message("user", "First question about the build."),
            Message("assistant", "It is green."),
            Message("user", "And the deploy?"),
            Message("user", "It is Friday."),
            Message("assistant", "Deploys run on Fridays."),
        ],
    )
    records = turns_of(transcript, settings)
    assert len(records) == 2
    assert [m.content for m in records[1].messages[-3:]] == [
        "And the deploy?",
        "It is Friday.",
        "Deploys run on Fridays.",
    ]
    assert all(record.source == "ingest" for record in records)


def test_locomo_sessions_are_read_with_their_dates_and_speakers(tmp_path: Path) -> None:
    sample = {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Caroline",
            "speaker_b": "Melanie",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Caroline", "dia_id": "D1:1", "text": "I went to a support group."},
                {"speaker": "Melanie", "dia_id": "D1:2", "text": "How was it?"},
            ],
        },
        "qa": [],
    }
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([sample]))
    (transcript,) = transcripts.read([path]).transcripts
    first, second = transcript.messages
    assert (first.role, first.name, first.id) == ("user", "Caroline", "D1:1")
    assert (second.role, second.name) == ("assistant", "Melanie")
    assert first.timestamp == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert (second.timestamp - first.timestamp).seconds == 30  # type: ignore[operator]


def test_an_openclaw_agent_database_is_read_compressed_events_included(tmp_path: Path) -> None:
    database = tmp_path / "agents" / "ops" / "agent" / "openclaw-agent.sqlite"
    database.parent.mkdir(parents=True)
    events = [
        {"type": "session", "id": "s-7"},
        {
            "type": "message",
            "id": "e1",
            "message": {
                "role": "user",
                "timestamp": MAY_8,
                "content": "The staging database moved to port 6543 " + "and " * 300 + "today.",
            },
        },
        {
            "type": "message",
            "id": "e2",
            "message": {
                "role": "assistant",
                "timestamp": MAY_8 + 5000,
                "content": "Noted: port 6543.",
            },
        },
    ]
    with sqlite3.connect(database) as db:
        db.execute(  # as OpenClaw 2026.9 creates it, less its checks
            "CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, "
            "event_json TEXT, created_at INTEGER NOT NULL, event_zstd BLOB, "
            "event_utf8_bytes INTEGER, navigation_json TEXT, PRIMARY KEY (session_id, seq))"
        )
        for seq, event in enumerate(events):
            text = json.dumps(event)
            packed = zstandard.ZstdCompressor().compress(text.encode()) if seq == 1 else None
            db.execute(
                "INSERT INTO transcript_events VALUES (?, ?, ?, ?, ?, ?, ?)",
                ("s-7", seq, None if packed else text, 0, packed, len(text), None),
            )
    reading = transcripts.read([tmp_path / "agents"])
    assert reading.problems == []
    (transcript,) = reading.transcripts
    assert (transcript.ctx.agent_id, transcript.ctx.session_id) == ("ops", "s-7")
    said, reply = transcript.messages
    assert said.content.startswith("The staging database moved") and said.id == "e1"
    assert reply.timestamp == datetime(2023, 5, 8, 13, 56, 5, tzinfo=UTC)


def test_the_cli_offers_every_format_the_reader_knows() -> None:
    # the CLI keeps its own copy so that `tinmem --help` does not import the readers
    from openclaw_tinmem.cli.admin_commands import TRANSCRIPT_FORMATS

    assert TRANSCRIPT_FORMATS == transcripts.FORMATS


def test_an_ingested_reply_that_quotes_a_tool_result_is_kept_untrusted(
    service: MemoryService, settings: Settings, tmp_path: Path
) -> None:
    page = (
        "Shipping notice: parcels to Norway are held at customs until the recipient pays "
        "the import fee through the courier's portal."
    )
    lines = [
        {"role": "user", "content": "Why is my parcel to Norway stuck in transit?", "session": "s"},
        {"role": "toolResult", "content": page, "session": "s"},
        {
            "role": "assistant",
            "content": "Parcels to Norway are held at customs until the "
            "recipient pays the import fee through the courier's portal.",
            "session": "s",
        },
        {
            "role": "user",
            "content": "I also ordered a spare charger for the camera.",
            "session": "s",
        },
        {"role": "assistant", "content": "Good idea, noted the charger.", "session": "s"},
    ]
    path = tmp_path / "chat.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    reading = transcripts.read([path], "messages")
    assert reading.problems == []
    ingest(reading.transcripts, settings, *pipelines(service, settings))
    episodes = [m for m in service.store.list_memories() if EPISODE_TAG in m.tags]
    trust = {m.content.split("\n")[0]: m.provenance.untrusted for m in episodes}
    assert trust == {
        "User: Why is my parcel to Norway stuck in transit?": "quotes tool output",
        "User: I also ordered a spare charger for the camera.": None,
    }
    assert all(
        "import fee" not in m.content or EPISODE_TAG in m.tags
        for m in service.store.list_memories()
    )


def test_undated_messages_of_two_sessions_with_the_same_ids_are_both_kept(
    service: MemoryService, settings: Settings, tmp_path: Path
) -> None:
    rows = [
        ("a", "1", "user", "My name is Carla and I work as a pilot for a cargo airline."),
        ("a", "2", "assistant", "Flying cargo must keep you on odd hours, Carla."),
        ("b", "1", "user", "I prefer hiking in the Dolomites over any beach holiday."),
        ("b", "2", "assistant", "The Dolomites are stunning for hiking."),
    ]
    path = tmp_path / "messages.jsonl"
    path.write_text(
        "".join(
            json.dumps({"session": session, "id": key, "role": role, "content": content}) + "\n"
            for session, key, role, content in rows
        )
    )
    reading = transcripts.read([path])
    report = ingest(reading.transcripts, settings, *pipelines(service, settings))
    episodes = [m for m in service.store.list_memories() if EPISODE_TAG in m.tags]
    assert report.turns == 2 and len(episodes) == 2
    assert any("Dolomites" in episode.content for episode in episodes)
    again = ingest(transcripts.read([path]).transcripts, settings, *pipelines(service, settings))
    assert again.created == 0


def test_line_separators_inside_json_strings_do_not_cut_lines(
    service: MemoryService, settings: Settings, tmp_path: Path
) -> None:
    """JSON may hold U+2028, U+2029 and U+0085 unescaped (JavaScript's JSON.stringify writes
    them so): only a line feed ends a line."""
    said = "I moved to Porto\u2028last year\u2029 for the new job\u0085 at the harbour."
    path = tmp_path / "messages.jsonl"
    message = {"role": "user", "content": said, "timestamp": 1700000000, "session": "s"}
    path.write_text(json.dumps(message, ensure_ascii=False) + "\r\n", encoding="utf-8")
    reading = transcripts.read([path])
    assert reading.problems == []
    (transcript,) = reading.transcripts
    assert transcript.messages[0].content == said


def test_a_state_folder_gives_its_transcripts_not_its_other_files(tmp_path: Path) -> None:
    sessions = tmp_path / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    (tmp_path / "agents" / "main" / "agent").mkdir()
    names = {
        "agents/main/sessions/s1.jsonl": '{"type": "session"}\n',
        "agents/main/sessions/s1.jsonl.lock": "4242",
        "agents/main/sessions/s0.jsonl.reset.2026-01-02T10-00-00Z": '{"type": "session"}\n',
        "agents/main/sessions/s9.jsonl.deleted.2026-01-03": '{"type": "session"}\n',
        "agents/main/sessions/sessions.json": '{"s1": {}}',
        "agents/main/agent/auth-profiles.json": '{"profiles": {"openai": {"key": "sk-x"}}}',
        "agents/main/agent/models.json": '{"providers": {}}',
        "conversations.json": ' \n[{"sample_id": "conv-1"}]',
    }
    for name, text in names.items():
        (tmp_path / name).write_text(text)
    found = [path.relative_to(tmp_path).as_posix() for path in transcript_files([tmp_path])]
    assert sorted(found) == [
        "agents/main/sessions/s0.jsonl.reset.2026-01-02T10-00-00Z",
        "agents/main/sessions/s1.jsonl",
        "conversations.json",
    ]


def test_a_locomo_turn_whose_text_is_not_text_is_named(tmp_path: Path) -> None:
    sample = {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Ana",
            "speaker_b": "Bo",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ana", "dia_id": "D1:1", "text": "I moved to Porto."},
                {"speaker": "Bo", "dia_id": "D1:2", "text": {"t": "Nice!"}},
            ],
        },
    }
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([sample]))
    reading = transcripts.read([path])
    assert reading.transcripts == []
    assert [problem.message for problem in reading.problems] == [
        "conv-x session_1 turn D1:2: text must be text"
    ]
