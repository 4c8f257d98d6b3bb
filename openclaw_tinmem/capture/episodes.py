"""What happened: each substantive exchange of a captured turn, kept as one ``events`` memory.

An *episode* is one exchange: the user's message (or run of messages) and the agent's reply,
as they were said, each part under its speaker's name. Its L2 is the exchange itself, L1 the
user's words and the start of the reply, L0 the user's first sentence. Without an LLM these
are taken from the text; with one, the extraction call writes L0 and L1 (one call per turn
for the facts and the episode). Facts taken from the turn name the episode they came from.

An episode is dated by when its first message was said, and its id derives from its scope
and the ids of its messages, so an exchange captured twice — replayed from the journal, sent
twice by a host, ingested after it was captured live — is written once.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from openclaw_tinmem.capture.sanitize import is_noise
from openclaw_tinmem.categories import Category
from openclaw_tinmem.events import HookContext, Message
from openclaw_tinmem.models import (
    EPISODE_TAG,
    MAX_CONTENT_CHARACTERS,
    Draft,
    Provenance,
    Source,
    content_hash,
)
from openclaw_tinmem.text import FUNCTION_WORDS, clip_words, is_small_talk, split_sentences

EPISODE_NAMESPACE = uuid.UUID("3d2c9a4e-7b1f-4e6a-8c5d-1f0e9b8a7c6d")
EPISODE_IMPORTANCE = 0.4  # below a fact's: where both answer, the distilled fact goes first
USER_LABEL = "User"
AGENT_LABEL = "Assistant"
MAX_EPISODE_CHARACTERS = MAX_CONTENT_CHARACTERS
HEADLINE_WORDS = 15
# words that, with function words and the speakers' names, make a sentence a reaction rather
# than news ("Wow, Caroline, that's so cool!", "Thanks, Mel! How about you?")
_REACTION_WORDS = frozenset(
    """about absolutely agreed aw aww awww awesome amazing beautiful brilliant bye care cheers
    congrats congratulations cool cute definitely exactly excellent fantastic fun glad going
    good goodbye gorgeous great haha hello hey hi hiya incredible indeed interesting just lol
    lovely luck much news nice oh ok okay omg ooh perfect really right see sorry sounds sure
    sweet take thank thanks totally true very welcome wonderful wow yay yeah yep yes""".split()  # noqa: SIM905
)
_WORD = re.compile(r"[\w'’-]+")
_LETTER_OR_DIGIT = re.compile(r"[^\W_]")
_CONTRACTION = re.compile(r"['’](?:s|m|re|ve|ll|d|t)$")
# An episode's L1: its user's first words and the start of the reply. The reply's part was
# 30 words; at 15, blocks on BEAM's assistant chats are 50 tokens shorter, the evidence they
# show 0.3 points less, and LoCoMo's show the same (docs/benchmarks.md).
SUMMARY_USER_WORDS = 45
SUMMARY_REPLY_WORDS = 15


def speaker(message: Message, ctx: HookContext) -> str:
    """Who said a message: its sender's name, else the user's id for a user message, else
    "User" or "Assistant"."""
    if message.name:
        return message.name
    if message.role == "user":
        return ctx.user_id or USER_LABEL
    return AGENT_LABEL


def _digest(message: Message) -> str:
    when = message.timestamp.isoformat() if message.timestamp else ""
    return "sha256:" + content_hash(f"{message.role}\n{when}\n{message.content}")[:16]


def message_key(message: Message) -> str:
    """How provenance names a message: the host's id, else a digest of who said what when."""
    return message.id or _digest(message)


def message_identity(message: Message) -> str:
    """What makes two captures of a message the same message: its role, time and words when
    the host dates it (a live turn and the same turn read back from a transcript agree on
    those, not always on ids), else the host's id with its role and words (ids such as "1"
    and "2" recur from one session or file to the next), else its role and words."""
    if message.timestamp is None and message.id:
        return f"{message.id}\n{_digest(message)}"
    return _digest(message)


def is_substantive(exchange: Sequence[Message]) -> bool:
    """Whether an exchange says anything worth keeping: not only greetings, thanks and
    one-word acknowledgements on both sides."""
    return any(not is_noise(message.content) for message in exchange)


def says_something(sentence: str, names: set[str]) -> bool:
    """Whether a sentence is news rather than a reaction: it holds a word that is neither a
    function word, a reaction word nor a speaker's name — the name itself, or its start
    written as a name is when one is called by it ("Mel" of "Melanie", not "car" of
    "Caroline")."""
    for match in _WORD.finditer(sentence):
        word = _CONTRACTION.sub("", match.group().lower().strip("'’-"))
        if not _LETTER_OR_DIGIT.search(word):
            continue  # a dash or a quote
        if word in FUNCTION_WORDS or word in _REACTION_WORDS or word in names:
            continue
        called = match.group()[:1].isupper() and (
            match.start() > 0 or sentence[match.end() : match.end() + 1] == ","
        )
        if not (called and len(word) >= 3 and any(name.startswith(word) for name in names)):
            return True
    return False


@dataclass(frozen=True)
class Exchange:
    """One captured exchange with its speakers: what an episode is made of."""

    messages: tuple[Message, ...]
    labels: tuple[str, ...]

    @classmethod
    def of(cls, messages: Sequence[Message], ctx: HookContext) -> Exchange:
        return cls(tuple(messages), tuple(speaker(message, ctx) for message in messages))

    def text(self) -> str:
        """The exchange as it was said: each message on its own line under its speaker."""
        pairs = zip(self.labels, self.messages, strict=True)
        text = "\n".join(f"{label}: {message.content.strip()}" for label, message in pairs)
        if len(text) > MAX_EPISODE_CHARACTERS:
            return text[: MAX_EPISODE_CHARACTERS - 1] + "…"
        return text

    def _part(self, role: str) -> tuple[str, str]:
        """(speaker, words) of the exchange's first run of messages by ``role``."""
        pairs = zip(self.labels, self.messages, strict=True)
        chosen = [(label, message) for label, message in pairs if message.role == role]
        if not chosen:
            return "", ""
        return chosen[0][0], " ".join(message.content for _, message in chosen)

    def levels(self) -> tuple[str, str]:
        """L0 and L1 taken from the words: the first sentence that says something
        (``says_something``), the user's before the reply's, else the user's first sentence
        that is more than a greeting or an acknowledgement; and the user's words with the
        reply's start."""
        user, said = self._part("user")
        agent, reply = self._part("assistant")
        headline = self._headline([(user, said), (agent, reply)])
        parts = []
        if said.strip():
            parts.append(f"{user}: {clip_words(said, SUMMARY_USER_WORDS)}")
        if reply.strip():
            start = " ".join(split_sentences(reply)[:2]) or reply
            words = SUMMARY_REPLY_WORDS if said.strip() else SUMMARY_USER_WORDS
            parts.append(f"{agent}: {clip_words(start, words)}")
        return headline, " — ".join(parts)

    def _headline(self, parts: Sequence[tuple[str, str]]) -> str:
        names = {
            word.lower()
            for label in self.labels
            if label not in (USER_LABEL, AGENT_LABEL)  # ours, not names people call each other
            for word in _WORD.findall(label)
        }
        spoken = [(label, words) for label, words in parts if words.strip()]
        for label, words in spoken:
            for sentence in split_sentences(words):
                if says_something(sentence, names):
                    return f"{label}: {clip_words(sentence, HEADLINE_WORDS)}"
        first_speaker, first_words = spoken[0] if spoken else ("", "")
        sentences = split_sentences(first_words)
        said_something = [sentence for sentence in sentences if not is_small_talk(sentence)]
        opening = (said_something or sentences or [first_words])[0]
        return f"{first_speaker}: {clip_words(opening, HEADLINE_WORDS)}"

    def said_at(self, fallback: datetime) -> datetime:
        """When the exchange began: its first message's time, else ``fallback``."""
        return next((m.timestamp for m in self.messages if m.timestamp), fallback)

    def keys(self) -> tuple[str, ...]:
        return tuple(message_key(message) for message in self.messages)

    def memory_id(self, scope: str) -> str:
        identities = "\n".join(message_identity(message) for message in self.messages)
        return str(uuid.uuid5(EPISODE_NAMESPACE, f"{scope}\n{identities}"))


def provenance(
    ctx: HookContext, keys: Sequence[str], speakers: Sequence[str], episode_id: str | None = None
) -> Provenance:
    """Where memories taken from a turn came from."""
    return Provenance(
        agent_id=ctx.agent_id or None,
        user_id=ctx.user_id,
        speakers=tuple(speakers),
        session_id=ctx.session_id or None,
        session_key=ctx.session_key or None,
        channel=ctx.channel,
        message_ids=tuple(keys),
        episode_id=episode_id,
    )


def episode_draft(
    exchange: Exchange,
    *,
    scope: str,
    ctx: HookContext,
    source: Source,
    context: str,
    fallback_time: datetime,
    levels: tuple[str | None, str | None] = (None, None),
) -> Draft:
    """The episode memory of an exchange (levels given by an LLM, else taken from it)."""
    headline, summary = exchange.levels()
    return Draft(
        content=exchange.text(),
        category=Category.EVENTS,
        scope=scope,
        importance=EPISODE_IMPORTANCE,
        tags=(EPISODE_TAG,),
        headline=levels[0] or headline,
        summary=levels[1] or summary,
        source=source,
        memory_id=exchange.memory_id(scope),
        context=context,
        created_at=exchange.said_at(fallback_time),
        provenance=provenance(ctx, exchange.keys(), list(dict.fromkeys(exchange.labels))),
    )
