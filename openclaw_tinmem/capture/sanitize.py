"""Clean a finished turn before anything is extracted from it.

Order matters: our own injected block goes first (no feedback loop), then channel metadata
wrappers, then secrets are redacted so they can never reach the LLM or the store.
"""

from __future__ import annotations

import re

from openclaw_tinmem.recall.injection import BLOCK_TAG
from openclaw_tinmem.text import is_small_talk

REDACTED = "[REDACTED]"
MIN_WORDS_WORTH_KEEPING = 4

_INJECTED_BLOCK = re.compile(rf"<{BLOCK_TAG}>.*?(?:</{BLOCK_TAG}>|\Z)", re.DOTALL | re.IGNORECASE)
# Envelopes hosts put around inbound channel messages, e.g.
# "[Telegram Ana (@ana) id:42 +2m 2026-01-01 10:00 UTC] hello" or <channel ...>...</channel>.
_LEADING_ENVELOPE = re.compile(r"^\s*\[[^\]\n]{2,200}\]\s*", re.MULTILINE)
_METADATA_TAGS = re.compile(
    r"<(channel|metadata|envelope|message_meta|sender)\b[^>]*>.*?</\1>", re.DOTALL | re.IGNORECASE
)
_REPLY_MARKERS = re.compile(r"\[\[\s*reply_to[^\]]*\]\]|\[message_id:[^\]]*\]", re.IGNORECASE)

SECRET_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_\-]{16,}"),  # OpenAI / Anthropic keys
    re.compile(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"),  # AWS access key ids
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,}\b"),  # GitHub tokens
    re.compile(r"\bgithub_pat_[A-Za-z0-9_]{40,}\b"),
    re.compile(r"\bxox[abprs]-[A-Za-z0-9\-]{10,}"),  # Slack tokens
    re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b"),  # Google API keys
    re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),  # JWTs
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?-----END [A-Z ]*PRIVATE KEY-----", re.DOTALL),
    re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/\-]{16,}=*"),
    re.compile(r"(?i)\b[a-z][a-z0-9+.\-]*://[^\s:/@]+:[^\s@/]+@"),  # credentials in URLs
)
_ASSIGNED_SECRET = re.compile(
    r"(?i)\b(password|passwd|pwd|passphrase|secret|api[_\- ]?key|token|access[_\- ]?key)"
    r"(\s*(?:is|=|:)\s*)([\"']?)([^\s\"',;]{4,})\3"
)


def strip_injected_block(text: str) -> str:
    return _INJECTED_BLOCK.sub("", text)


def strip_channel_metadata(text: str) -> str:
    text = _METADATA_TAGS.sub("", text)
    text = _REPLY_MARKERS.sub("", text)
    return _LEADING_ENVELOPE.sub("", text)


def redact_secrets(text: str) -> str:
    for pattern in SECRET_PATTERNS:
        text = pattern.sub(REDACTED, text)
    return _ASSIGNED_SECRET.sub(lambda match: f"{match.group(1)}{match.group(2)}{REDACTED}", text)


def clean(text: str) -> str:
    """Our block, channel wrappers and secrets removed; whitespace tidied."""
    text = redact_secrets(strip_channel_metadata(strip_injected_block(text)))
    return re.sub(r"[ \t]+\n", "\n", text).strip()


def is_noise(text: str) -> bool:
    """Greetings, acknowledgements and very short messages carry nothing worth keeping."""
    return is_small_talk(text) or len(text.split()) < MIN_WORDS_WORTH_KEEPING
