"""The redactor: secrets in text are replaced by ``[REDACTED]`` before anything keeps them.

It runs on every turn before the turn is journalled (so neither the journal nor an LLM ever
sees a secret) and on every write path (capture, ``memory_store``, ``memory_update``, merges,
imports). Detectors, most specific first:

- provider keys by their shape: OpenAI/Anthropic ``sk-…``, AWS access key ids, GitHub, GitLab
  and Slack tokens, Google API keys and OAuth client secrets, Stripe, Hugging Face, npm and
  SendGrid keys, Telegram bot tokens, JWTs, bearer tokens, HTTP basic credentials, Slack and
  Discord webhook addresses;
- PEM private keys, with or without their END line (a pasted key cut short is still a key);
- credentials in URLs (``scheme://user:password@host``), Azure SAS signatures (``sig=…``);
- assignments to a secret-sounding name in any case — ``password``, ``passwd``, ``pwd``,
  ``pw``, ``passphrase``, ``passwort``, ``secret``, ``api key``, ``token``, ``access key``,
  ``client secret``, ``aws_secret_access_key``, a ``passcode`` or a wifi, door, gate, alarm
  or safe ``code`` whose value has a digit, and in connection strings ``Password=``,
  ``AccountKey=``, ``SharedAccessKey=`` — also when the name was cut to its end
  (``ssword:``);
- card numbers: 13–19 digits (spaces or dashes allowed) that pass the Luhn check.
"""

from __future__ import annotations

import re

REDACTED = "[REDACTED]"

# Each detector with the strings one of which every match contains, looked for in the text
# case-folded: a text that holds none of them is not scanned by that detector. Most text
# holds no secret, and a substring search costs a small fraction of a regular-expression scan.
DETECTORS: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (re.compile(r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_\-]{16,}"), ("sk-",)),  # OpenAI / Anthropic
    (re.compile(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"), ("akia", "asia")),  # AWS access key ids
    (re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,}\b"), ("ghp_", "gho_", "ghu_", "ghs_", "ghr_")),
    (re.compile(r"\bgithub_pat_[A-Za-z0-9_]{40,}\b"), ("github_pat_",)),  # GitHub tokens
    (re.compile(r"\bxox[abprs]-[A-Za-z0-9\-]{10,}"), ("xox",)),  # Slack tokens
    (re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b"), ("aiza",)),  # Google API keys
    (re.compile(r"\bGOCSPX-[A-Za-z0-9_\-]{20,}"), ("gocspx-",)),  # Google OAuth client secrets
    (re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"), ("eyj",)),
    # PEM private keys; a key cut short (no END line) runs to the end of its base64 body
    (
        re.compile(
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?:.*?-----END [A-Z0-9 ]*PRIVATE KEY-----"
            r"|[A-Za-z0-9+/=\s\\n]*)",
            re.DOTALL,
        ),
        ("-----begin",),
    ),
    (re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/\-]{16,}=*"), ("bearer",)),
    (re.compile(r"(?i)\b[a-z][a-z0-9+.\-]*://[^\s:/@]+:[^\s@/]+@"), ("://",)),  # URL credentials
    (re.compile(r"(?i)(?<=[?&]sig=)[A-Za-z0-9%+/=]{16,}"), ("sig=",)),  # Azure SAS signatures
    (
        re.compile(r"\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}"),
        ("sk_live_", "sk_test_", "rk_live_", "rk_test_"),
    ),  # Stripe secret and restricted keys
    (re.compile(r"\bhf_[A-Za-z0-9]{30,}"), ("hf_",)),  # Hugging Face
    (re.compile(r"\bglpat-[A-Za-z0-9_\-]{20,}"), ("glpat-",)),  # GitLab
    (re.compile(r"\bnpm_[A-Za-z0-9]{36}"), ("npm_",)),  # npm
    (re.compile(r"\bSG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}"), ("sg.",)),  # SendGrid
    (re.compile(r"\b\d{8,10}:AA[A-Za-z0-9_\-]{33}"), (":aa",)),  # Telegram bot tokens
    (  # Slack and Discord webhooks: whoever has the address may post
        re.compile(
            r"(?i)\bhttps?://(?:hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9/_\-]+"
            r"|(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/[0-9]+/[A-Za-z0-9_\-]+)"
        ),
        ("hooks.slack.com", "/api/webhooks/"),
    ),
    (
        re.compile(r"(?i)(?<=authorization:)\s*basic\s+[A-Za-z0-9+/]{8,}={0,2}"),
        ("authorization:",),
    ),  # HTTP basic credentials
)
_SECRET_NAME = (
    r"aws_secret_access_key|aws[_\- ]?secret(?:[_\- ]?key)?|client[_\- ]?secret"
    r"|api[_\- ]?key|access[_\- ]?key|secret[_\- ]?key|private[_\- ]?key"
    r"|accountkey|sharedaccesskey|shared_access_key"  # Azure connection strings
    r"|passphrase|passwords?|passwd|pwd|pw|pin|secret|token|passwort|kennwort"
    r"|[a-z]*ssword|[a-z]*sswd"  # a keyword cut at its start: "...ssword: hunter2"
)
_ASSIGNED_SECRET = re.compile(
    rf"(?i)(?<![A-Za-z])({_SECRET_NAME})(\s*(?:(?:ist|is)\b|=|:|->|=>)\s*)([\"']?)([^\s\"',;]{{4,}})\3"
)
# a code is a secret when its value has a digit: "the door code is 4711", not "is broken"
_ASSIGNED_CODE = re.compile(
    r"(?i)(?<![A-Za-z\-])(passcode|(?:wi-?fi|door|gate|alarm|safe)[_\- ]?code)"
    r"(\s*(?:is\b|=|:)\s*)([\"']?)((?=[^\s\"',;]*\d)[^\s\"',;]{4,})\3"
)
_CODE_NAMES = ("passcode", "wifi", "wi-fi", "door", "gate", "alarm", "safe")
# Every secret name above, case-folded, contains one of these (tests/test_redaction.py
# generates matches of every detector to check its strings).
_SECRET_NAME_PARTS = (
    "secret",
    "key",
    "ssword",
    "sswd",
    "passphrase",
    "pw",
    "pin",
    "token",
    "passwort",
    "kennwort",
)
CARD_MIN_DIGITS = 13
_CARD_CANDIDATE = re.compile(r"(?<![\d-])\d(?:[ \-]?\d){12,18}(?![\d-])")


def luhn_valid(digits: str) -> bool:
    """The Luhn checksum every payment card number satisfies."""
    total = 0
    for position, character in enumerate(reversed(digits)):
        value = int(character)
        if position % 2 == 1:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def _card(match: re.Match[str]) -> str:
    digits = re.sub(r"[ \-]", "", match.group(0))
    if 13 <= len(digits) <= 19 and luhn_valid(digits) and len(set(digits)) > 1:
        return REDACTED
    return match.group(0)


MIN_REPEATED_SECRET = 4  # a found value this long is replaced wherever it recurs in a turn


def secret_values(text: str) -> set[str]:
    """The secret values the detectors find in ``text``: what a reply may repeat without the
    keyword that gave it away ("my password is X" ... "Got it: X")."""
    values: set[str] = set()
    folded = _folded(text)
    for pattern, needles in DETECTORS:
        if any(needle in folded for needle in needles):
            values.update(match.group(0) for match in pattern.finditer(text))
    for pattern in _assignments_in(folded):
        values.update(match.group(4) for match in pattern.finditer(text))
    values.update(m.group(0) for m in _CARD_CANDIDATE.finditer(text) if _card(m) == REDACTED)
    return {value.strip() for value in values if len(value.strip()) >= MIN_REPEATED_SECRET}


def redact_together(texts: list[str]) -> list[str]:
    """Each text redacted, and every secret value found in any of them replaced wherever it
    recurs in the others: the texts of one turn, so a password the user gave is redacted in
    the reply that repeats it too."""
    found = sorted(set().union(*map(secret_values, texts)), key=len, reverse=True)
    patterns = [re.compile(_as_whole(value)) for value in found]
    redacted = []
    for text in texts:
        text = redact_secrets(text)
        for pattern in patterns:
            text = pattern.sub(REDACTED, text)
        redacted.append(text)
    return redacted


def _as_whole(value: str) -> str:
    """A pattern for ``value`` not inside a longer word or number ("1234" not in "12345")."""
    start = r"(?<!\w)" if re.match(r"\w", value) else ""
    end = r"(?!\w)" if re.search(r"\w$", value) else ""
    return start + re.escape(value) + end


def redact_secrets(text: str) -> str:
    """``text`` with every secret the detectors find replaced by ``[REDACTED]``."""
    return count_redactions(text)[0]


def _assignments_in(folded: str) -> list[re.Pattern[str]]:
    """The assignment patterns (a secret name, then its value) whose names ``folded`` may
    hold: each groups the name, the assignment, a quote and the value."""
    patterns = []
    if any(part in folded for part in _SECRET_NAME_PARTS):
        patterns.append(_ASSIGNED_SECRET)
    if "code" in folded and any(name in folded for name in _CODE_NAMES):
        patterns.append(_ASSIGNED_CODE)
    return patterns


def _folded(text: str) -> str:
    """``text`` as the detectors' strings are looked for in it: case-folded, and the dotless
    ı as i (case-insensitive matching takes it for an i, case folding does not)."""
    return text.casefold().replace("\u0131", "i")


def count_redactions(text: str) -> tuple[str, int]:
    """``text`` redacted, and how many secrets were replaced."""
    count = 0
    folded = _folded(text)
    for pattern, needles in DETECTORS:
        if any(needle in folded for needle in needles):
            text, found = pattern.subn(REDACTED, text)
            count += found
    for pattern in _assignments_in(folded):
        text, found = pattern.subn(
            lambda match: f"{match.group(1)}{match.group(2)}{REDACTED}", text
        )
        count += found
    if text.isascii() and sum(map(text.count, "0123456789")) < CARD_MIN_DIGITS:
        return text, count  # too few digits for a card number (other scripts have digits too)
    before = text.count(REDACTED)
    text = _CARD_CANDIDATE.sub(_card, text)
    return text, count + text.count(REDACTED) - before
