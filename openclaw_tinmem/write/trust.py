"""Trust of texts written by a tool call or an import: whether they instruct the model.

Automatic capture judges a turn by what was said in it (``capture.trust``). A text an agent
stores with ``memory_store`` or ``memory_update``, or that an import brings, has no turn to
judge by; what it says is the only evidence. One that reads as an instruction to the model
is kept and found by the tools, but marked untrusted, so automatic recall does not inject it
(the way a page the agent read would plant itself in memory).
"""

from __future__ import annotations

from openclaw_tinmem.instructions import gives_instructions, without_speakers
from openclaw_tinmem.models import Provenance, Source

INSTRUCTION_TEXT = "reads as an instruction to the model"
# sources whose text is judged by its words alone
AUTHORED = frozenset({Source.TOOL, Source.IMPORT})


def with_trust(provenance: Provenance, *words: str | None, episode: bool = False) -> Provenance:
    """``provenance`` marked untrusted when any of a memory's ``words`` (its content, headline
    and summary: each may be shown on its own) instructs the model; as it was otherwise (a
    reason already given stays). An ``episode``'s speaker labels ("Assistant: …") are who
    spoke, not an imitation of the conversation's markup."""
    text = "\n".join(word for word in words if word)
    text = without_speakers(text) if episode else text
    if provenance.untrusted or not gives_instructions(text):
        return provenance
    return provenance.model_copy(update={"untrusted": INSTRUCTION_TEXT})
