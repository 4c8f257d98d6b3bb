"""The host-side contract: pluggy hook specifications of the ``openclaw`` project.

Hosts call every hook with keyword arguments. An implementation may accept fewer arguments
than its spec, so specs can grow without breaking plugins. Implementations may return an
awaitable; async hosts await it (see ``openclaw_tinmem.plugin.host``).
"""

from __future__ import annotations

from collections.abc import Callable

import pluggy

from openclaw_tinmem.events import (
    AgentEndEvent,
    HookContext,
    PromptBuildEvent,
    PromptContext,
    SessionEvent,
    ToolRegistration,
)

PROJECT_NAME = "openclaw"
ENTRY_POINT_GROUP = "openclaw.plugins"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


@hookspec
def before_prompt_build(event: PromptBuildEvent, ctx: HookContext) -> PromptContext | None:
    """Called before the model is prompted.

    :param event: the latest user prompt and the visible message history.
    :param ctx: agent, session, run, user and channel ids.
    :return: context to add to the prompt, or None. Hosts join the ``prepend_system_context``
        and ``prepend_context`` of every plugin in the order the plugins were called.
    """


@hookspec
def agent_end(event: AgentEndEvent, ctx: HookContext) -> None:
    """Called after a turn finished: its messages, success flag, run id and duration.

    Must return quickly; slow work belongs in the background.
    """


@hookspec
def session_start(event: SessionEvent, ctx: HookContext) -> None:
    """Called when a session starts."""


@hookspec
def session_end(event: SessionEvent, ctx: HookContext) -> None:
    """Called when a session ends: flush pending work."""


@hookspec
def before_reset(event: SessionEvent, ctx: HookContext) -> None:
    """Called before the conversation is reset: the last chance to keep what it held."""


@hookspec
def before_compaction(event: SessionEvent, ctx: HookContext) -> None:
    """Called before the host compacts (summarises away) older messages."""


@hookspec
def register_tools(register: Callable[[ToolRegistration], None]) -> None:
    """Called once at start-up: call ``register`` for each tool the plugin offers.

    Hosts call a tool's ``handler(arguments, ctx)`` with the ``HookContext`` of the turn it
    belongs to (None outside a turn): the context says which agent is calling.
    """


def hook_names() -> list[str]:
    """Names of every hook in this contract."""
    return [name for name, value in globals().items() if hasattr(value, f"{PROJECT_NAME}_spec")]


def registered_tools(manager: pluggy.PluginManager) -> dict[str, ToolRegistration]:
    """The tools the manager's plugins register through ``register_tools``, by name (of two
    with one name, the one registered last). Every host asks for them this way, once."""
    tools: dict[str, ToolRegistration] = {}
    manager.hook.register_tools(register=lambda tool: tools.__setitem__(tool.name, tool))
    return tools


def make_plugin_manager() -> pluggy.PluginManager:
    """A PluginManager for the ``openclaw`` project with these specs registered; with
    ``TINMEM_TRACE`` set, every hook call is traced (``plugin.tracing``)."""
    import sys

    from openclaw_tinmem.plugin.tracing import trace_hook_calls, tracing_requested

    manager = pluggy.PluginManager(PROJECT_NAME)
    manager.add_hookspecs(sys.modules[__name__])
    if tracing_requested():
        trace_hook_calls(manager)
    return manager
