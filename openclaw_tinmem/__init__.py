"""openclaw-tinmem: persistent memory for AI agents."""

from importlib.metadata import PackageNotFoundError, version

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
)  # fmt: skip
from openclaw_tinmem.models import Category, Hit, Level, Memory, MergePolicy
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.tools import Toolbox, ToolResult

try:
    __version__ = version("openclaw-tinmem")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0"

__all__ = [
    "Category",
    "ConfigError",
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
    "load_settings",
]
