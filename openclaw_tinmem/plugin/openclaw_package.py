"""The OpenClaw plugin package's generated files (``integrations/openclaw``).

``python -m openclaw_tinmem.plugin.openclaw_package integrations/openclaw`` writes
``openclaw.plugin.json`` (the manifest: id, kind, the tools it owns, its config schema) and
``tools.json`` (each tool's name, description and parameters, which the plugin registers
before the Python side has started). A test fails whenever the committed files and the code
disagree.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from openclaw_tinmem.tools.definitions import ALL_TOOLS

REGENERATE = "python -m openclaw_tinmem.plugin.openclaw_package integrations/openclaw"
PLUGIN_ID = "tinmem"

CONFIG_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "command": {
            "type": "array",
            "items": {"type": "string"},
            "minItems": 1,
            "description": 'How to start the Python side (default: ["tinmem", "bridge"])',
        },
        "env": {
            "type": "object",
            "additionalProperties": {"type": "string"},
            "description": "Environment for the Python side, e.g. TINMEM_DB_PATH, "
            "TINMEM_CONFIG or TINMEM_LLM_BASE_URL",
        },
        "recallTimeoutMs": {
            "type": "integer",
            "minimum": 100,
            "default": 3000,
            "description": "before_prompt_build gives up after this long: the turn goes on "
            "without memory",
        },
        "toolTimeoutMs": {
            "type": "integer",
            "minimum": 100,
            "default": 15000,
            "description": "A tool call answers with an error after this long",
        },
        "toolSets": {
            "type": "array",
            "items": {"enum": ["tinmem", "workspace", "history"]},
            "default": ["tinmem", "workspace"],
            "description": "Which tools to offer; match the Python side's tool_sets and "
            "history_tool",
        },
        "injectAs": {
            "enum": ["prependContext", "prependSystemContext"],
            "default": "prependContext",
            "description": "Where the <agent-experience> block goes: before the user's "
            "message (default) or into the system prompt",
        },
        # OpenClaw loads memory-core beside the memory slot's plugin as a "dreaming sidecar"
        # unless the slot plugin's own config turns dreaming off; the sidecar brings a second
        # memory_search, memory_get and its file-memory instructions. tinmem consolidates its
        # own store, so the default keeps memory-core out.
        "dreaming": {
            "type": "object",
            "additionalProperties": False,
            "default": {"enabled": False},
            "properties": {
                "enabled": {
                    "type": "boolean",
                    "default": False,
                    "description": "Also load OpenClaw's memory-core as a dreaming sidecar "
                    "(its file memory and instructions; its memory_search over memory files "
                    "then takes the place of tinmem's, and memory_get comes too); off with "
                    "tinmem",
                }
            },
        },
    },
}


CLI_COMMAND = {
    "name": "tinmem",
    "hasSubcommands": True,
    "description": "tinmem memory: list, search, show, forget, doctor, ui, ingest… (runs `tinmem`)",
}


def tools() -> list[dict[str, Any]]:
    """Every tool the plugin may register (the Python side's tool_sets decide which work)."""
    return [
        {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters(),
            "set": tool.tool_set,
        }
        for tool in ALL_TOOLS
    ]


def manifest() -> dict[str, Any]:
    return {
        "id": PLUGIN_ID,
        "name": "tinmem memory",
        "description": "Persistent memory for agents: recall before each turn, capture after "
        "it, and memory tools, from the openclaw-tinmem Python package.",
        "kind": "memory",
        "categories": ["memory"],
        "activation": {"onStartup": True},
        # the root command OpenClaw lists in its help without loading the plugin
        "cliCommands": [CLI_COMMAND],
        "contracts": {"tools": [tool["name"] for tool in tools()]},
        "configSchema": CONFIG_SCHEMA,
    }


def files() -> dict[str, str]:
    """The generated files' names and texts."""
    return {
        "openclaw.plugin.json": json.dumps(manifest(), indent=2, ensure_ascii=False) + "\n",
        "tools.json": json.dumps(tools(), indent=2, ensure_ascii=False) + "\n",
    }


def main() -> None:
    directory = Path(sys.argv[1] if len(sys.argv) > 1 else "integrations/openclaw")
    for name, text in files().items():
        (directory / name).write_text(text)


if __name__ == "__main__":
    main()
