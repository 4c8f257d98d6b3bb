"""Workspace paths: validation, the named targets of memory_write, and the tree view."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from openclaw_tinmem.errors import InvalidArgumentError
from openclaw_tinmem.text import quoted

MAX_PATH_LENGTH = 512
MAX_PATH_DEPTH = 10
MEMORY_FILE = "MEMORY.md"
HEARTBEAT_FILE = "HEARTBEAT.md"
DAILY_DIRECTORY = "daily"
PROTECTED_FILES = frozenset({"IDENTITY.md", "SOUL.md", "AGENTS.md", "USER.md"})
_SEGMENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._\- ]*$")


_PROTECTED_NAMES = frozenset(name.casefold() for name in PROTECTED_FILES)


def _comparable(name: str) -> str:
    """A file name as a forgiving filesystem may see it: one Unicode form and case, no
    spaces, no trailing dots (Windows drops trailing dots and spaces)."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", name).casefold()).rstrip(".")


def is_protected(path: str) -> bool:
    """True for an identity file at any depth, and for its look-alikes: whatever its case or
    Unicode form, with spaces or trailing dots added (``IDENTITY .md``, ``SOUL.md.``), or as
    a copy under a further extension (``IDENTITY.md.bak``)."""
    name = _comparable(path.split("/")[-1])
    return any(
        name == protected or name.startswith(protected + ".") for protected in _PROTECTED_NAMES
    )


def normalise_path(path: str, *, field: str = "path", allow_root: bool = False) -> str:
    """A validated workspace path: relative, '/'-separated, no '..' or empty segments."""
    if not isinstance(path, str):
        raise InvalidArgumentError("path must be a string", field=field)
    candidate = path.strip()
    if candidate in ("", ".") and allow_root:
        return ""
    problem = None
    if not candidate:
        problem = "must not be empty"
    elif candidate.startswith("/") or re.match(r"^[A-Za-z]:", candidate) or "\\" in candidate:
        problem = "must be relative to the workspace, with '/' between parts"
    elif len(candidate) > MAX_PATH_LENGTH:
        problem = f"must be at most {MAX_PATH_LENGTH} characters"
    else:
        segments = candidate.rstrip("/").split("/") if allow_root else candidate.split("/")
        if any(segment in ("", ".", "..") for segment in segments):
            problem = "must not contain empty, '.' or '..' parts"
        elif len(segments) > MAX_PATH_DEPTH:
            problem = f"must be at most {MAX_PATH_DEPTH} levels deep"
        elif not all(_SEGMENT.match(segment) for segment in segments):
            problem = (
                "parts may use ASCII letters, digits, '.', '_', '-' and spaces, "
                "starting with a letter or digit"
            )
        else:
            return "/".join(segments)
    raise InvalidArgumentError(f"invalid path {quoted(path)}: {problem}", field=field)


def clash(path: str, others: Iterable[str]) -> str | None:
    """Why file ``path`` cannot sit beside files ``others`` (it would be one's folder, or
    inside one), or None."""
    parts = path.split("/")
    folders = {"/".join(parts[:end]) for end in range(1, len(parts))}
    for other in others:
        if other.startswith(path + "/"):
            return f"{path} is a folder (it holds {other})"
        if other in folders:
            return f"{other} is a file, so it cannot hold {path}"
    return None


def resolve_target(target: str, today: datetime) -> str:
    """The file a memory_write target names: memory, daily_log, heartbeat or a custom path."""
    named = {
        "memory": MEMORY_FILE,
        "heartbeat": HEARTBEAT_FILE,
        "daily_log": f"{DAILY_DIRECTORY}/{today:%Y-%m-%d}.md",
    }
    path = named.get(target) or normalise_path(target, field="target")
    if is_protected(path):
        raise InvalidArgumentError(
            f"{path} is an identity file or a look-alike of one "
            f"({', '.join(sorted(PROTECTED_FILES))} in any case, with spaces, trailing dots or "
            "a further extension) and cannot be written through tools",
            field="target",
        )
    return path


def build_tree(paths: Iterable[str], root: str, depth: int) -> list[Any]:
    """The nested tree below ``root``: files as strings, directories as {"name/": [children]}.

    Directories deeper than ``depth`` are shown as plain "name/" strings.
    """
    prefix = f"{root}/" if root else ""
    nested: dict[str, Any] = {}
    for path in sorted(paths):
        if not path.startswith(prefix):
            continue
        node = nested
        parts = path[len(prefix) :].split("/")
        for part in parts[:-1]:
            node = node.setdefault(part + "/", {})
        node[parts[-1]] = None
    return _render(nested, depth)


def _render(node: dict[str, Any], depth: int) -> list[Any]:
    files = [name for name, child in node.items() if child is None]
    directories = [name for name, child in node.items() if child is not None]
    rendered: list[Any] = sorted(files)
    for name in sorted(directories):
        children = _render(node[name], depth - 1) if depth > 1 else []
        rendered.append({name: children} if children else name)
    return rendered
