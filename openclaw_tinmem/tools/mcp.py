"""``tinmem mcp``: every enabled tool over the Model Context Protocol (official ``mcp`` SDK).

Tools are listed with their JSON Schemas and descriptions; each call runs through the same
``Toolbox`` as the plugin and the CLI, in a worker thread so the server's event loop never
blocks. Invalid input comes back as a tool error (``is_error``) with the same clear message.

Every call acts for an identity. Over stdio it is the one the server was started with
(``--agent-id``/``--user-id``, or ``--admin``). Over HTTP, when ``access_tokens`` are
configured, each request must carry ``Authorization: Bearer <token>`` and acts for that
token's identity; without tokens the server acts for its own identity and binds loopback only.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import secrets
import sys
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import anyio

from openclaw_tinmem.access import Identity
from openclaw_tinmem.config import Settings
from openclaw_tinmem.config.identities import AccessToken
from openclaw_tinmem.errors import ConfigError, TinmemError
from openclaw_tinmem.service import MemoryService
from openclaw_tinmem.serving import address, listening_socket, serve
from openclaw_tinmem.tools.toolbox import Toolbox, build_toolbox, unavailable_toolbox

logger = logging.getLogger("openclaw_tinmem")

SERVER_NAME = "openclaw-tinmem"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
IDENTITY_STATE_KEY = "tinmem_identity"
Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def build_server(toolbox: Toolbox) -> Any:
    """A low-level MCP server whose tools are the toolbox's tools."""
    import mcp_types as types
    from mcp.server.lowlevel import Server

    from openclaw_tinmem import __version__

    async def list_tools(context: Any, params: Any) -> Any:
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=definition.name,
                    description=definition.description,
                    input_schema=definition.parameters(),
                )
                for definition in toolbox.definitions()
            ]
        )

    async def call_tool(context: Any, params: Any) -> Any:
        identity = request_identity(context)
        result = await toolbox.acall(params.name, params.arguments or {}, identity)
        payload = json.dumps(result.data, ensure_ascii=False, default=str)
        structured = result.data if isinstance(result.data, dict) else {"result": result.data}
        return types.CallToolResult(
            content=[types.TextContent(text=payload)],
            structured_content=structured,
            is_error=result.is_error,
        )

    instructions = (
        "Persistent memory: recall, store, forget and update memories; "
        "search, write, read and browse workspace files."
    )
    return Server(
        SERVER_NAME,
        version=__version__,
        instructions=instructions,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def request_identity(context: Any) -> Identity | None:
    """The identity the HTTP request's token stands for (None: the server's own)."""
    request = getattr(context, "request", None)
    state = getattr(request, "scope", {}).get("state") or {}
    identity = state.get(IDENTITY_STATE_KEY)
    return identity if isinstance(identity, Identity) else None


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> tuple[str, str]:
    """A random bearer token and its sha256 (what the config stores)."""
    token = secrets.token_urlsafe(32)
    return token, token_digest(token)


class TokenIdentities:
    """Bearer tokens -> identities, compared by their sha256 in constant time."""

    def __init__(self, tokens: dict[str, AccessToken]) -> None:
        self._digests: list[tuple[str, Identity]] = []
        for name, entry in tokens.items():
            if entry.token_sha256:
                digest = entry.token_sha256
            elif entry.token is not None and entry.token.get_secret_value():
                digest = token_digest(entry.token.get_secret_value())
            else:
                raise ConfigError(
                    f"access token {name!r} needs token_sha256 or token", field="access_tokens"
                )
            identity = Identity(
                agent_id=entry.agent_id, user_id=entry.user_id, admin=entry.admin, via="mcp"
            )
            self._digests.append((digest, identity))

    def __bool__(self) -> bool:
        return bool(self._digests)

    def identify(self, token: str) -> Identity | None:
        digest = token_digest(token)
        found = None
        for known, identity in self._digests:  # no early exit: time does not tell which
            if hmac.compare_digest(known, digest):
                found = identity
        return found


def session_owner(token: str) -> Any:
    """The MCP SDK's user for a bearer token (by its digest): the SDK answers a session
    only to the token that opened it, so no other token can use or close it."""
    from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
    from mcp.server.auth.provider import AccessToken as SessionToken

    digest = token_digest(token)
    return AuthenticatedUser(SessionToken(token=digest, client_id=digest, scopes=[]))


def require_tokens(app: ASGIApp, tokens: TokenIdentities) -> ASGIApp:
    """Every HTTP request must carry a known bearer token; its identity goes to the handlers."""

    async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        headers = {key.decode("latin-1").lower(): value for key, value in scope["headers"]}
        header = headers.get("authorization", b"").decode("latin-1")
        scheme, _, token = header.partition(" ")
        identity = tokens.identify(token.strip()) if scheme.lower() == "bearer" else None
        if identity is None:
            reason = "missing bearer token" if not header else "unknown bearer token"
            body = json.dumps({"error": {"type": "unauthorized", "message": reason}}).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"www-authenticate", b"Bearer"),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        scope.setdefault("state", {})[IDENTITY_STATE_KEY] = identity
        scope["user"] = session_owner(token.strip())
        await app(scope, receive, send)

    return guarded


def http_app(toolbox: Toolbox, settings: Settings, host: str) -> ASGIApp:
    """The streamable HTTP app, behind bearer tokens when any are configured."""
    tokens = TokenIdentities(settings.access_tokens)
    if not tokens and host not in LOOPBACK_HOSTS:
        raise ConfigError(
            f"refusing to serve MCP on {host} without access tokens: configure access_tokens "
            "('tinmem mcp token' makes one) or bind 127.0.0.1",
            field="host",
        )
    app: ASGIApp = build_server(toolbox).streamable_http_app(host=host)
    return require_tokens(app, tokens) if tokens else app


async def serve_stdio(toolbox: Toolbox) -> None:
    from mcp.server.stdio import stdio_server

    from openclaw_tinmem.tools.mcp_lines import (
        AnsweredLines,
        WatchedOutput,
        wire_lines,
        wire_output,
    )

    server = build_server(toolbox)
    with wire_lines() as wire, wire_output() as output:
        lines = AnsweredLines(wire)  # a line that is no message gets an error reply
        watched = WatchedOutput(output, lines)  # the end of input waits for the answers
        async with stdio_server(stdin=lines, stdout=watched) as (read_stream, write_stream):  # type: ignore[arg-type]
            lines.reply_through(write_stream)
            await server.run(read_stream, write_stream, server.create_initialization_options())


def run(
    settings: Settings,
    *,
    identity: Identity,
    http_port: int | None = None,
    host: str = "127.0.0.1",
) -> None:
    service: MemoryService | None = None
    try:
        service = MemoryService.from_settings(settings)
        toolbox = build_toolbox(service, identity=identity)
    except TinmemError as error:  # a broken configuration: said on stderr and on every call
        logger.error("memory tools unavailable: %s", error.message)
        toolbox = unavailable_toolbox(settings, error, identity=identity)
    try:
        if http_port is None:
            anyio.run(serve_stdio, toolbox)
        else:
            app = http_app(toolbox, settings, host)
            listening = listening_socket(host, http_port, "--http")
            print(f"MCP server: {address(listening)}/mcp", file=sys.stderr, flush=True)
            serve(app, listening)
    finally:
        if service is not None:
            service.close()
