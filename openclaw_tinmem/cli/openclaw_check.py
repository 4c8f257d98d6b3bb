"""``tinmem doctor``'s look at OpenClaw: is tinmem its memory, and may its hooks see the
conversation? OpenClaw blocks a non-bundled plugin's ``before_prompt_build`` and
``agent_end`` until the operator allows them, and says so only in ``plugins inspect``."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

PLUGIN_ID = "tinmem"
ALLOW_HOOKS = f"openclaw config set plugins.entries.{PLUGIN_ID}.hooks.allowConversationAccess true"


def openclaw_config_path(environment: dict[str, str] | None = None) -> Path:
    """Where OpenClaw keeps its configuration: OPENCLAW_CONFIG_PATH, else openclaw.json in
    OPENCLAW_STATE_DIR, else in ~/.openclaw."""
    environment = dict(os.environ) if environment is None else environment
    if environment.get("OPENCLAW_CONFIG_PATH", "").strip():
        return Path(environment["OPENCLAW_CONFIG_PATH"].strip()).expanduser()
    state = environment.get("OPENCLAW_STATE_DIR", "").strip() or "~/.openclaw"
    return Path(state).expanduser() / "openclaw.json"


def openclaw_check(path: Path) -> dict[str, Any] | None:
    """The check's name, whether it passed and what to do; None without an OpenClaw config
    that mentions tinmem (OpenClaw not used here)."""
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        detail = f"{path}: could not read it as JSON ({error}); check it with 'openclaw doctor'"
        return {"name": "openclaw", "ok": True, "detail": detail}
    plugins = config.get("plugins") if isinstance(config, dict) else None
    plugins = plugins if isinstance(plugins, dict) else {}
    entry = (plugins.get("entries") or {}).get(PLUGIN_ID)
    slot = (plugins.get("slots") or {}).get("memory")
    if entry is None and slot != PLUGIN_ID:
        return None
    problems = []
    if slot != PLUGIN_ID:
        problems.append(
            f"OpenClaw's memory slot is {slot or 'memory-core'!r}, not tinmem: "
            f"openclaw config set plugins.slots.memory {PLUGIN_ID}"
        )
    hooks = (entry or {}).get("hooks") or {}
    if hooks.get("allowConversationAccess") is not True:
        problems.append(
            "OpenClaw blocks tinmem's before_prompt_build and agent_end hooks, so nothing is "
            f"recalled or captured automatically (the tools still work): {ALLOW_HOOKS}"
        )
    if problems:
        return {"name": "openclaw", "ok": False, "detail": f"{path}: " + "; ".join(problems)}
    return {
        "name": "openclaw",
        "ok": True,
        "detail": f"{path}: tinmem is OpenClaw's memory and its hooks are allowed",
    }
