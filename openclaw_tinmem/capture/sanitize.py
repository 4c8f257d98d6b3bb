"""Clean a finished turn before anything is extracted from it.

Order matters: our own injected block goes first (no feedback loop), then channel metadata
wrappers, then secrets are redacted so they can never reach the LLM or the store.
"""

from __future__ import annotations

import re

from openclaw_tinmem.recall.injection import BLOCK_TAG
from openclaw_tinmem.redaction import redact_secrets
from openclaw_tinmem.text import is_small_talk

MIN_WORDS_WORTH_KEEPING = 4

# Only a whole block is ours; a stray tag (a message that opens the block and never closes
# it) loses just the tag, never the text after it.
_INJECTED_BLOCK = re.compile(rf"<{BLOCK_TAG}>.*?</{BLOCK_TAG}>", re.DOTALL | re.IGNORECASE)
_STRAY_TAG = re.compile(rf"</?{BLOCK_TAG}\s*>", re.IGNORECASE)
# Envelopes hosts put around inbound channel messages, e.g.
# "[Telegram Ana (@ana) id:42 +2m 2026-01-01 10:00 UTC] hello" or <channel ...>...</channel>.
_LEADING_ENVELOPE = re.compile(r"^\s*\[[^\]\n]{2,200}\]\s*", re.MULTILINE)
_METADATA_TAGS = re.compile(
    r"<(channel|metadata|envelope|message_meta|sender)\b[^>]*>.*?</\1>", re.DOTALL | re.IGNORECASE
)
_REPLY_MARKERS = re.compile(r"\[\[\s*reply_to[^\]]*\]\]|\[message_id:[^\]]*\]", re.IGNORECASE)


def strip_injected_block(text: str) -> str:
    return _STRAY_TAG.sub("", _INJECTED_BLOCK.sub("", text))


def strip_channel_metadata(text: str) -> str:
    text = _METADATA_TAGS.sub("", text)
    text = _REPLY_MARKERS.sub("", text)
    return _LEADING_ENVELOPE.sub("", text)


def _unwrapped(text: str) -> str:
    return strip_channel_metadata(strip_injected_block(text))


def clean(text: str) -> str:
    """Our block, channel wrappers and secrets removed; whitespace tidied."""
    text = redact_secrets(_unwrapped(text))
    return re.sub(r"[ \t]+\n", "\n", text).strip()


def has_content(text: str) -> bool:
    """Whether ``clean(text)`` leaves anything, without redacting: redaction replaces a
    secret by a marker and never empties a text, so it cannot change the answer."""
    return bool(_unwrapped(text).strip())


def is_noise(text: str) -> bool:
    """Greetings, acknowledgements and very short messages carry nothing worth keeping."""
    return is_small_talk(text) or len(text.split()) < MIN_WORDS_WORTH_KEEPING
