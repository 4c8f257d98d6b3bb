"""Past conversations read back from files, for ``tinmem ingest``.

Three formats, told apart by their content (``detect``):

``openclaw``
    The JSONL transcript an OpenClaw gateway writes per session
    (``~/.openclaw/agents/<agent>/sessions/<session>.jsonl``, and the ``.reset.<time>``
    archives beside it): a ``{"type": "session"}`` header, then one event per line. Newer
    gateways keep the same events in each agent's database
    (``agents/<agent>/agent/openclaw-agent.sqlite``, table ``transcript_events``), read too.
    Lines of ``"type": "message"`` with a ``user`` or ``assistant`` message are read: its text parts
    (thinking, tool calls and images are not), its time (``message.timestamp`` in ms, else the
    line's), its id, and the sender's name OpenClaw records (``__openclaw.senderName``). Tool
    results are read (clipped) only to tell whether a reply quotes them (``capture.trust``),
    never stored. The agent is the ``agents/<agent>/`` folder the file lies in.
``messages``
    A plain JSONL of messages, one per line: ``role`` (user, assistant, or tool — read as
    tool results are above; system lines are passed over), ``content`` (text, or a list of
    ``{"type": "text", "text"}`` parts), and optionally ``timestamp`` (ISO 8601 or epoch
    seconds/ms), ``session``, ``name`` (who said it, or the tool), ``id``, ``agent``, ``user``.
``locomo``
    LoCoMo's JSON: a list of samples whose sessions are dated ("1:56 pm on 8 May, 2023");
    the first speaker is the user, the second answers, and messages are 30 seconds apart.

Every problem is reported with its file and line number, and nothing is returned as valid
from a file that has one; ``tinmem ingest`` then writes nothing unless told to skip them.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import zstandard

from openclaw_tinmem.capture.transcript_files import transcript_files
from openclaw_tinmem.capture.trust import TOOL_OUTPUT_CHARACTERS, is_outside_words
from openclaw_tinmem.events import HookContext, Message, Role, parse_timestamp
from openclaw_tinmem.text import lines_of

FORMATS = ("auto", "openclaw", "messages", "locomo")
MAX_EVENT_BYTES = 4 * 2**20  # OpenClaw's bound on one stored event
SPOKEN = ("user", "assistant")
PASSED_OVER = ("system", "developer")
# tool results, kept (clipped) as ``tool`` messages so capture can tell whether a reply
# quotes them (capture.trust); they are never stored
TOOL_RESULTS = ("tool", "toolResult", "function")
TOOL_ROLE: Role = "tool"
LOCOMO_DATE_FORMAT = "%I:%M %p on %d %B, %Y"
LOCOMO_SECONDS_BETWEEN = 30


@dataclass(frozen=True)
class Problem:
    """A line that cannot be read: where, which field, and why."""

    path: Path
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


@dataclass
class Transcript:
    """One session's messages in order, and who and where they belong to."""

    origin: str  # "<file>" or "<file>#<session>", for reports
    ctx: HookContext
    messages: list[Message] = field(default_factory=list)


@dataclass
class Reading:
    """What the files held: the transcripts read and the problems found."""

    transcripts: list[Transcript] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    files: int = 0
    # files left out whole for an invalid line: a session read with a line missing could
    # join messages that were not said one after another
    skipped: list[Path] = field(default_factory=list)


def detect(path: Path, text: str) -> str:
    """The format of a file, from its first value."""
    start = text.lstrip()
    if start.startswith("["):
        return "locomo"
    first = next((line for line in lines_of(text) if line.strip()), "")
    try:
        value = json.loads(first)
    except json.JSONDecodeError:
        return "messages"  # its first line is reported as invalid there
    if isinstance(value, dict) and (value.get("type") == "session" or "message" in value):
        return "openclaw"
    return "messages"


def read(
    paths: Iterable[Path],
    file_format: str = "auto",
    *,
    agent_id: str | None = None,
    user_id: str | None = None,
) -> Reading:
    """Every transcript in ``paths``; ``agent_id`` and ``user_id`` apply where a file does
    not say."""
    reading = Reading()
    for path in transcript_files(paths):
        reading.files += 1
        defaults = HookContext(agent_id=agent_id or "main", user_id=user_id)
        if path.suffix == ".sqlite" and file_format in ("auto", "openclaw"):
            found, problems = _openclaw_database(path, defaults, agent_id)
            reading.problems += problems
            reading.skipped += [path] if problems else []
            reading.transcripts += [transcript for transcript in found if transcript.messages]
            continue
        try:
            text = path.read_text(encoding="utf-8").removeprefix("\ufeff")  # a byte-order mark
        except (OSError, UnicodeDecodeError) as error:
            reading.problems.append(Problem(path, 0, f"cannot be read: {error}"))
            reading.skipped.append(path)
            continue
        kind = detect(path, text) if file_format == "auto" else file_format
        if kind == "openclaw":
            found, problems = _openclaw(path, text, defaults, agent_id)
        elif kind == "locomo":
            found, problems = _locomo(path, text, defaults)
        else:
            found, problems = _messages(path, text, defaults)
        reading.problems += problems
        reading.skipped += [path] if problems else []
        reading.transcripts += [transcript for transcript in found if transcript.messages]
    return reading


def _lines(path: Path, text: str, problems: list[Problem]) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) of each non-empty line; other lines become problems."""
    return _objects(path, enumerate(lines_of(text), start=1), problems)


def _objects(
    path: Path, lines: Iterable[tuple[int, str]], problems: list[Problem]
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(number, object) of each non-empty numbered line; other lines become problems."""
    for number, line in lines:
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as error:
            problems.append(Problem(path, number, f"not JSON ({error.msg})"))
            continue
        if not isinstance(value, dict):
            problems.append(Problem(path, number, "expected a JSON object"))
            continue
        yield number, value


def _text(content: Any) -> str | None:
    """A message's words: its text, or the text parts of a list of parts; None if neither."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [part.get("text") for part in content if isinstance(part, dict)]
        kinds = [part.get("type", "text") for part in content if isinstance(part, dict)]
        return "\n".join(
            str(text)
            for text, kind in zip(parts, kinds, strict=True)
            if kind == "text" and isinstance(text, str)
        )
    return None


def _time(value: Any, number: int, path: Path, problems: list[Problem]) -> datetime | None:
    if value is None:
        return None
    when = parse_timestamp(value)
    if when is None:
        problems.append(
            Problem(path, number, f"timestamp: {value!r} is not ISO 8601 or epoch seconds/ms")
        )
    return when


def _agent_of(path: Path) -> str | None:
    """The agent of an OpenClaw transcript or database: the folder of ``agents/<agent>/``
    (``sessions/<id>.jsonl``, ``agent/openclaw-agent.sqlite``)."""
    parts = path.resolve().parts
    for index in range(len(parts) - 3, -1, -1):
        if parts[index] == "agents" and parts[index + 2] in ("sessions", "agent"):
            return parts[index + 1]
    return None


def _openclaw(
    path: Path, text: str, defaults: HookContext, agent_id: str | None
) -> tuple[list[Transcript], list[Problem]]:
    problems: list[Problem] = []
    agent = agent_id or _agent_of(path) or defaults.agent_id
    session = path.name.split(".jsonl", 1)[0]
    lines = enumerate(lines_of(text), start=1)
    found = _openclaw_session(path, lines, session, agent, defaults, problems)
    return ([found] if not problems else []), problems


def _openclaw_database(
    path: Path, defaults: HookContext, agent_id: str | None
) -> tuple[list[Transcript], list[Problem]]:
    """The sessions of an agent's OpenClaw database (``agents/<agent>/agent/
    openclaw-agent.sqlite``, table ``transcript_events``: each event the same JSON as a line
    of the transcript files, zstd-compressed when large). Problems are numbered by ``seq``."""
    agent = agent_id or _agent_of(path) or defaults.agent_id
    try:
        with contextlib.closing(
            sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        ) as db:
            rows = db.execute(
                "SELECT session_id, seq, event_json, event_zstd FROM transcript_events "
                "ORDER BY session_id, seq"
            ).fetchall()
    except sqlite3.Error as error:
        return [], [Problem(path, 0, f"not an OpenClaw agent database ({error})")]
    problems: list[Problem] = []
    sessions: dict[str, list[tuple[int, str]]] = {}
    for session, seq, text, compressed in rows:
        try:
            event = text if text is not None else _decompressed(compressed)
        except (ValueError, zstandard.ZstdError) as error:
            problems.append(Problem(path, int(seq), f"event of session {session}: {error}"))
            continue
        sessions.setdefault(str(session), []).append((int(seq), event))
    found = [
        _openclaw_session(path, lines, session, agent, defaults, problems)
        for session, lines in sessions.items()
    ]
    return ([] if problems else found), problems


def _decompressed(data: bytes | None) -> str:
    if not data:
        raise ValueError("neither event_json nor event_zstd")
    decoded: bytes = zstandard.ZstdDecompressor().decompress(data, max_output_size=MAX_EVENT_BYTES)
    return decoded.decode("utf-8")


def _openclaw_session(
    path: Path,
    lines: Iterable[tuple[int, str]],
    session: str,
    agent: str,
    defaults: HookContext,
    problems: list[Problem],
) -> Transcript:
    """One session's transcript from its numbered event lines."""
    messages: list[Message] = []
    for number, line in _objects(path, lines, problems):
        if line.get("type") == "session":
            session = str(line.get("id") or session)
            continue
        said = line.get("message")
        if line.get("type") != "message" or not isinstance(said, dict):
            continue  # model changes, compactions, custom events
        role = _role(said.get("role"))
        if role not in (*SPOKEN, TOOL_ROLE):
            continue
        words = _text(said.get("content"))
        if words is None:
            problems.append(Problem(path, number, "message.content: expected text or parts"))
            continue
        if role == TOOL_ROLE:  # kept only to tell whether a reply quotes it
            if not is_outside_words(said.get("toolName"), words):
                continue
            words = words[:TOOL_OUTPUT_CHARACTERS]
        when = _time(said.get("timestamp") or line.get("timestamp"), number, path, problems)
        sender = said.get("__openclaw")
        name = sender.get("senderName") if role == "user" and isinstance(sender, dict) else None
        identifier = line.get("id") or said.get("id")
        messages.append(
            Message(role, words, name=_optional(name), timestamp=when, id=_optional(identifier))
        )
    ctx = HookContext(agent_id=agent, session_id=session, user_id=defaults.user_id)
    return Transcript(f"{path}#{session}", ctx, messages)


def _role(given: Any) -> Role | None:
    """A transcript's role as ours: user, assistant, or tool for any tool result."""
    if given in TOOL_RESULTS:
        return TOOL_ROLE
    return "user" if given == "user" else "assistant" if given == "assistant" else None


def _optional(value: Any) -> str | None:
    return str(value) if value not in (None, "") else None


def _messages(
    path: Path, text: str, defaults: HookContext
) -> tuple[list[Transcript], list[Problem]]:
    problems: list[Problem] = []
    sessions: dict[tuple[str, str, str | None], Transcript] = {}
    for number, line in _lines(path, text, problems):
        if line.get("role") in PASSED_OVER:
            continue
        role = _role(line.get("role"))
        if role is None:
            allowed = "user, assistant, tool (system lines are passed over)"
            problems.append(
                Problem(path, number, f"role: {line.get('role')!r} is not one of {allowed}")
            )
            continue
        words = _text(line.get("content"))
        if words is None:
            problems.append(Problem(path, number, "content: expected text or a list of parts"))
            continue
        if role == TOOL_ROLE:
            if not is_outside_words(_optional(line.get("name")), words):
                continue
            words = words[:TOOL_OUTPUT_CHARACTERS]
        when = _time(line.get("timestamp"), number, path, problems)
        session = str(line.get("session") or "default")
        agent = str(line.get("agent") or defaults.agent_id)
        user = _optional(line.get("user")) or defaults.user_id
        key = (session, agent, user)
        if key not in sessions:
            ctx = HookContext(agent_id=agent, session_id=session, user_id=user)
            sessions[key] = Transcript(f"{path}#{session}", ctx)
        name = _optional(line.get("name") or line.get("speaker"))
        sessions[key].messages.append(
            Message(role, words, name=name, timestamp=when, id=_optional(line.get("id")))
        )
    return ([] if problems else list(sessions.values())), problems


def _locomo(path: Path, text: str, defaults: HookContext) -> tuple[list[Transcript], list[Problem]]:
    try:
        samples = json.loads(text)
    except json.JSONDecodeError as error:
        return [], [Problem(path, error.lineno, f"not JSON ({error.msg})")]
    if not isinstance(samples, list):
        return [], [Problem(path, 1, "expected a list of LoCoMo samples")]
    transcripts: list[Transcript] = []
    problems: list[Problem] = []
    for index, sample in enumerate(samples):
        conversation = sample.get("conversation") if isinstance(sample, dict) else None
        if not isinstance(conversation, dict):
            problems.append(Problem(path, 1, f"sample {index}: conversation: expected an object"))
            continue
        name = str(sample.get("sample_id") or index)
        user_speaker = conversation.get("speaker_a")
        for key, turns in conversation.items():
            if not key.startswith("session_") or not isinstance(turns, list):
                continue
            try:
                start = datetime.strptime(
                    str(conversation.get(f"{key}_date_time")), LOCOMO_DATE_FORMAT
                )
            except ValueError:
                problems.append(
                    Problem(path, 1, f"{name} {key}_date_time: not like '1:56 pm on 8 May, 2023'")
                )
                continue
            said = [turn for turn in turns if isinstance(turn, dict)]
            if wrong := [turn for turn in said if not isinstance(turn.get("text", ""), str)]:
                where = f"{name} {key} turn {wrong[0].get('dia_id') or said.index(wrong[0])}"
                problems.append(Problem(path, 1, f"{where}: text must be text"))
                continue
            messages = [
                Message(
                    "user" if turn.get("speaker") == user_speaker else "assistant",
                    turn.get("text", ""),
                    name=_optional(turn.get("speaker")),
                    timestamp=parse_timestamp(
                        start + timedelta(seconds=LOCOMO_SECONDS_BETWEEN * position)
                    ),
                    id=_optional(turn.get("dia_id")),
                )
                for position, turn in enumerate(said)
            ]
            ctx = HookContext(
                agent_id=defaults.agent_id, session_id=f"{name}:{key}", user_id=defaults.user_id
            )
            transcripts.append(Transcript(f"{path}#{name}:{key}", ctx, messages))
    return ([] if problems else transcripts), problems
