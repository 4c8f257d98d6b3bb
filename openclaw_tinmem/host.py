"""The reference hosts, at the import path documented before they moved to ``plugin/``."""

from openclaw_tinmem.plugin.host import (
    AsyncHost,
    AsyncModel,
    Host,
    Model,
    Session,
    build_prompt,
    join_contexts,
    load_plugins,
)

__all__ = [
    "AsyncHost",
    "AsyncModel",
    "Host",
    "Model",
    "Session",
    "build_prompt",
    "join_contexts",
    "load_plugins",
]
