"""The hook specifications, at the import path documented before they moved to ``plugin/``."""

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
