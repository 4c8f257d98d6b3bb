"""The socket a server of tinmem's listens on (the MCP HTTP server, the memory browser): bound
before its address is announced, so the address printed is the one served, a port given as 0
is named, and a port in use is one line that names the option."""

from __future__ import annotations

import socket
from typing import Any

from openclaw_tinmem.errors import ConfigError

SOCKET_BACKLOG = 2048  # uvicorn's default


def listening_socket(host: str, port: int, option: str) -> socket.socket:
    """A socket bound to ``host``:``port`` (0: a free port), or ``ConfigError`` naming
    ``option`` (the command-line option that gave the port)."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        listening = socket.socket(family, socket.SOCK_STREAM)
    except OSError as error:
        raise ConfigError(
            f"cannot listen on {host!r} ({error.strerror or error}): give an address of this "
            "machine, such as 127.0.0.1",
            field="host",
        ) from None
    # as asyncio's servers do: a port left in TIME_WAIT by the last run can be bound again
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listening.bind((host, port))
    except OSError as error:
        listening.close()
        raise ConfigError(
            f"port {port} on {host} cannot be used ({error.strerror or error}): "
            f"give another {option}, or 0 for a free one",
            field=option.lstrip("-"),
        ) from None
    listening.listen(SOCKET_BACKLOG)  # connectable once announced, before the server runs
    return listening


def address(listening: socket.socket) -> str:
    """``http://host:port`` of a bound socket (an IPv6 host in brackets)."""
    host, port = listening.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def serve(app: Any, listening: socket.socket) -> None:
    """Serve the ASGI ``app`` on ``listening`` until interrupted."""
    import uvicorn

    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[listening])
