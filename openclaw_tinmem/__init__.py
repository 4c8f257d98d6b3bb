"""openclaw-tinmem: persistent memory for AI agents.

The package face only re-exports; each name is imported on first use, so ``import
openclaw_tinmem`` (and the CLI's ``--help``) does not load LanceDB or a model.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from openclaw_tinmem.config import Settings, load_settings
    from openclaw_tinmem.errors import (
        ConfigError,
        InvalidArgumentError,
        LLMError,
        ModelError,
        ModelMismatchError,
        NotFoundError,
        RateLimitError,
        StoreError,
        TinmemError,
    )
    from openclaw_tinmem.events import ToolResult
    from openclaw_tinmem.models import Category, Draft, Hit, Level, Memory, MergePolicy
    from openclaw_tinmem.service import MemoryService
    from openclaw_tinmem.tools.toolbox import Toolbox, build_toolbox

_EXPORTS = {
    "Category": "openclaw_tinmem.models",
    "ConfigError": "openclaw_tinmem.errors",
    "Draft": "openclaw_tinmem.models",
    "Hit": "openclaw_tinmem.models",
    "InvalidArgumentError": "openclaw_tinmem.errors",
    "LLMError": "openclaw_tinmem.errors",
    "Level": "openclaw_tinmem.models",
    "Memory": "openclaw_tinmem.models",
    "MemoryService": "openclaw_tinmem.service",
    "MergePolicy": "openclaw_tinmem.models",
    "ModelError": "openclaw_tinmem.errors",
    "ModelMismatchError": "openclaw_tinmem.errors",
    "NotFoundError": "openclaw_tinmem.errors",
    "RateLimitError": "openclaw_tinmem.errors",
    "Settings": "openclaw_tinmem.config",
    "StoreError": "openclaw_tinmem.errors",
    "TinmemError": "openclaw_tinmem.errors",
    "ToolResult": "openclaw_tinmem.events",
    "Toolbox": "openclaw_tinmem.tools.toolbox",
    "build_toolbox": "openclaw_tinmem.tools.toolbox",
    "load_settings": "openclaw_tinmem.config",
}

__all__ = [
    "Category",
    "ConfigError",
    "Draft",
    "Hit",
    "InvalidArgumentError",
    "LLMError",
    "Level",
    "Memory",
    "MemoryService",
    "MergePolicy",
    "ModelError",
    "ModelMismatchError",
    "NotFoundError",
    "RateLimitError",
    "Settings",
    "StoreError",
    "TinmemError",
    "ToolResult",
    "Toolbox",
    "__version__",
    "build_toolbox",
    "load_settings",
]


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("openclaw-tinmem")
        except PackageNotFoundError:  # a source tree that was never installed
            return "0.0.0"
    if name in _EXPORTS:
        value = getattr(import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
