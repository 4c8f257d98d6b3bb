"""Replies to the lines an MCP client sends over stdio that are not JSON-RPC messages.

The SDK's stdio transport drops such a line without a reply (it is not JSON, or it holds text
that is not Unicode, such as a lone surrogate escape), and the client waits for ever. Lines
are read here first: one that is not a message gets the JSON-RPC error the specification names
for it (-32700, a parse error; -32600, an invalid request, with the request's id when it has
one); the others pass to the SDK as they came.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterable, AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectSendStream
from mcp.shared.message import SessionMessage

from openclaw_tinmem.text import is_well_formed


@contextmanager
def wire_lines() -> Iterator[AsyncIterable[str]]:
    """The lines of the MCP wire (standard input), for ``AnsweredLines``. While serving,
    standard input is read through a private descriptor and ``/dev/null`` takes its place, as
    when the SDK reads it itself: a child process or a stray ``input()`` cannot take the
    client's messages. Put back afterwards."""
    wire, saved = os.dup(0), os.dup(0)
    nothing = os.open(os.devnull, os.O_RDONLY)
    os.dup2(nothing, 0)
    os.close(nothing)
    try:
        with open(wire, encoding="utf-8", errors="replace", newline="\n") as lines:
            yield anyio.wrap_file(lines)
    finally:
        os.dup2(saved, 0)
        os.close(saved)


class AnsweredLines:
    """The lines of ``lines`` that are messages; each other one is answered with an error
    through the stream given to ``reply_through`` (once the server has one)."""

    def __init__(self, lines: AsyncIterable[str]) -> None:
        self._lines = lines
        self._replies: MemoryObjectSendStream[Any] | None = None
        self._ready = anyio.Event()

    def reply_through(self, replies: MemoryObjectSendStream[Any]) -> None:
        self._replies = replies
        self._ready.set()

    def __aiter__(self) -> AsyncIterator[str]:
        return self._messages()

    async def _messages(self) -> AsyncIterator[str]:
        async for line in self._lines:
            if not line.strip():
                continue  # a blank line is no request
            error = problem(line)
            if error is None:
                yield line
                continue
            await self._ready.wait()
            assert self._replies is not None
            await self._replies.send(SessionMessage(error))


def problem(line: str) -> types.JSONRPCError | None:
    """The error reply to ``line``, or None when it is a JSON-RPC message."""
    try:
        types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        return None
    except Exception:  # whatever the SDK cannot read is answered below
        pass
    try:
        value = json.loads(line)
    except (ValueError, RecursionError) as error:  # not JSON, or nested past any message
        reason = "nested too deeply" if isinstance(error, RecursionError) else str(error)
        return _error(None, types.PARSE_ERROR, f"parse error: the line is not JSON ({reason})")
    key = value.get("id") if isinstance(value, dict) else None
    if isinstance(key, bool) or not isinstance(key, int | str) or not is_well_formed(str(key)):
        key = None
    if not is_well_formed(json.dumps(value, ensure_ascii=False)):
        reason = "it holds text that is not valid Unicode (a lone surrogate escape such as \\ud800)"
    else:
        reason = "it is not a JSON-RPC 2.0 request, notification or response"
    return _error(key, types.INVALID_REQUEST, f"invalid request: {reason}")


def _error(key: int | str | None, code: int, message: str) -> types.JSONRPCError:
    data = types.ErrorData(code=code, message=message)
    return types.JSONRPCError(jsonrpc="2.0", id=key, error=data)
