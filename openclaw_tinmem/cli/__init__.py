"""The ``tinmem`` command line: thin commands over the toolbox and the service."""

from openclaw_tinmem.cli import (  # registers commands
    admin_commands,
    agent_commands,
    memory_commands,
    workspace_commands,
)
from openclaw_tinmem.cli.app import main

__all__ = [
    "admin_commands",
    "agent_commands",
    "main",
    "memory_commands",
    "workspace_commands",
]
