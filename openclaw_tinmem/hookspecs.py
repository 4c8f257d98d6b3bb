"""The hook specifications at their old import path, from before they moved to ``plugin/``:
deprecated, import ``openclaw_tinmem.plugin.hookspecs`` (this still works, with a warning)."""

import warnings

from openclaw_tinmem.plugin.hookspecs import (
    ENTRY_POINT_GROUP,
    PROJECT_NAME,
    agent_end,
    before_compaction,
    before_prompt_build,
    before_reset,
    hook_names,
    hookimpl,
    hookspec,
    make_plugin_manager,
    register_tools,
    session_end,
    session_start,
)

warnings.warn(
    "openclaw_tinmem.hookspecs is deprecated: import openclaw_tinmem.plugin.hookspecs",
    DeprecationWarning,
    stacklevel=2,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "PROJECT_NAME",
    "agent_end",
    "before_compaction",
    "before_prompt_build",
    "before_reset",
    "hook_names",
    "hookimpl",
    "hookspec",
    "make_plugin_manager",
    "register_tools",
    "session_end",
    "session_start",
]
