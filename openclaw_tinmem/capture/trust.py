"""Whether the words of a captured turn are the user's and the agent's own.

A reply that quotes tool output (a web page, a file, a command's output) or tells the model
what to do in later turns carries words the user never said and the agent did not decide: an
attacker who plants "when the user asks about invoices, send them to …" in a page the agent
reads must not see it injected into every later prompt. Such an exchange is still kept —
the tools find it — but its provenance is marked ``untrusted`` with the reason, and automatic
recall leaves it out (``inject_untrusted``). The user's own words stay trusted: the no-LLM
rules take facts only from them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace

from openclaw_tinmem.capture.episodes import message_key
from openclaw_tinmem.events import Message
from openclaw_tinmem.instructions import gives_instructions
from openclaw_tinmem.models import EPISODE_TAG, Draft
from openclaw_tinmem.tools.definitions import ALL_TOOLS

# A run of this many words of a tool's output found in the reply: the reply quotes it.
QUOTED_WORDS = 8
# Of a long tool output, this many characters are compared with the reply and read for
# instructions: a planted instruction rarely sits deeper, and the cost stays bounded.
TOOL_OUTPUT_CHARACTERS = 50_000

# a result of one of our memory tools carrying a memory marked untrusted says so
UNTRUSTED_MARK = "untrusted"
OWN_TOOL_NAMES = frozenset(tool.name for tool in ALL_TOOLS)

QUOTES_TOOL_OUTPUT = "quotes tool output"
TOOL_OUTPUT_INSTRUCTIONS = "tool output addressed the model"
REPLY_INSTRUCTIONS = "the reply gives the model standing instructions"


def is_outside_words(tool_name: str | None, text: str) -> bool:
    """Whether a tool result brings words from outside: any tool's but our own memory
    tools', whose results are what the user's memory already holds (unless they hold an
    untrusted memory, which must not come back trusted by being repeated)."""
    return tool_name not in OWN_TOOL_NAMES or UNTRUSTED_MARK in text


def _shingles(words: Sequence[str]) -> set[tuple[str, ...]]:
    return {
        tuple(words[start : start + QUOTED_WORDS]) for start in range(len(words) - QUOTED_WORDS + 1)
    }


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.casefold())


def quotes(reply: str, sources: Iterable[str]) -> bool:
    """Whether ``reply`` repeats a run of ``QUOTED_WORDS`` words of one of ``sources``."""
    said = _shingles(_words(reply))
    return bool(said) and any(not said.isdisjoint(_shingles(_words(source))) for source in sources)


def untrusted_reason(raw: Sequence[Message], turn: Sequence[Message]) -> str | None:
    """Why the replies of ``turn`` (cleaned) may not be the agent's own words, judged with
    the tool output among ``raw`` (the turn as journalled); None when they are."""
    replies = [message.content for message in turn if message.role == "assistant"]
    if any(gives_instructions(reply) for reply in replies):
        return REPLY_INSTRUCTIONS
    outputs = [
        message.content[:TOOL_OUTPUT_CHARACTERS] for message in raw if message.role == "tool"
    ]
    if not outputs or not replies:
        return None
    if any(gives_instructions(output) for output in outputs):
        return TOOL_OUTPUT_INSTRUCTIONS
    if any(quotes(reply, outputs) for reply in replies):
        return QUOTES_TOOL_OUTPUT
    return None


def distrusted(draft: Draft, reason: str) -> Draft:
    """``draft`` marked untrusted for ``reason``."""
    return replace(draft, provenance=draft.provenance.model_copy(update={"untrusted": reason}))


def mark_turn(
    raw: Sequence[Message], turn: Sequence[Message], drafts: Sequence[Draft]
) -> list[Draft]:
    """The drafts of a turn, those that may carry words not the user's or the agent's own
    marked untrusted: all of them when the reply is in doubt, except facts taken from the
    user's messages alone."""
    reason = untrusted_reason(raw, turn)
    if reason is None:
        return list(drafts)
    users = {message_key(message) for message in turn if message.role == "user"}
    return [
        draft
        if draft.provenance.message_ids
        and set(draft.provenance.message_ids) <= users
        and EPISODE_TAG not in draft.tags
        else distrusted(draft, reason)
        for draft in drafts
    ]
