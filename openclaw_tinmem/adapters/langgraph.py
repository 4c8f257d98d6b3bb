"""tinmem in LangGraph (``pip install 'openclaw-tinmem[langgraph]'``).

    memory = LangGraphMemory(agent_id="support", user_id="u-42")
    agent = create_react_agent(model, [*tools, *memory.tools()],
                               pre_model_hook=memory.pre_model_hook,
                               post_model_hook=memory.post_model_hook)

With LangChain's ``create_agent`` (LangChain 1.x; ``pip install 'openclaw-tinmem[langchain]'``),
one middleware does all three parts below — see ``adapters/langchain_middleware.py``:

    agent = create_agent(model, tools, middleware=[memory.middleware()])

- **Recall**: ``pre_model_hook`` runs before every model call. For a turn's user message it
  calls ``before_prompt_build`` once (the block is kept for the turn's later model calls,
  after tool calls) and hands the model ``llm_input_messages`` in which that message starts
  with the ``<agent-experience>`` block; the graph's own state is not changed, so the block
  is never stored in the conversation or its checkpoints.
- **Capture**: ``post_model_hook`` runs after every model call; when the model answered
  (no tool call pending) it hands the turn — the user's message and the answer — to
  ``agent_end``; capture runs in the background. (The middleware's ``after_agent`` hands
  every finished run over, also one that ends in a tool's message.)
- **Tools**: ``tools()`` are the tinmem tools as LangChain ``StructuredTool`` objects bound to
  this memory's agent and user.

For graphs of your own, call ``pre_model_hook``/``post_model_hook`` from your nodes, or use
the binding (``memory.binding``) directly. tinmem is not offered as a LangGraph ``BaseStore``:
a ``BaseStore`` is a key-value document store addressed by namespace and key, while tinmem
decides itself what to keep, merges and forgets; the tools are the natural surface.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.tools import StructuredTool

from openclaw_tinmem.adapters.binding import MemoryBinding
from openclaw_tinmem.events import Message, content_text

if TYPE_CHECKING:
    from openclaw_tinmem.adapters.langchain_middleware import TinmemMiddleware

MessageType = TypeVar("MessageType", bound=BaseMessage)  # LangChain's message union, or one kind
TURNS_KEPT = 64  # recall blocks remembered, by user message, for a turn's later model calls


def message_text(message: BaseMessage) -> str:
    return content_text(message.content)


def _key(message: BaseMessage, position: int) -> str:
    """The turn a user message starts: its id, else its text at its place in the
    conversation (the same question asked again later is a new turn, recalled anew)."""
    return message.id or f"{position}:{message_text(message)}"


class LangGraphMemory:
    """tinmem's recall, capture and tools for one agent (and user) of a LangGraph graph."""

    def __init__(self, binding: MemoryBinding | None = None, **binding_options: Any) -> None:
        self.binding = binding or MemoryBinding(**binding_options)
        self._blocks: dict[str, str | None] = {}
        self._blocks_lock = threading.Lock()  # a compiled graph may serve many threads

    # ----------------------------------------------------------------- recall

    def pre_model_hook(self, state: dict[str, Any]) -> dict[str, Any]:
        """Before a model call: the messages the model sees, with recall added."""
        return {"llm_input_messages": self.with_recall(state.get("messages", []))}

    def with_recall(self, messages: Sequence[MessageType]) -> list[MessageType]:
        """A copy of ``messages`` whose last user message starts with the recall block.

        The block is recalled once per user message and reused for the turn's later model
        calls (after tool calls); the messages given are not changed."""
        messages = list(messages)
        index = _last_human(messages)
        if index is None:
            return messages
        key = _key(messages[index], index)
        with self._blocks_lock:
            known = key in self._blocks
            block = self._blocks.get(key)
        if not known:
            history = [_as_message(message) for message in messages[:index]]
            added = self.binding.prompt_context(message_text(messages[index]), history)
            block = added.prepend_context
            with self._blocks_lock:
                self._blocks[key] = block
                while len(self._blocks) > TURNS_KEPT:
                    self._blocks.pop(next(iter(self._blocks)))
        if block:
            messages[index] = _with_prefix(messages[index], block)
        return messages

    # ----------------------------------------------------------------- capture

    def post_model_hook(self, state: dict[str, Any]) -> dict[str, Any]:
        """After a model call: a final answer ends the turn, which goes to capture."""
        self.capture(state.get("messages", []))
        return {}

    def capture(self, messages: Sequence[BaseMessage], *, finished: bool = False) -> None:
        """Hand the turn (the last user message and the answer to it) to capture, when the
        last message is the model's final answer (no tool call pending) or the run is
        ``finished`` (it may end in a tool's message: a structured answer, a tool that
        returns directly); returns at once."""
        if not messages:
            return
        last = messages[-1]
        if not finished and (not isinstance(last, AIMessage) or last.tool_calls):
            return
        index = _last_human(messages)
        if index is None:
            return
        turn = [Message("user", message_text(messages[index]))]
        answer = _answer(messages[index + 1 :])
        if answer:
            turn.append(Message("assistant", answer))
        self.binding.turn_ended(turn)

    def middleware(self) -> TinmemMiddleware:
        """Recall, capture and the tools as one middleware for LangChain's ``create_agent``
        (needs ``pip install 'openclaw-tinmem[langchain]'``)."""
        from openclaw_tinmem.adapters.langchain_middleware import TinmemMiddleware

        return TinmemMiddleware(self)

    # ----------------------------------------------------------------- tools

    def tools(self) -> list[StructuredTool]:
        """The tinmem tools as LangChain tools, run as this memory's agent."""
        return [self._tool(name) for name in self.binding.tools]

    def _tool(self, name: str) -> StructuredTool:
        registration = self.binding.tools[name]

        def run(**arguments: Any) -> str:
            return self.binding.call_tool(name, arguments)

        async def run_async(**arguments: Any) -> str:
            return await self.binding.call_tool_async(name, arguments)

        return StructuredTool(
            name=name,
            description=registration.description,
            args_schema=registration.parameters,
            func=run,
            coroutine=run_async,
        )

    def close(self) -> None:
        self.binding.close()


def _with_prefix(message: MessageType, block: str) -> MessageType:
    """A copy of a user message with ``block`` before its words; a message of parts (text
    and images) gets the block as a text part first, its other parts kept."""
    content = message.content
    if isinstance(content, list):
        return message.model_copy(update={"content": [{"type": "text", "text": block}, *content]})
    return message.model_copy(update={"content": f"{block}\n\n{content}"})


def _answer(after: Sequence[BaseMessage]) -> str:
    """What answered the user: the run's last message when it has words (the model's answer,
    or the tool message a run ends in), else the last model message with words."""
    if after and message_text(after[-1]).strip():
        return message_text(after[-1])
    for message in reversed(after):
        if isinstance(message, AIMessage) and message_text(message).strip():
            return message_text(message)
    return ""


def _last_human(messages: Sequence[BaseMessage]) -> int | None:
    return max((i for i, m in enumerate(messages) if isinstance(m, HumanMessage)), default=None)


def _as_message(message: BaseMessage) -> Message:
    if isinstance(message, HumanMessage):
        return Message("user", message_text(message))
    return Message("assistant", message_text(message))
