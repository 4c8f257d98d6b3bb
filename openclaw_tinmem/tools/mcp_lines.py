"""Replies to the lines an MCP client sends over stdio that are not JSON-RPC messages.

The SDK's stdio transport drops such a line without a reply (it is not JSON, or it holds text
that is not Unicode, such as a lone surrogate escape), and the client waits for ever. Lines
are read here first: one that is not a message gets the JSON-RPC error the specification names
for it (-32700, a parse error; -32600, an invalid request, with the request's id when it has
one); the others pass to the SDK as they came. At the end of input the SDK stops the server,
and a request still being answered got no reply (`echo … | tinmem mcp` lost its answers): the
end is passed on only once every request read has been answered or cancelled by the client
(``ANSWER_WAIT_SECONDS`` at most), as the replies written to the wire (``WatchedOutput``) show.
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

ANSWER_WAIT_SECONDS = 60.0  # at the end of input, for the requests read to be answered


@contextmanager
def wire_output() -> Iterator[anyio.AsyncFile[str]]:
    """The MCP wire's output (standard output) through a private descriptor, standard error
    taking its place while serving, as when the SDK writes it itself: a stray ``print`` does
    not corrupt the client's messages. Put back afterwards."""
    wire = os.dup(1)
    os.dup2(2, 1)
    try:
        with open(wire, "w", encoding="utf-8", newline="\n", closefd=False) as output:
            yield anyio.wrap_file(output)
    finally:
        os.dup2(wire, 1)
        os.close(wire)


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
        self._unanswered: set[str] = set()  # the ids of requests read, as JSON
        self._answered = anyio.Event()  # set when the last of them is answered

    def answered(self, request_id: object) -> None:
        """A reply to ``request_id`` was written (``WatchedOutput``)."""
        self._unanswered.discard(json.dumps(request_id))
        if not self._unanswered:
            self._answered.set()

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
                self._expect_answer(line)
                yield line
                continue
            await self._ready.wait()
            assert self._replies is not None
            await self._replies.send(SessionMessage(error))
        if self._unanswered:  # the end of input, once what was asked is answered
            with anyio.move_on_after(ANSWER_WAIT_SECONDS):
                await self._answered.wait()

    def _expect_answer(self, line: str) -> None:
        message = json.loads(line)
        if not isinstance(message, dict) or "method" not in message:
            return
        if "id" in message:
            self._unanswered.add(json.dumps(message["id"]))
            self._answered = anyio.Event()
        elif message["method"] == "notifications/cancelled":  # the SDK never answers it
            params = message.get("params")
            if isinstance(params, dict) and "requestId" in params:
                self.answered(params["requestId"])


class WatchedOutput:
    """The wire's output for the SDK, telling ``lines`` of each reply written."""

    def __init__(self, output: anyio.AsyncFile[str], lines: AnsweredLines) -> None:
        self._output = output
        self._lines = lines

    async def write(self, text: str) -> None:
        await self._output.write(text)
        message = json.loads(text)
        if isinstance(message, dict) and "method" not in message and "id" in message:
            self._lines.answered(message["id"])

    async def flush(self) -> None:
        await self._output.flush()


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
