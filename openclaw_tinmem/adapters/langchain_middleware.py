"""tinmem as middleware of LangChain's ``create_agent``.

``pip install 'openclaw-tinmem[langchain]'``, then:

    memory = LangGraphMemory(agent_id="support", user_id="u-42")
    agent = create_agent(model, tools, middleware=[memory.middleware()])

LangChain 1.x builds agents with ``langchain.agents.create_agent``, whose extension points are
middleware; LangGraph's ``create_react_agent`` with ``pre_model_hook``/``post_model_hook`` is
its deprecated predecessor. The middleware does what those hooks do, through the same
``LangGraphMemory``:

- **Recall**: ``wrap_model_call`` hands every model call of a turn the messages with the
  ``<agent-experience>`` block before the turn's user message, recalled once per turn. Only
  the request is changed: the agent's state and checkpoints keep the user's own words.
- **Capture**: ``after_agent`` runs once the agent has answered and hands the turn (the
  user's message and the final answer, or the tool message a run ends in: a structured
  answer, a tool that returns directly) to ``agent_end``; capture runs in the background.
- **Tools**: the middleware registers the tinmem tools with the agent, bound to this
  memory's agent and user.

The asynchronous variants recall and hand over on a worker thread, so an agent run with
``ainvoke`` or ``astream`` never blocks its event loop on memory. Like every adapter, it never
raises into the agent: a failure is "no memory this turn".
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest, ModelResponse
from langchain_core.messages import BaseMessage
from langchain_core.tools import StructuredTool
from langgraph.runtime import Runtime


class GraphMemory(Protocol):
    """What the middleware needs of ``LangGraphMemory`` (which builds it, so it is not
    imported here)."""

    def with_recall(self, messages: Sequence[Any]) -> list[Any]: ...

    def capture(self, messages: Sequence[BaseMessage], *, finished: bool = False) -> None: ...

    def tools(self) -> list[StructuredTool]: ...


Handler = Callable[[ModelRequest[Any]], ModelResponse[Any]]
AsyncHandler = Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]]


class TinmemMiddleware(AgentMiddleware[AgentState[Any], Any, Any]):
    """Recall before each model call, capture after the agent answers, and the tinmem tools."""

    def __init__(self, memory: GraphMemory) -> None:
        super().__init__()
        self.memory = memory
        self.tools = memory.tools()

    @property
    def name(self) -> str:
        return "tinmem"

    def wrap_model_call(self, request: ModelRequest[Any], handler: Handler) -> ModelResponse[Any]:
        return handler(request.override(messages=self.memory.with_recall(request.messages)))

    async def awrap_model_call(
        self, request: ModelRequest[Any], handler: AsyncHandler
    ) -> ModelResponse[Any]:
        messages = await asyncio.to_thread(self.memory.with_recall, request.messages)
        return await handler(request.override(messages=messages))

    def after_agent(self, state: AgentState[Any], runtime: Runtime[Any]) -> dict[str, Any] | None:
        self.memory.capture(state["messages"], finished=True)
        return None

    async def aafter_agent(
        self, state: AgentState[Any], runtime: Runtime[Any]
    ) -> dict[str, Any] | None:
        await asyncio.to_thread(self.memory.capture, state["messages"], finished=True)
        return None
