"""Plain-text helpers shared by recall, capture and the level writer."""

from __future__ import annotations

import re

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[])|\n+")


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text``, split on terminal punctuation and line breaks."""
    return [part.strip() for part in _SENTENCE_END.split(text.strip()) if part.strip()]


_SMALL_TALK = re.compile(
    r"^(?:hi|hello|hey|hiya|yo|howdy|greetings|good (?:morning|afternoon|evening|night)|"
    r"thanks?|thank you|thx|ty|cheers|ok(?:ay)?|k|sure|yes|yep|yeah|no|nope|cool|great|nice|"
    r"got it|sounds good|alright|bye|goodbye|see you|lol|haha|hmm+)"
    r"(?:[\s,]+(?:there|so much|a lot|again|you|man|all|everyone|then|thanks))*[\s!.?,]*$",
    re.IGNORECASE,
)


def is_small_talk(text: str) -> bool:
    """True for a message that is only a greeting or an acknowledgement."""
    return bool(_SMALL_TALK.match(text.strip()))
