"""The configuration as text: the commented file ``tinmem init`` writes, and the reference
page ``docs/configuration.md``, both generated from the settings model."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from openclaw_tinmem.config.settings import Settings
from openclaw_tinmem.locations import ENV_PREFIX

REGENERATE = "python -m openclaw_tinmem.config.pages > docs/configuration.md"
# the first option of each group, and the group's title
GROUPS = {
    "db_path": "Storage",
    "model_dir": "Models",
    "recall_limit": "Recall",
    "duplicate_similarity": "Writing and dedup",
    "recall_timeout_seconds": "Automatic recall (before each turn)",
    "read_scopes": "Identity and access",
    "auto_recall": "Switches of automatic recall and capture",
    "capture_scope": "Automatic capture (after each turn)",
    "tool_sets": "Tools",
    "llm_base_url": "LLM (extraction and dedup)",
}
REFERENCE_INTRODUCTION = """# Configuration reference

Options come from, later winning: the defaults below, a TOML file (`~/.openclaw/tinmem.toml`,
`TINMEM_CONFIG`, or `--config`; options at the top level or under `[tinmem]`), then
`TINMEM_<OPTION>` environment variables. `${VAR}` inside a file value is replaced by that
environment variable, so secrets need not be written down:
`llm_api_key = "${OPENAI_API_KEY}"`. `tinmem init` writes a commented file with every option.
A malformed file or value is an error that names the option and what it allows. A
`TINMEM_*` variable that names no option (a typo such as `TINMEM_RECAL_LIMIT`) is ignored,
but logged as a warning with the option it was most likely meant for, and `tinmem doctor`
reports it; besides the options, only `TINMEM_CONFIG`, `TINMEM_TRACE`,
`TINMEM_PACKAGE_INDEX` and `TINMEM_DEBUG` (the CLI's warnings with their tracebacks, and its
debug messages) are read."""


def render_config_file(settings: Settings | None = None) -> str:
    """A commented TOML file listing every option with its description and current value."""
    current = settings or Settings()
    lines = [
        "# openclaw-tinmem configuration.",
        "# Every option can also be set by an env var: TINMEM_<OPTION> (e.g. TINMEM_DB_PATH).",
        "# ${VAR} in a value is replaced by that environment variable.",
        "",
    ]
    for name, field in Settings.model_fields.items():
        value = getattr(current, name)
        lines.append(f"# {field.description}")
        if value is None:
            lines.append(f'# {name} = ""')
        else:
            lines.append(f"{name} = {toml_value(value)}")
        lines.append("")
    return "\n".join(lines)


def toml_value(value: Any) -> str:
    """A TOML literal for a bool, number, string or list of them."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    if isinstance(value, dict):
        pairs = ", ".join(
            f"{json.dumps(str(key))} = {toml_value(item)}" for key, item in value.items()
        )
        return "{" + (f" {pairs} " if pairs else "") + "}"
    if isinstance(value, BaseModel):
        return toml_value(value.model_dump(exclude_none=True))
    return json.dumps(str(value), ensure_ascii=False)  # a JSON string is a valid TOML basic string


def render_reference() -> str:
    """docs/configuration.md: every option by group, with its env var, default and meaning."""
    lines = [f"<!-- generated: {REGENERATE} -->", "", *REFERENCE_INTRODUCTION.splitlines()]
    for name, field in Settings.model_fields.items():
        if name in GROUPS:
            lines += [
                "",
                f"## {GROUPS[name]}",
                "",
                "| option | env var | default | meaning |",
                "|---|---|---|---|",
            ]
        value = field.get_default(call_default_factory=True)
        default = "—" if value is None else f"`{toml_value(value)}`"
        lines.append(
            f"| `{name}` | `{ENV_PREFIX}{name.upper()}` | {default} | {field.description} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(render_reference(), end="")
