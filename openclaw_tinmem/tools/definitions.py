"""What the agent is told about each tool: name, description and argument model.

Nothing here runs a tool, so a host can list the tools (``tool_definitions``) without
building the store or loading a model.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from openclaw_tinmem.events import ToolResult
from openclaw_tinmem.tools.arguments import (
    ForgetArguments,
    HistoryArguments,
    ReadArguments,
    RecallArguments,
    SearchArguments,
    StoreArguments,
    ToolArguments,
    TreeArguments,
    UpdateArguments,
    WriteArguments,
    json_schema,
)

if TYPE_CHECKING:
    from openclaw_tinmem.access import Identity

ToolSets = Literal["tinmem", "workspace", "both"]
ToolSet = Literal["tinmem", "workspace", "history"]


Handler = Callable[[Any, "Identity"], ToolResult]  # (validated arguments, caller)


@dataclass(frozen=True)
class ToolDefinition:
    """A tool's name, description and argument model: everything but the code that runs it."""

    name: str
    description: str
    arguments: type[ToolArguments]
    tool_set: ToolSet = "tinmem"

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
    "Only related memories come back (an unrelated query returns none), best first; a score "
    "only orders them and is not a probability."
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
SEARCH_DESCRIPTION = (
    "Search the workspace memory (MEMORY.md, daily logs, notes) with hybrid full-text and "
    "semantic search. Call it before answering questions about earlier work, decisions, dates, "
    "people, preferences or todos."
)
WRITE_DESCRIPTION = (
    "Write to workspace memory: 'memory' for curated long-term facts (MEMORY.md), 'daily_log' "
    "for today's timestamped log, 'heartbeat' for the HEARTBEAT.md checklist, or a custom path. "
    "Identity files (IDENTITY.md, SOUL.md, AGENTS.md, USER.md) cannot be written."
)
READ_DESCRIPTION = "Read one file of the workspace memory, such as a file listed by memory_tree."
TREE_DESCRIPTION = "Show the workspace memory as a tree: files, and directories ending in '/'."

HISTORY_DESCRIPTION = (
    "List the changes of one memory, oldest first: when it was created, merged, updated, "
    "forgotten or restored, by whom, and what it said before and after."
)

TINMEM_TOOLS = (
    ToolDefinition("memory_recall", RECALL_DESCRIPTION, RecallArguments),
    ToolDefinition("memory_store", STORE_DESCRIPTION, StoreArguments),
    ToolDefinition("memory_forget", FORGET_DESCRIPTION, ForgetArguments),
    ToolDefinition("memory_update", UPDATE_DESCRIPTION, UpdateArguments),
)
WORKSPACE_TOOLS = (
    ToolDefinition("memory_search", SEARCH_DESCRIPTION, SearchArguments, "workspace"),
    ToolDefinition("memory_write", WRITE_DESCRIPTION, WriteArguments, "workspace"),
    ToolDefinition("memory_read", READ_DESCRIPTION, ReadArguments, "workspace"),
    ToolDefinition("memory_tree", TREE_DESCRIPTION, TreeArguments, "workspace"),
)


HISTORY_TOOLS = (
    ToolDefinition("memory_history", HISTORY_DESCRIPTION, HistoryArguments, "history"),
)
# every tool there is, in the order they are offered (a configuration enables a subset)
ALL_TOOLS = (*TINMEM_TOOLS, *WORKSPACE_TOOLS, *HISTORY_TOOLS)


def enabled_sets(tool_sets: ToolSets, history_tool: bool = False) -> tuple[ToolSet, ...]:
    """The one rule for what is offered: the tinmem tools, the workspace's, or both, and
    ``memory_history`` when ``history_tool`` is on (off by default)."""
    sets: tuple[ToolSet, ...] = ("tinmem", "workspace") if tool_sets == "both" else (tool_sets,)
    return (*sets, "history") if history_tool else sets


def tool_definitions(tool_sets: ToolSets, history_tool: bool = False) -> list[ToolDefinition]:
    """The tools a configuration offers, in order, without building anything."""
    enabled = enabled_sets(tool_sets, history_tool)
    return [tool for tool in ALL_TOOLS if tool.tool_set in enabled]
