"""``tinmem demo``: the reference host runs a scripted conversation over two sessions.

Session 1: the user shares preferences and facts; the plugin captures them in the background.
Session 2: a new session asks something related; the injected ``<agent-experience>`` block
is shown, then the stored memories are listed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from openclaw_tinmem.config import Settings
from openclaw_tinmem.events import Message, ToolRegistration
from openclaw_tinmem.plugin.hookimpls import plugin as entry_point_plugin
from openclaw_tinmem.plugin.host import Host, load_plugins

FIRST_SESSION = (
    "Hi! My name is Priya and I work as a data engineer at a logistics startup.",
    "I really prefer Python with Polars for data work, and I hate notebooks in production.",
    "We decided to move our pipelines from Airflow to Dagster next quarter.",
    "Please remember that I'm allergic to peanuts, for the team dinner planning.",
    "thanks!",
)
SECOND_SESSION = "Can you sketch a data pipeline for our new shipment-tracking feed?"


def canned_model(messages: Sequence[Message], tools: Sequence[ToolRegistration]) -> str:
    return "Got it."


def run_demo(settings: Settings, echo: Callable[[str], None]) -> None:
    """Run the two sessions through the entry-point plugin and report what happened."""
    entry_point_plugin.configure(settings)
    try:
        host = Host(load_plugins(), canned_model)  # loads the plugin from its entry point
        mode = "LLM (" + settings.llm_model + ")" if settings.llm_configured() else "NO-LLM MODE"
        echo(f"openclaw-tinmem demo — memory extraction: {mode}; store: {settings.db_path}\n")
        first = host.start_session(agent_id="demo", user_id="priya")
        echo("Session 1")
        for text in FIRST_SESSION:
            echo(f"  user: {text}")
            host.turn(first, text)
        host.end_session(first)  # waits (bounded) for background capture
        echo("\nSession 2 (a new conversation)")
        second = host.start_session(agent_id="demo", user_id="priya")
        echo(f"  user: {SECOND_SESSION}")
        host.turn(second, SECOND_SESSION)
        echo("\nInjected before the model was called:\n")
        echo(second.last_injected or "(nothing injected)")
        host.end_session(second)
        memories = entry_point_plugin.service.store.list_memories(limit=None)
        echo(f"\nStored memories ({len(memories)}):")
        for memory in sorted(memories, key=lambda memory: memory.category.value):
            echo(f"  [{memory.category.value:<11}] {memory.headline}  ({memory.scope})")
    finally:
        entry_point_plugin.close()


def demo_settings(base: Settings, directory: str) -> Settings:
    """``base`` with the store and the journal in ``directory``."""
    root = Path(directory)
    return base.model_copy(
        update={"db_path": str(root / "lancedb"), "journal_path": str(root / "journal")}
    )
