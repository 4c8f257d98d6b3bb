import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from openclaw_tinmem.config import Settings
from openclaw_tinmem.tools.mcp_lines import ANSWER_WAIT_SECONDS

# the request a raw client opens a session with
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"},
    },
}


async def test_mcp_server_over_stdio(settings: Settings, tmp_path: Path) -> None:
    environment = {
        **os.environ,
        "TINMEM_DB_PATH": settings.db_path,
        "TINMEM_MODEL_DIR": settings.model_dir,
        "TINMEM_JOURNAL_PATH": str(tmp_path / "journal"),
        "TINMEM_CONFIG": str(tmp_path / "none.toml"),
    }
    (tmp_path / "none.toml").write_text("")
    parameters = StdioServerParameters(
        command=sys.executable, args=["-m", "openclaw_tinmem", "mcp"], env=environment
    )
    with anyio.fail_after(120):
        async with stdio_client(parameters) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_tools()
            tools = {tool.name: tool for tool in listed.tools}
            assert set(tools) == {
                "memory_recall",
                "memory_store",
                "memory_forget",
                "memory_update",
                "memory_search",
                "memory_write",
                "memory_read",
                "memory_tree",
            }
            assert tools["memory_store"].input_schema["required"] == ["content", "category"]
            stored = await session.call_tool(
                "memory_store", {"content": "User prefers Helix editor", "category": "preferences"}
            )
            assert not stored.is_error and json.loads(stored.content[0].text)["action"] == "created"
            recalled = await session.call_tool("memory_recall", {"query": "which text editor"})
            assert "Helix" in recalled.content[0].text
            await session.call_tool(
                "memory_update", {"id": json.loads(stored.content[0].text)["id"], "importance": 0.9}
            )
            written = await session.call_tool(
                "memory_write", {"content": "Release on Friday", "target": "memory"}
            )
            assert json.loads(written.content[0].text)["path"] == "MEMORY.md"
            assert "MEMORY.md" in (await session.call_tool("memory_tree", {})).content[0].text
            assert (
                "Friday"
                in (await session.call_tool("memory_read", {"path": "MEMORY.md"})).content[0].text
            )
            assert (
                "Friday"
                in (await session.call_tool("memory_search", {"query": "when is the release"}))
                .content[0]
                .text
            )
            forgotten = await session.call_tool(
                "memory_forget", {"id": json.loads(stored.content[0].text)["id"]}
            )
            assert not forgotten.is_error
            bad = await session.call_tool("memory_store", {"content": "x", "category": "nope"})
            assert bad.is_error and "category" in bad.content[0].text
            traversal = await session.call_tool("memory_read", {"path": "../secrets"})
            assert traversal.is_error and "invalid path" in traversal.content[0].text


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_mcp_server_over_streamable_http(settings: Settings, tmp_path: Path) -> None:
    (tmp_path / "none.toml").write_text("")
    environment = {
        **os.environ,
        "TINMEM_DB_PATH": settings.db_path,
        "TINMEM_MODEL_DIR": settings.model_dir,
        "TINMEM_JOURNAL_PATH": str(tmp_path / "journal"),
        "TINMEM_CONFIG": str(tmp_path / "none.toml"),
    }
    server = subprocess.Popen(  # port 0: a free one, announced with the address
        [sys.executable, "-m", "openclaw_tinmem", "mcp", "--http", "0"],
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        with anyio.fail_after(120):
            url = await anyio.to_thread.run_sync(_announced, server)
            assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")
            async with (
                streamable_http_client(url) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                names = {tool.name for tool in (await session.list_tools()).tools}
                assert {"memory_recall", "memory_store", "memory_search", "memory_tree"} <= names
                stored = await session.call_tool(
                    "memory_store",
                    {"content": "User prefers Helix editor", "category": "preferences"},
                )
                assert not stored.is_error
                recalled = await session.call_tool("memory_recall", {"query": "which text editor"})
                assert "Helix" in recalled.content[0].text
                bad = await session.call_tool("memory_recall", {"query": "x", "limit": 0})
                assert bad.is_error and "limit" in bad.content[0].text
    finally:
        server.terminate()
        server.wait(timeout=30)


def _environment(settings: Settings, tmp_path: Path, **extra: str) -> dict[str, str]:
    (tmp_path / "none.toml").write_text("")
    return {
        **os.environ,
        "TINMEM_DB_PATH": settings.db_path,
        "TINMEM_MODEL_DIR": settings.model_dir,
        "TINMEM_JOURNAL_PATH": str(tmp_path / "journal"),
        "TINMEM_CONFIG": str(tmp_path / "none.toml"),
        **extra,
    }


async def test_mcp_over_stdio_acts_for_the_agent_it_was_started_as(
    settings: Settings, tmp_path: Path
) -> None:
    arguments = ["-m", "openclaw_tinmem", "mcp", "--agent-id", "alpha", "--user-id", "ana"]
    parameters = StdioServerParameters(
        command=sys.executable, args=arguments, env=_environment(settings, tmp_path)
    )
    with anyio.fail_after(120):
        async with stdio_client(parameters) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            mine = await session.call_tool(
                "memory_store",
                {"content": "Ana keeps a cactus", "category": "entities", "scope": "user:ana"},
            )
            assert not mine.is_error
            theirs = await session.call_tool(
                "memory_store",
                {"content": "Bob keeps a fern", "category": "entities", "scope": "user:bob"},
            )
            assert theirs.is_error and "user:bob" in theirs.content[0].text
            found = await session.call_tool("memory_recall", {"query": "which plant"})
            assert "cactus" in found.content[0].text


def _digest(token: str) -> str:
    import hashlib

    return hashlib.sha256(token.encode()).hexdigest()


async def test_mcp_over_http_maps_bearer_tokens_to_identities(
    settings: Settings, tmp_path: Path
) -> None:
    import httpx2

    tokens = {
        "alpha": {"token_sha256": _digest("alpha-secret"), "agent_id": "alpha"},
        "beta": {"token": "${BETA_TOKEN}", "agent_id": "beta"},
    }
    config = tmp_path / "tokens.toml"
    config.write_text(
        "[tinmem.access_tokens.alpha]\n"
        f'token_sha256 = "{tokens["alpha"]["token_sha256"]}"\nagent_id = "alpha"\n'
        '[tinmem.access_tokens.beta]\ntoken = "${BETA_TOKEN}"\nagent_id = "beta"\n'
    )
    environment = _environment(settings, tmp_path, BETA_TOKEN="beta-secret")
    environment["TINMEM_CONFIG"] = str(config)
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "openclaw_tinmem", "mcp", "--http", str(port)],
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}/mcp"

    async def session_as(token: str) -> Any:
        client = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60)
        return client

    try:
        with anyio.fail_after(120):
            await _wait_for(server, port)
            async with httpx2.AsyncClient(timeout=30) as raw:
                body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
                missing = await raw.post(url, json=body)
                assert missing.status_code == 401 and "missing" in missing.text
                wrong = await raw.post(url, json=body, headers={"Authorization": "Bearer nope"})
                assert wrong.status_code == 401 and "unknown" in wrong.text
            for token, agent in (("alpha-secret", "alpha"), ("beta-secret", "beta")):
                async with (
                    await session_as(token) as client,
                    streamable_http_client(url, http_client=client) as (read, write),
                    ClientSession(read, write) as session,
                ):
                    await session.initialize()
                    stored = await session.call_tool(
                        "memory_store",
                        {
                            "content": f"{agent} likes green tea",
                            "category": "preferences",
                            "scope": f"agent:{agent}",
                        },
                    )
                    assert not stored.is_error, stored.content[0].text
                    other = "beta" if agent == "alpha" else "alpha"
                    denied = await session.call_tool(
                        "memory_recall", {"query": "tea", "scope": f"agent:{other}"}
                    )
                    assert denied.is_error and "access_denied" in denied.content[0].text
                    found = await session.call_tool("memory_recall", {"query": "green tea"})
                    assert f"{agent} likes" in found.content[0].text
                    assert f"{other} likes" not in found.content[0].text
            # a session answers only the token that opened it: no other may use or close it
            accept = {"Accept": "application/json, text/event-stream"}
            alpha = {**accept, "Authorization": "Bearer alpha-secret"}
            beta = {**accept, "Authorization": "Bearer beta-secret"}
            async with httpx2.AsyncClient(timeout=30) as raw:
                opened = await raw.post(url, json=INITIALIZE, headers=alpha)
                assert opened.status_code == 200, opened.text
                session_id = opened.headers["mcp-session-id"]
                closing = await raw.delete(url, headers={**beta, "Mcp-Session-Id": session_id})
                assert closing.status_code == 404
                listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}
                hijack = await raw.post(
                    url, json=listing, headers={**beta, "Mcp-Session-Id": session_id}
                )
                assert hijack.status_code == 404
                closed = await raw.delete(url, headers={**alpha, "Mcp-Session-Id": session_id})
                assert closed.status_code == 200
    finally:
        server.terminate()
        server.wait(timeout=30)


def _announced(server: subprocess.Popen[bytes]) -> str:
    """The address the server announces on standard error once it listens."""
    assert server.stderr is not None
    for line in server.stderr:
        text = line.decode()
        if text.startswith("MCP server: "):
            return text.removeprefix("MCP server: ").strip()
    raise AssertionError("the server ended without announcing its address")


async def _wait_for(server: subprocess.Popen[bytes], port: int) -> None:
    while True:  # until the server accepts connections on loopback
        assert server.poll() is None, server.stderr.read().decode() if server.stderr else ""
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            await anyio.sleep(0.2)


def test_without_tokens_the_http_server_refuses_anything_but_loopback(
    settings: Settings, tmp_path: Path
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "openclaw_tinmem", "mcp", "--http", "0", "--host", "0.0.0.0"],
        env=_environment(settings, tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "without access tokens" in done.stderr


def test_a_line_that_is_no_message_gets_an_error_and_the_server_goes_on(
    settings: Settings, tmp_path: Path
) -> None:
    """A client that sends something the SDK cannot read is told so, not left waiting."""
    lone_surrogate = (
        '{"jsonrpc": "2.0", "id": 7, "method": "tools/call", '
        '"params": {"name": "memory_recall", "arguments": {"query": "x \\ud800"}}}'
    )
    listing = {"jsonrpc": "2.0", "id": 8, "method": "tools/list"}
    sent = [
        json.dumps(INITIALIZE),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        "not json",
        "[" * 5000 + "]" * 5000,  # nested past what a parser recurses into
        lone_surrogate,
        '{"jsonrpc": "2.0", "id": "odd"}',
        json.dumps(listing),
    ]
    server = subprocess.run(
        [sys.executable, "-m", "openclaw_tinmem", "mcp"],
        input="\n".join(sent) + "\n",
        capture_output=True,
        text=True,
        env=_environment(settings, tmp_path),
        timeout=120,
    )
    replies = [json.loads(line) for line in server.stdout.splitlines() if line.strip()]
    errors = {reply.get("id"): reply["error"] for reply in replies if "error" in reply}
    parse_errors = [reply["error"] for reply in replies if reply.get("id") is None]
    assert [error["code"] for error in parse_errors] == [-32700, -32700]
    assert "not JSON" in parse_errors[0]["message"]
    assert errors[7]["code"] == -32600 and "lone surrogate" in errors[7]["message"]
    assert errors["odd"]["code"] == -32600
    tools = next(reply for reply in replies if reply.get("id") == 8)["result"]["tools"]
    assert "memory_recall" in {tool["name"] for tool in tools}


def test_a_cancelled_request_does_not_hold_the_server_open_at_the_end_of_input(
    settings: Settings, tmp_path: Path
) -> None:
    """The SDK never answers a request the client cancelled: the end of input does not wait
    for that answer (``ANSWER_WAIT_SECONDS``)."""
    call = {"name": "memory_recall", "arguments": {"query": "persimmon trees", "limit": 20}}
    sent = [
        INITIALIZE,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/list"},
    ]
    started = time.monotonic()
    server = subprocess.run(
        [sys.executable, "-m", "openclaw_tinmem", "mcp"],
        input="".join(json.dumps(message) + "\n" for message in sent),
        capture_output=True,
        text=True,
        env=_environment(settings, tmp_path),
        timeout=120,
    )
    assert time.monotonic() - started < ANSWER_WAIT_SECONDS
    replies = [json.loads(line) for line in server.stdout.splitlines() if line.strip()]
    assert 3 in {reply.get("id") for reply in replies}
