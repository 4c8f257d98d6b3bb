"""The ``openclaw`` plugin side: hook specs, tinmem's hook implementations, reference hosts.

``openclaw_tinmem.plugin:plugin`` is the entry point object; it is imported on first access,
so importing the hook specs or a host does not load the store and its models.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from openclaw_tinmem.plugin.hookimpls import TinmemPlugin, plugin

__all__ = ["TinmemPlugin", "plugin"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from openclaw_tinmem.plugin import hookimpls

        return getattr(hookimpls, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
