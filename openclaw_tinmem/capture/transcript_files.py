"""Which files under the folders given to ``tinmem ingest`` are transcripts."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

DATABASE = "openclaw-agent.sqlite"  # an OpenClaw agent's database, transcripts included
LIST_SNIFF_BYTES = 64  # read of a JSON file in a folder, to tell a LoCoMo list from others


def transcript_files(paths: Iterable[Path]) -> list[Path]:
    """The files named, and the transcripts under the folders named: ``*.jsonl`` files and
    their ``.reset.*`` archives (not ``.deleted`` ones, nor ``.lock`` files), and ``*.json``
    files that hold a LoCoMo list — not the other JSON of an OpenClaw state folder (its
    ``sessions.json`` index, ``models.json``, credentials)."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += sorted(
                item
                for item in path.rglob("*")
                if item.is_file()
                and ".deleted" not in item.name
                and (
                    _TRANSCRIPT_NAME.fullmatch(item.name)
                    or item.name == DATABASE
                    or (item.suffix == ".json" and _holds_a_list(item))
                )
            )
        else:
            found.append(path)
    return found


_TRANSCRIPT_NAME = re.compile(r".+\.jsonl(?:\.reset\.[^/]+)?")


def _holds_a_list(path: Path) -> bool:
    """Whether a JSON file starts a list (LoCoMo's format), read from its first bytes."""
    try:
        with path.open("rb") as file:
            start = file.read(LIST_SNIFF_BYTES).lstrip(b"\xef\xbb\xbf \t\r\n")
    except OSError:
        return True  # named as unreadable when read, as any other file
    return start.startswith(b"[")
