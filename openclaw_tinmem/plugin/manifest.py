"""The plugin manifest (``plugin.toml``) derived from the code.

``python -m openclaw_tinmem.plugin.manifest > plugin.toml`` regenerates it; a test fails
whenever the committed file and the code disagree (hooks, tools, config fields).
"""

from __future__ import annotations

from typing import Any

from openclaw_tinmem.config import Settings
from openclaw_tinmem.config.pages import toml_value
from openclaw_tinmem.plugin.hookspecs import ENTRY_POINT_GROUP, hook_names
from openclaw_tinmem.tools.definitions import ALL_TOOLS

SKILL_PATH = "skills/tinmem-memory-system/SKILL.md"
REGENERATE = "python -m openclaw_tinmem.plugin.manifest > plugin.toml"
PARAMETER_KEYS = (
    "type",
    "description",
    "default",
    "enum",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
)


def manifest() -> dict[str, Any]:
    """The manifest as data."""
    from openclaw_tinmem import __version__

    tools = {}
    for definition in ALL_TOOLS:
        schema = definition.parameters()
        required = set(schema.get("required", []))
        parameters = {}
        for name, prop in schema["properties"].items():
            entry = {key: prop[key] for key in PARAMETER_KEYS if key in prop}
            if prop.get("type") == "array" and "enum" in prop.get("items", {}):
                entry["items_enum"] = prop["items"]["enum"]
            entry["required"] = name in required
            parameters[name] = entry
        tools[definition.name] = {
            "tool_set": definition.tool_set,
            "description": definition.description,
            "parameters": parameters,
        }
    config = {}
    for name, field in Settings.model_fields.items():
        entry = {"env": f"TINMEM_{name.upper()}", "description": field.description or ""}
        default = field.get_default(call_default_factory=True)
        if default is not None and default != {}:
            entry["default"] = default
        config[name] = entry
    return {
        "plugin": {
            "id": "openclaw-tinmem",
            "name": "Tinmem Memory System",
            "version": __version__,
            "description": "Persistent memory for AI agents: automatic recall before each turn, "
            "automatic capture after it, and memory tools (the tinmem skill's four, "
            "IronClaw's four) on an embedded LanceDB store.",
            "entry_point": "openclaw_tinmem.plugin:plugin",
            "entry_point_group": ENTRY_POINT_GROUP,
            "skill": SKILL_PATH,
            "hooks": sorted(hook_names()),
            "tool_sets": ["tinmem", "workspace", "history"],
            "tool_sets_option": "tool_sets",
        },
        "tools": tools,
        "config": config,
    }


def _table(path: list[str], data: dict[str, Any], lines: list[str]) -> None:
    scalars = {key: value for key, value in data.items() if not isinstance(value, dict)}
    tables = {key: value for key, value in data.items() if isinstance(value, dict)}
    if scalars and path:
        lines.append(f"\n[{'.'.join(path)}]")
    lines.extend(f"{key} = {toml_value(value)}" for key, value in scalars.items())
    for key, value in tables.items():
        _table([*path, key], value, lines)


def render_manifest() -> str:
    lines = [f"# openclaw-tinmem plugin manifest. Generated: {REGENERATE}"]
    _table([], manifest(), lines)
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(render_manifest(), end="")
