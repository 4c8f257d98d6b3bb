"""The redactor against a corpus of secrets and of ordinary text, and on every path that keeps
text: the journal, capture, memory_store, memory_update, merges, imports, workspace writes."""

import json
import re
from pathlib import Path

import pytest
from filelock import FileLock
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.secret_corpus import NEGATIVES, POSITIVES
from openclaw_tinmem.capture.worker import WORKER_LOCK_NAME
from openclaw_tinmem.config import Settings
from openclaw_tinmem.events import AgentEndEvent, HookContext, Message
from openclaw_tinmem.maintenance import import_memories
from openclaw_tinmem.models import Category
from openclaw_tinmem.redaction import (
    _ASSIGNED_CODE,
    _ASSIGNED_SECRET,
    _CODE_NAMES,
    _SECRET_NAME_PARTS,
    DETECTORS,
    REDACTED,
    _folded,
    count_redactions,
    luhn_valid,
    redact_secrets,
    redact_together,
)
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.tools.toolbox import build_toolbox


@pytest.mark.parametrize(("text", "secret"), POSITIVES)
def test_every_secret_of_the_corpus_is_redacted(text: str, secret: str) -> None:
    redacted, count = count_redactions(text)
    assert secret not in redacted and count >= 1 and REDACTED in redacted


@pytest.mark.parametrize("text", NEGATIVES)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact_secrets(text) == text


def test_the_luhn_check_tells_card_numbers_from_other_digits() -> None:
    assert luhn_valid("4111111111111111") and not luhn_valid("4111111111111112")
    assert redact_secrets("ref 4111111111111112 ok") == "ref 4111111111111112 ok"


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("link &s\u0131g=abcdefghijklmnopqrstuv", "abcdefghijklmnopqrstuv"),  # dotless i
        ("pa\u017f\u017fword: hunter2x", "hunter2x"),  # long s: a case-insensitive s
        ("api \u212aey = abcd1234efgh", "abcd1234efgh"),  # Kelvin sign: a case-insensitive k
        ("card \u0664\u0661\u0661\u0661" + "\u0661" * 12 + " ok", "\u0664\u0661\u0661\u0661"),
        ("BEARER abcdefghijklmnopqrstuvwx", "abcdefghijklmnopqrstuvwx"),
    ],
)
def test_secrets_in_unusual_letters_or_digits_are_still_redacted(text: str, secret: str) -> None:
    # Each detector runs only on text that holds one of its strings (case-folded): these
    # spellings are ones a case-insensitive pattern or \\d matches and a plain lower() or
    # ASCII check would miss.
    redacted, count = count_redactions(text)
    assert secret not in redacted and count >= 1


@pytest.mark.parametrize(
    ("pattern", "needles"),
    [*DETECTORS, (_ASSIGNED_SECRET, _SECRET_NAME_PARTS), (_ASSIGNED_CODE, _CODE_NAMES)],
    ids=lambda value: value.pattern[:24] if hasattr(value, "pattern") else "",
)
def test_every_text_a_detector_matches_holds_one_of_its_strings(
    pattern: re.Pattern[str], needles: tuple[str, ...]
) -> None:
    # The redactor runs a detector only on text holding one of its strings: a pattern that
    # grows a match without one (a new secret name, say) must add a string, or this fails.
    @settings(max_examples=100, derandomize=True, suppress_health_check=list(HealthCheck))
    @given(st.from_regex(pattern))
    def check(text: str) -> None:
        assert pattern.search(text)
        folded = _folded(text)
        assert any(needle in folded for needle in needles), text

    check()


def test_the_journal_never_holds_a_secret(plugin_settings: Settings, make_plugin) -> None:  # type: ignore[no-untyped-def]
    journal = Path(plugin_settings.journal_path)
    journal.mkdir(parents=True)
    # hold the journal as another process's worker would: this one leaves the turn on disk
    with FileLock(str(journal / WORKER_LOCK_NAME)):
        plugin = make_plugin(plugin_settings)
        text = "my password is hunter2x, card 4111 1111 1111 1111"
        plugin.agent_end(
            event=AgentEndEvent(messages=(Message("user", text),)), ctx=HookContext(agent_id="a")
        )
        (path,) = journal.glob("*.turn.json")
        raw = path.read_text()
        assert "hunter2x" not in raw and "4111 1111" not in raw and raw.count(REDACTED) == 2
        assert oct(journal.stat().st_mode & 0o777) == "0o700"
        assert oct(path.stat().st_mode & 0o777) == "0o600"


def test_a_secret_repeated_without_its_keyword_is_redacted_in_the_whole_turn(
    plugin_settings: Settings, make_plugin
) -> None:  # type: ignore[no-untyped-def]
    journal = Path(plugin_settings.journal_path)
    journal.mkdir(parents=True)
    with FileLock(str(journal / WORKER_LOCK_NAME)):
        plugin = make_plugin(plugin_settings)
        said = (
            Message("user", "my password is Tr0ub4dor&3 for the home NAS"),
            Message("assistant", "Got it: Tr0ub4dor&3 for the home NAS."),
            Message("user", "And card 4111 1111 1111 1111, again 4111 1111 1111 1111"),
        )
        plugin.agent_end(event=AgentEndEvent(messages=said), ctx=HookContext(agent_id="a"))
        (path,) = journal.glob("*.turn.json")
        raw = path.read_text()
    assert "Tr0ub4dor" not in raw and "4111" not in raw, raw
    assert "Got it: [REDACTED] for the home NAS." in raw


def test_redacting_together_leaves_turns_without_secrets_alone() -> None:
    texts = ["The deploy window is Tuesday.", "Noted: Tuesday it is."]
    assert redact_together(texts) == texts
    assert redact_together(["pin: 1234", "the code 1234 again", "room 12345"]) == [
        "pin: [REDACTED]",
        "the code [REDACTED] again",
        "room 12345",
    ]  # a found value is replaced wherever it recurs as a whole


def test_every_write_path_redacts_and_says_how_many(service: MemoryService, tmp_path: Path) -> None:
    tools = build_toolbox(service)
    stored = tools.call(
        "memory_store",
        {
            "content": "Staging uses sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv as key",
            "category": "entities",
        },
    )
    assert stored.data["redacted"] == 1
    memory = service.get(stored.data["id"])
    assert "sk-proj" not in memory.content + memory.headline + memory.summary
    updated = tools.call(
        "memory_update",
        {"id": memory.id, "content": "The db password is hunter2x", "summary": "pw: s3cr3tpass"},
    )
    assert "hunter2x" not in json.dumps(updated.data) and "s3cr3tpass" not in json.dumps(
        updated.data
    )
    assert updated.data["redacted"] == 2 and "2 secret(s)" in updated.text
    plain = tools.call("memory_update", {"id": memory.id, "importance": 0.9})
    assert "redacted" not in plain.data
    report = import_memories(
        service, [json.dumps({"content": "card 5500005555555559 on file", "category": "events"})]
    )
    assert report.imported == 1 and report.redacted == 1
    assert all("5500005555555559" not in m.content for m in service.list_memories(limit=None))
    written = tools.call("memory_write", {"content": "token: abcd1234efgh", "target": "memory"})
    assert not written.is_error
    read = tools.call("memory_read", {"path": "MEMORY.md"})
    assert "abcd1234efgh" not in read.data["content"]
    merged = service.remember("User's profile: password is letmein99", Category.PROFILE)
    assert "letmein99" not in service.get(merged.memory.id).content
