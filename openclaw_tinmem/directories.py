"""The directories openclaw-tinmem writes (store, journal), made private, or a clear error
naming the setting when the path cannot be one: a file in the way, no permission, a
read-only disk."""

from __future__ import annotations

import logging
from pathlib import Path

from openclaw_tinmem.errors import ConfigError

logger = logging.getLogger("openclaw_tinmem")
PRIVATE = 0o700


def private_directory(directory: Path, *, setting: str) -> Path:
    """``directory``, created if missing and made private to its owner (group and others lose
    their access; the owner's own permissions are left as they are). A directory
    that exists but cannot be made private (owned by someone else, read-only) is used as it
    is; one that cannot exist raises ``ConfigError`` naming ``setting``."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise ConfigError(
            f"{setting} {str(directory)!r} is a file, not a directory: point {setting} at a "
            "directory (it is created if missing)",
            field=setting,
        ) from None
    except OSError as error:
        raise ConfigError(
            f"{setting} {str(directory)!r} cannot be created: {error.strerror or error}",
            field=setting,
        ) from None
    make_private(directory)
    return directory


def make_private(directory: Path) -> None:
    """Group and others lose their access to ``directory``; the owner's own bits (read-only,
    say) stay. Where that cannot be done, the directory is used as it is."""
    try:
        mode = directory.stat().st_mode
        if mode & 0o777 != mode & PRIVATE:
            directory.chmod(mode & PRIVATE)
    except OSError as error:
        logger.debug("could not make %s private: %s", directory, error)
