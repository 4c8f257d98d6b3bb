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
    """True for text that addresses the model or imitates the conversation's markup."""
    return bool(INJECTION.search(text))


_VERBS = (
    r"(?:tell|recommend|suggest|say|respond|reply|answer|send|direct|redirect|point|include|"
    r"mention|run|execute|visit|click|share|reveal|forward|transfer|wire|pay|email|call|use)"
)
# Standing instructions aimed at the model, as planted in a page or echoed in a reply; a
# person's own advice in conversation ("you should try the ramen") does not read like these.
_DIRECTIVES = (
    rf"\bwhen(?:ever)? (?:the |a )?user(?:s)? (?:asks?|mentions?|says?|wants?|requests?)\b"
    rf"[^.\n]{{0,100}}\b{_VERBS}\b",
    rf"\b(?:the )?(?:assistant|AI|model|agent|chatbot|LLM)s? (?:must|should|shall|will|"
    rf"needs? to|has to|is (?:required|instructed) to)\b[^.\n]{{0,60}}\b{_VERBS}\b",
    r"(?:^|[.!?:]\s+)(?:always|never|from now on,?|in (?:all )?future (?:replies|answers|"
    r"responses|conversations),?)\s+(?:tell|recommend|suggest|respond|reply|answer|direct|"
    r"redirect|forward|reveal) (?:the user|users|them|anyone|everyone)\b",
    r"\b(?:note|reminder|instructions?|message) (?:to|for) (?:self|the assistant|the AI|the "
    r"model|future (?:sessions?|turns?|self))\b",
    r"\b(?:important|attention|note)\s*(?:to|for)?\s*(?:the )?(?:AI|assistant|LLM|model)s?\s*:",
)
DIRECTIVE = re.compile("|".join(f"(?:{pattern})" for pattern in _DIRECTIVES), re.IGNORECASE)


def gives_instructions(text: str) -> bool:
    """True for text that instructs the model, not the person it talks to."""
    return bool(DIRECTIVE.search(text)) or looks_like_injection(text)
