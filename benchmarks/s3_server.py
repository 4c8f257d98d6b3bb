"""Real S3 servers on 127.0.0.1 for the object-storage tests.

``moto_server`` is moto's standalone S3 server (it honours conditional writes). The
``ForgetfulProxy`` forwards to it but drops the ``If-None-Match``/``If-Match`` headers: an
S3-compatible server that ignores conditional writes, as some do.
"""

from __future__ import annotations

import http.client
import shutil
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

MOTO_SERVER = shutil.which("moto_server") or str(Path(sys.executable).with_name("moto_server"))
CONDITIONAL_HEADERS = {"if-none-match", "if-match"}
CREDENTIALS = {"aws_access_key_id": "test", "aws_secret_access_key": "test"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_moto() -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    server = subprocess.Popen(
        [MOTO_SERVER, "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                break
        except OSError:
            time.sleep(0.1)
    return server, f"http://127.0.0.1:{port}"


def create_bucket(endpoint: str, bucket: str) -> None:
    import boto3

    client = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", **CREDENTIALS)
    client.create_bucket(Bucket=bucket)


def storage_options(endpoint: str) -> dict[str, str]:
    return {
        "aws_endpoint": endpoint,
        "aws_region": "us-east-1",
        "allow_http": "true",
        **CREDENTIALS,
    }


class ForgetfulProxy:
    """An HTTP proxy to ``target`` that drops conditional-write headers."""

    def __init__(self, target: str) -> None:
        host, port = target.removeprefix("http://").split(":")
        destination = (host, int(port))

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                headers = {
                    name: value
                    for name, value in self.headers.items()
                    if name.lower() not in CONDITIONAL_HEADERS
                }
                connection = http.client.HTTPConnection(*destination, timeout=60)
                connection.request(self.command, self.path, body=body, headers=headers)
                response = connection.getresponse()
                data = response.read()
                self.send_response(response.status)
                for name, value in response.getheaders():
                    if name.lower() not in ("transfer-encoding", "connection", "content-length"):
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)
                connection.close()

            do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = forward

            def log_message(self, *arguments: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
