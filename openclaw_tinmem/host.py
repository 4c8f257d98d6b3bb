"""The reference hosts at their old import path, from before they moved to ``plugin/``:
deprecated, import ``openclaw_tinmem.plugin.host`` (this still works, with a warning)."""

import warnings

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

warnings.warn(
    "openclaw_tinmem.host is deprecated: import openclaw_tinmem.plugin.host",
    DeprecationWarning,
    stacklevel=2,
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
