"""One pinned file from a package index, without pip (the simple repository API).

Virtual environments made by ``uv`` have no pip, so ``pip download`` is not always there.
The file is then found through the index's simple API — JSON (PEP 691) where the index
offers it, HTML (PEP 503) otherwise — and downloaded with the standard library. The index is
the one the environment configures (``TINMEM_PACKAGE_INDEX``, ``PIP_INDEX_URL``,
``UV_DEFAULT_INDEX``, ``UV_INDEX_URL``, pip's configuration files), else PyPI. The caller
verifies what arrives against its pinned sha256, whichever way it came.
"""

from __future__ import annotations

import configparser
import hashlib
import json
import os
import re
import shutil
import urllib.request
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from openclaw_tinmem.errors import ModelError
from openclaw_tinmem.locations import PACKAGE_INDEX_VARIABLE

DEFAULT_INDEX = "https://pypi.org/simple"
INDEX_VARIABLES = (PACKAGE_INDEX_VARIABLE, "PIP_INDEX_URL", "UV_DEFAULT_INDEX", "UV_INDEX_URL")
ACCEPT = "application/vnd.pypi.simple.v1+json, text/html;q=0.1"
TIMEOUT_SECONDS = 60


def _pip_config_files() -> list[Path]:
    home = Path.home()
    xdg = Path(os.environ.get("XDG_CONFIG_HOME", home / ".config"))
    listed = [Path(os.environ["PIP_CONFIG_FILE"])] if os.environ.get("PIP_CONFIG_FILE") else []
    # lowest priority first, as pip reads them: site-wide, the user's, PIP_CONFIG_FILE
    return [Path("/etc/pip.conf"), xdg / "pip" / "pip.conf", home / ".pip" / "pip.conf", *listed]


def configured_index() -> str:
    """The package index this environment is configured to use."""
    for name in INDEX_VARIABLES:
        if os.environ.get(name):
            return os.environ[name].rstrip("/")
    index = DEFAULT_INDEX
    for path in _pip_config_files():  # later files override earlier ones, as in pip
        parser = configparser.ConfigParser()
        try:
            parser.read(path)
        except configparser.Error:
            continue
        if parser.has_option("global", "index-url"):
            index = parser.get("global", "index-url").rstrip("/")
    return index


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        href = dict(attrs).get("href")
        if tag == "a" and href:
            self.links.append(href)


def _normalised(project: str) -> str:
    return re.sub(r"[-_.]+", "-", project).lower()


def find_file(index: str, project: str, filename: str) -> tuple[str, str | None]:
    """The URL of ``filename`` among ``project``'s files on ``index``, and its sha256 as the
    index states it (None if it states none)."""
    page = f"{index.rstrip('/')}/{_normalised(project)}/"
    request = urllib.request.Request(page, headers={"Accept": ACCEPT})
    with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:
        kind = response.headers.get("Content-Type", "")
        body = response.read().decode("utf-8")
        base = response.geturl()
    if "json" in kind:
        for entry in json.loads(body).get("files", []):
            if entry.get("filename") == filename:
                return urljoin(base, entry["url"]), entry.get("hashes", {}).get("sha256")
    else:
        parser = _Links()
        parser.feed(body)
        for link in parser.links:
            url = urljoin(base, link)
            if Path(urlsplit(url).path).name == filename:
                digest = re.search(r"sha256=([0-9a-f]{64})", urlsplit(url).fragment)
                return url.split("#")[0], digest.group(1) if digest else None
    raise ModelError(f"{filename} is not listed on the package index {page}")


def download(url: str, target: Path) -> Path:
    """Stream ``url`` to ``target``."""
    with urllib.request.urlopen(url, timeout=TIMEOUT_SECONDS) as response, target.open("wb") as out:
        shutil.copyfileobj(response, out, 1 << 20)
    return target


def fetch(project: str, filename: str, directory: Path, index: str | None = None) -> Path:
    """Download ``filename`` of ``project`` from the configured index into ``directory``."""
    index = index or configured_index()
    url, stated = find_file(index, project, filename)
    path = download(url, directory / filename)
    if stated is not None:
        with path.open("rb") as handle:
            if hashlib.file_digest(handle, "sha256").hexdigest() != stated:
                raise ModelError(f"{filename} from {index} does not match the index's sha256")
    return path
