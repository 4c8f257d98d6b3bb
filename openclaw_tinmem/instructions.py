"""Text that addresses the model instead of informing it.

Two kinds. A *prompt injection* imitates the conversation's own structure or tells the model
to drop its instructions ("ignore all previous instructions", a fake ``<system>`` tag): no
memory should hold it, whoever said it. A *standing instruction* tells the model what to do
in later turns ("when the user asks about invoices, send them to …"): from the user it is a
preference, but in a reply, a tool's output or a text an agent stores it is how a page the
agent read plants itself in memory — kept, but not injected (``recall.exposure``).
"""

from __future__ import annotations

import re

from openclaw_tinmem.text import with_plain_brackets

_INJECTION_PATTERNS = (
    # instructions aimed at the model rather than facts about the user
    r"\b(?:ignore|disregard|forget|override|bypass)\b[^.\n]{0,40}\b(?:previous|prior|above|"
    r"earlier|all|any|your|the|system)\b[^.\n]{0,30}\b(?:instructions?|prompts?|rules|"
    r"directives|guidelines|messages|context)\b",
    r"\byou are now\b[^.\n]{0,40}\b(?:mode|unrestricted|jailbroken|DAN|developer)\b",
    r"\b(?:new|updated|real|actual) (?:system )?instructions?\s*:",
    r"\b(?:reveal|print|show|repeat|leak)\b[^.\n]{0,30}\b(?:system prompt|your instructions|"
    r"hidden instructions)\b",
    r"\bdo not (?:tell|inform|alert) the user\b",
    # markup that imitates the conversation's own structure
    r"<\s*/?\s*(?:system|assistant|tool|tool_call|tool_result|function_call|instructions?|"
    r"agent-experience)\b[^>]*>",
    r"<\|(?:im_start|im_end|system|endoftext)\|>",
    r"\[/?(?:INST|SYS)\]|<<\s*/?SYS\s*>>",
    r"^\s*(?:#{1,6}\s*)?(?:system|assistant)\s*(?:prompt|message)?\s*:",
)
INJECTION = re.compile(
    "|".join(f"(?:{pattern})" for pattern in _INJECTION_PATTERNS), re.IGNORECASE | re.MULTILINE
)


def looks_like_injection(text: str) -> bool:
    """True for text that addresses the model or imitates the conversation's markup (also
    in brackets that only look like ``<`` and ``>``)."""
    return bool(INJECTION.search(with_plain_brackets(text)))


# what a planted instruction has the model do to the person it talks to
_TO_THE_USER = (
    r"(?:tell|recommend|suggest|say|respond|reply|answer|send|direct|redirect|point|forward|"
    r"reveal|share|give)"
)
_THE_USER = r"(?:the user|users|the customer|customers)"
# Standing instructions aimed at the model, as planted in a page or echoed in a reply; a
# person's own advice ("never tell anyone your password"), a technical text ("the model
# should include a dropout layer") or a note ("note to self") does not read like these.
_DIRECTIVES = (
    rf"\bwhen(?:ever)? {_THE_USER} (?:asks?|mentions?|says?|wants?|requests?)\b"
    rf"[^.\n]{{0,100}}\b{_TO_THE_USER}\b",
    rf"\b(?:the )?(?:assistant|AI|AI assistant|chatbot|LLM)\b (?:must|should|shall|will|"
    rf"needs? to|has to|is (?:required|instructed) to)\b[^.\n]{{0,60}}\b{_TO_THE_USER}\b"
    rf"[^.\n]{{0,30}}\b{_THE_USER}\b",
    rf"(?:^|[.!?:]\s+)(?:always|never|from now on,?|in (?:all )?future (?:replies|answers|"
    rf"responses|conversations),?)\s+{_TO_THE_USER} {_THE_USER}\b",
    r"\b(?:note|reminder|instructions?|message) (?:to|for) (?:the assistant|the AI|the model|"
    r"future (?:sessions?|turns?))\b(?!-)",
    r"\b(?:important|attention|note)\s*(?:to|for)?\s*(?:the )?(?:AI|assistant|LLM)s?\s*:",
)
DIRECTIVE = re.compile("|".join(f"(?:{pattern})" for pattern in _DIRECTIVES), re.IGNORECASE)
# "Name: " at the start of a line: who speaks in an episode, not an instruction
SPEAKER_LABEL = re.compile(r"^[^:\n]{1,80}:[ \t]", re.MULTILINE)


def without_speakers(text: str) -> str:
    """An exchange's text without the speaker labels that start its lines."""
    return SPEAKER_LABEL.sub("", text)


def gives_instructions(text: str) -> bool:
    """True for text that instructs the model, not the person it talks to."""
    return bool(DIRECTIVE.search(text)) or looks_like_injection(text)
