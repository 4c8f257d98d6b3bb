"""The four tinmem tools: specs for function calling and handlers that call the service.

``Toolbox.call`` never raises: invalid input, missing ids and internal failures all come back
as a ``ToolResult`` whose ``data`` holds an ``error`` object (type, message, field).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from openclaw_tinmem.errors import TinmemError
from openclaw_tinmem.models import Action, Level, Source, WriteOutcome
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.tool_arguments import (
    ForgetArguments,
    RecallArguments,
    StoreArguments,
    ToolArguments,
    UpdateArguments,
    json_schema,
    parse_arguments,
)  # fmt: skip

logger = logging.getLogger("openclaw_tinmem")


@dataclass(frozen=True)
class ToolResult:
    """A JSON object for machines and a short text for people (and models)."""

    data: Any  # a JSON object; memory_tree returns the spec's JSON array
    text: str

    @property
    def is_error(self) -> bool:
        return isinstance(self.data, dict) and "error" in self.data


Handler = Callable[[Any], ToolResult]


@dataclass(frozen=True)
class ToolDefinition:
    """A tool's name, description and argument model: everything but the code that runs it."""

    name: str
    description: str
    arguments: type[ToolArguments]

    def parameters(self) -> dict[str, Any]:
        return json_schema(self.arguments)

    def openai_schema(self) -> dict[str, Any]:
        """The tool in OpenAI's function-calling format."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters(),
            },
        }


RECALL_DESCRIPTION = (
    "Look up memories from earlier conversations: the user's background and preferences, past "
    "decisions, known projects and people, problems solved before. Call it when the user "
    "refers to something discussed earlier or when past context would change your answer. "
    "Results come best first; a score only orders them and is not a probability."
)
STORE_DESCRIPTION = (
    "Keep a piece of information for future conversations: personal facts the user shares, "
    "decisions, novel solutions, new projects or people. Similar memories are merged or "
    "skipped according to the category's rule; the result says which."
)
FORGET_DESCRIPTION = (
    "Delete memories that are wrong or no longer relevant, by id or by query. By query only "
    "confident matches are deleted; otherwise nothing is deleted and candidates are returned."
)
UPDATE_DESCRIPTION = (
    "Correct or extend a stored memory by id. Only the fields given change; tags replace the "
    "old tags; new content refreshes the headline and summary unless those are given too."
)


TINMEM_TOOLS = (
    ToolDefinition("memory_recall", RECALL_DESCRIPTION, RecallArguments),
    ToolDefinition("memory_store", STORE_DESCRIPTION, StoreArguments),
    ToolDefinition("memory_forget", FORGET_DESCRIPTION, ForgetArguments),
    ToolDefinition("memory_update", UPDATE_DESCRIPTION, UpdateArguments),
)


def _outcome_text(outcome: WriteOutcome) -> str:
    if outcome.action is Action.CREATED:
        return f"Stored memory {outcome.memory.id} ({outcome.memory.category.value})."
    if outcome.action is Action.MERGED:
        return f"Merged into existing memory {outcome.target_id}."
    return f"Skipped: already remembered as {outcome.target_id}."


class Toolbox:
    """The tinmem tools bound to one MemoryService."""

    def __init__(self, service: MemoryService, *, include_tinmem: bool = True) -> None:
        self.service = service
        handlers: dict[str, Handler] = {
            "memory_recall": self._recall, "memory_store": self._store,
            "memory_forget": self._forget, "memory_update": self._update,
        }  # fmt: skip
        self.tools: dict[str, tuple[ToolDefinition, Handler]] = {
            definition.name: (definition, handlers[definition.name])
            for definition in (TINMEM_TOOLS if include_tinmem else ())
        }

    def names(self) -> list[str]:
        return list(self.tools)

    def definitions(self) -> list[ToolDefinition]:
        return [definition for definition, _ in self.tools.values()]

    def openai_tools(self) -> list[dict[str, Any]]:
        return [definition.openai_schema() for definition in self.definitions()]

    def extend(self, tools: Iterable[tuple[ToolDefinition, Handler]]) -> None:
        """Add tools (the workspace tools, a host's own) to this toolbox."""
        for definition, handler in tools:
            self.tools[definition.name] = (definition, handler)

    def call(self, name: str, arguments: Any) -> ToolResult:
        """Run one tool call; every failure becomes an error result, never an exception."""
        entry = self.tools.get(name)
        if entry is None:
            allowed = ", ".join(self.tools)
            error = {"type": "unknown_tool", "message": f"no tool {name!r}; tools: {allowed}"}
            return ToolResult({"error": error}, error["message"])
        try:
            definition, handler = entry
            return handler(parse_arguments(definition.arguments, arguments))
        except TinmemError as error:
            return ToolResult({"error": error.to_dict()}, f"Error: {error.message}")
        except Exception as error:  # the host must never see an exception from a tool
            logger.exception("tool %s failed", name)
            details = {"type": "internal_error", "message": f"{type(error).__name__}: {error}"}
            return ToolResult({"error": details}, f"Error: {details['message']}")

    async def acall(self, name: str, arguments: Any) -> ToolResult:
        """``call`` for async hosts: runs in a worker thread so the event loop never blocks."""
        return await asyncio.to_thread(self.call, name, arguments)

    # ----------------------------------------------------------------- handlers

    def _recall(self, arguments: RecallArguments) -> ToolResult:
        hits = self.service.recall(
            arguments.query,
            scopes=[arguments.scope],
            categories=arguments.categories,
            limit=arguments.limit,
        )
        level = Level(arguments.level)
        results = [hit.to_dict(level) for hit in hits]
        lines = [
            f"- [{r['category']}] {r['text']} (id {r['id']}, score {r['score']})" for r in results
        ]
        text = "\n".join(lines) if lines else "No relevant memories."
        return ToolResult({"results": results, "count": len(results), "level": level.value}, text)

    def _store(self, arguments: StoreArguments) -> ToolResult:
        outcome = self.service.remember(
            arguments.content,
            arguments.category,
            scope=arguments.scope,
            importance=arguments.importance,
            tags=arguments.tags,
            source=Source.TOOL,
        )
        data: dict[str, Any] = {
            "id": outcome.memory.id,
            "action": outcome.action.value,
            "category": outcome.memory.category.value,
            "scope": outcome.memory.scope,
            "headline": outcome.memory.headline,
            "reason": outcome.reason,
        }
        if outcome.action is Action.MERGED:
            data["merged_into"] = outcome.target_id
        if outcome.action is Action.SKIPPED:
            data["duplicate_of"] = outcome.target_id
        return ToolResult(data, _outcome_text(outcome))

    def _forget(self, arguments: ForgetArguments) -> ToolResult:
        outcome = self.service.forget(
            memory_id=arguments.id,
            query=arguments.query,
            scopes=[arguments.scope] if arguments.scope else None,
            categories=arguments.categories,
        )
        deleted = [memory.id for memory in outcome.deleted]
        data: dict[str, Any] = {"deleted": deleted}
        if not deleted:
            data["candidates"] = [hit.to_dict(Level.L0) for hit in outcome.candidates]
            text = "Nothing deleted: no confident match."
            if outcome.candidates:
                text += " Candidates (delete by id if one is meant):\n" + "\n".join(
                    f"- {hit.memory.id}: {hit.memory.headline}" for hit in outcome.candidates
                )
            return ToolResult(data, text)
        data["memories"] = [{"id": m.id, "headline": m.headline} for m in outcome.deleted]
        return ToolResult(
            data,
            f"Deleted {len(deleted)} memor{'y' if len(deleted) == 1 else 'ies'}: "
            + ", ".join(deleted),
        )

    def _update(self, arguments: UpdateArguments) -> ToolResult:
        memory = self.service.update(
            arguments.id,
            content=arguments.content,
            summary=arguments.summary,
            headline=arguments.headline,
            importance=arguments.importance,
            tags=arguments.tags,
        )
        return ToolResult({"memory": memory.public_dict()}, f"Updated memory {memory.id}.")
