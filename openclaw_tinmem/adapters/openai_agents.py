"""tinmem in the OpenAI Agents SDK (``pip install 'openclaw-tinmem[agents]'``).

    memory = AgentsMemory(agent_id="support", user_id="u-42")
    agent = Agent(name="support", instructions="...", tools=[*memory.tools()])
    result = await Runner.run(agent, "hello", run_config=memory.run_config(),
                              hooks=memory.hooks())
    memory.close()

- **Recall**: ``run_config()`` sets the SDK's ``call_model_input_filter``. On the first
  model call of a turn (the input ends with the user's message) it calls
  ``before_prompt_build`` and adds the ``<agent-experience>`` block to the instructions (or
  before the user's message, by the plugin's ``inject_as``); later calls of the same turn
  (after tool calls) get the same block.
- **Capture**: ``hooks()`` is a ``RunHooks`` whose ``on_agent_end`` hands the turn (the
  user's message and the final output) to ``agent_end``; capture runs in the background.
- **Tools**: ``tools()`` are the registered tinmem tools as SDK ``FunctionTool`` objects,
  bound to this memory's agent and user: what they see is what this agent may see.

Use one ``AgentsMemory`` per conversation (it remembers the turn's prompt between the input
filter and the end hook). Share a ``TinmemPlugin`` between them with ``plugin=``.
"""

from __future__ import annotations

from typing import Any

from agents import FunctionTool, RunConfig, RunHooks
from agents.run_config import CallModelData, ModelInputData

from openclaw_tinmem.adapters.binding import MemoryBinding
from openclaw_tinmem.events import Message, PromptContext, content_text


def item_text(item: Any) -> str:
    """The text of an SDK input item's content (a string or a list of text parts)."""
    return content_text(item.get("content") if isinstance(item, dict) else None)


def _is_user_message(item: Any) -> bool:
    return isinstance(item, dict) and item.get("role") == "user"


def _with_prefix(item: dict[str, Any], prefix: str) -> dict[str, Any]:
    """A copy of a user input item with ``prefix`` before its text."""
    content = item.get("content")
    if isinstance(content, list):
        return {**item, "content": [{"type": "input_text", "text": prefix}, *content]}
    return {**item, "content": f"{prefix}\n\n{content or ''}"}


class AgentsMemory:
    """tinmem's recall, capture and tools for one conversation of an Agents SDK agent."""

    def __init__(self, binding: MemoryBinding | None = None, **binding_options: Any) -> None:
        self.binding = binding or MemoryBinding(**binding_options)
        self._prompt: str | None = None
        self._added = PromptContext()

    # ----------------------------------------------------------------- recall

    def run_config(self, **options: Any) -> RunConfig:
        """A ``RunConfig`` (with any other options given) whose input filter adds recall."""
        return RunConfig(call_model_input_filter=self.input_filter, **options)

    async def input_filter(self, data: CallModelData[Any]) -> ModelInputData:
        """The SDK's ``call_model_input_filter``: the model's input with recall added."""
        model_data = data.model_data
        items: list[Any] = list(model_data.input)
        last_user = max((i for i, item in enumerate(items) if _is_user_message(item)), default=None)
        if last_user is None:
            return model_data
        if last_user == len(items) - 1:  # a new turn: recall for the user's message
            self._prompt = item_text(items[last_user])
            history = [
                Message("user" if item["role"] == "user" else "assistant", item_text(item))
                for item in items[:last_user]
                if isinstance(item, dict) and item.get("role") in ("user", "assistant")
            ]
            self._added = await self.binding.prompt_context_async(self._prompt, history)
        instructions = model_data.instructions
        if self._added.prepend_system_context:
            instructions = "\n\n".join(
                part for part in (instructions, self._added.prepend_system_context) if part
            )
        if self._added.prepend_context:
            items[last_user] = _with_prefix(items[last_user], self._added.prepend_context)
        return ModelInputData(input=items, instructions=instructions)

    # ----------------------------------------------------------------- capture

    def hooks(self) -> RunHooks[Any]:
        """``RunHooks`` that hand each finished turn to capture."""
        memory = self

        class CaptureHooks(RunHooks[Any]):
            async def on_agent_end(self, context: Any, agent: Any, output: Any) -> None:
                memory.turn_ended(output)

        return CaptureHooks()

    def turn_ended(self, output: Any) -> None:
        """Capture the turn whose prompt the input filter saw, with the agent's output."""
        if self._prompt is None:
            return
        messages = [Message("user", self._prompt), Message("assistant", str(output))]
        self._prompt = None
        self.binding.turn_ended(messages)

    # ----------------------------------------------------------------- tools

    def tools(self) -> list[FunctionTool]:
        """The tinmem tools as SDK function tools, run as this memory's agent."""
        return [self._tool(name) for name in self.binding.tools]

    def _tool(self, name: str) -> FunctionTool:
        registration = self.binding.tools[name]

        async def invoke(context: Any, arguments: str) -> str:
            return await self.binding.call_tool_async(name, arguments)

        return FunctionTool(
            name=name,
            description=registration.description,
            params_json_schema=registration.parameters,
            on_invoke_tool=invoke,
            strict_json_schema=False,  # optional parameters with defaults, as the spec has
        )

    def close(self) -> None:
        self.binding.close()
