"""LoCoMo-format conversations (LoCoMo's, and BEAM's converted to it): turns, questions,
the loader, and what a retriever under test is."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from benchmarks.metrics import parse_evidence
from openclaw_tinmem.capture.transcripts import LOCOMO_DATE_FORMAT

UNDATED_START = datetime(2000, 1, 1)


@dataclass(frozen=True)
class Turn:
    dia_id: str
    session: int
    speaker: str
    text: str
    date: str

    def memory_text(self) -> str:
        return f"{self.speaker} ({self.date}): {self.text}"

    def created_at(self) -> str:
        """When the turn was said, as the memory's creation time: its session's date and time
        (LoCoMo's "1:56 pm on 8 May, 2023"), or, when that does not parse, a day per session
        from a fixed start, so that sessions stay apart and in order."""
        try:
            when = datetime.strptime(self.date, LOCOMO_DATE_FORMAT)
        except ValueError:
            when = UNDATED_START + timedelta(days=self.session)
        return when.replace(tzinfo=UTC).isoformat()


@dataclass(frozen=True)
class Question:
    text: str
    evidence: list[str]
    category: int
    ability: str = ""  # BEAM's question ability, when the data names one


@dataclass
class Conversation:
    sample_id: str
    turns: list[Turn] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)
    malformed_evidence: int = 0

    @property
    def scope(self) -> str:
        return f"custom:locomo-{self.sample_id}"


def load(path: Path) -> list[Conversation]:
    conversations = []
    for sample in json.loads(path.read_text()):
        conversation = Conversation(str(sample["sample_id"]))
        data = sample["conversation"]
        sessions = sorted(
            int(key.split("_")[1])
            for key in data
            if key.startswith("session_") and key.count("_") == 1
        )
        for number in sessions:
            date = str(data.get(f"session_{number}_date_time", ""))
            for turn in data[f"session_{number}"]:
                text = str(turn.get("text", ""))
                if turn.get("blip_caption"):
                    text += f" [shares a photo: {turn['blip_caption']}]"
                conversation.turns.append(
                    Turn(str(turn["dia_id"]), number, str(turn["speaker"]), text, date)
                )
        for qa in sample.get("qa", []):
            evidence, malformed = parse_evidence(qa.get("evidence", []))
            conversation.malformed_evidence += malformed
            if evidence:
                conversation.questions.append(
                    Question(
                        str(qa["question"]),
                        evidence,
                        int(qa["category"]),
                        str(qa.get("ability", "")),
                    )
                )
        conversations.append(conversation)
    return conversations


def preceding(conversation: Conversation, index: int) -> str:
    """The turn before this one in the same session: the context a captured turn carries."""
    turn = conversation.turns[index]
    if index == 0 or conversation.turns[index - 1].session != turn.session:
        return ""
    return conversation.turns[index - 1].memory_text()


Retriever = Callable[[Conversation, str], list[str]]  # (conversation, question) -> ranked dia_ids


REMINDER_FORMS = ("Remind me, {question}", "{question} again?", "Quick question: {question}")


def as_reminders(conversations: list[Conversation]) -> None:
    """Ask each question as people ask to be reminded, in place: the three forms of
    ``REMINDER_FORMS`` in turn ("Remind me, what …?", "What … again?" without its own
    question mark, "Quick question: What …?")."""
    for conversation in conversations:
        asked = []
        for index, question in enumerate(conversation.questions):
            form = REMINDER_FORMS[index % len(REMINDER_FORMS)]
            text = question.text.strip()
            if form.startswith("{question} again"):
                text = text.rstrip("?. ")
            elif form.startswith("Remind me"):
                text = text[:1].lower() + text[1:]
            asked.append(replace(question, text=form.format(question=text)))
        conversation.questions = asked
