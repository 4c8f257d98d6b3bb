"""A fake OpenAI-compatible chat server on 127.0.0.1 for tests and benchmarks.

Replies are scripted per request (streamed as server-sent events when the request asks for
``stream``); every request body is recorded. Used through the real
``openai`` + ``instructor`` clients, never mocked.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    """A scripted reply: JSON content (fenced, as many servers do), raw text, status, delay."""

    content: Any = None
    raw: str | None = None
    status: int = 200
    delay: float = 0.0
    # tool calls the assistant makes instead of answering: [{"name": ..., "arguments": {...}}]
    tool_calls: tuple[dict[str, Any], ...] = ()

    def body_text(self) -> str:
        if self.raw is not None:
            return self.raw
        return "```json\n" + json.dumps(self.content) + "\n```"


def completion(text: str, tool_calls: tuple[dict[str, Any], ...] = ()) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if tool_calls:
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"call_{index}",
                    "type": "function",
                    "function": {"name": call["name"], "arguments": json.dumps(call["arguments"])},
                }
                for index, call in enumerate(tool_calls)
            ],
        }
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": "fake",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls" if tool_calls else "stop",
                "message": message,
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
    }


def stream_events(whole: dict[str, Any]) -> str:
    """A completion as the chunks of a streamed one (one content or tool-call delta)."""
    choice = whole["choices"][0]
    message = choice["message"]
    delta: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
    if message.get("tool_calls"):
        delta["tool_calls"] = [
            {"index": index, **call} for index, call in enumerate(message["tool_calls"])
        ]
    base = {key: whole[key] for key in ("id", "created", "model")}
    chunks = [
        {
            **base,
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
        },
        {
            **base,
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}],
            "usage": whole["usage"],
        },
    ]
    return "".join(f"data: {json.dumps(chunk)}\n\n" for chunk in chunks) + "data: [DONE]\n\n"


class FakeLLM:
    """Start with ``with FakeLLM() as llm:``; ``llm.base_url`` goes into the settings."""

    def __init__(self, default: Reply | None = None) -> None:
        self.replies: deque[Reply] = deque()
        self.responder: Callable[[dict[str, Any]], Reply | None] | None = None
        self.default = default or Reply({"memories": []})
        self.requests: list[dict[str, Any]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                fake.requests.append(body)
                scripted = fake.responder(body) if fake.responder else None
                reply = scripted or (fake.replies.popleft() if fake.replies else fake.default)
                if reply.delay:
                    time.sleep(reply.delay)
                streamed = bool(body.get("stream")) and reply.status == 200
                if reply.status != 200:
                    payload = json.dumps(
                        {"error": {"message": "scripted failure", "type": "server_error"}}
                    )
                elif streamed:  # server-sent events, as streaming clients ask for
                    payload = stream_events(completion(reply.body_text(), reply.tool_calls))
                else:
                    payload = json.dumps(completion(reply.body_text(), reply.tool_calls))
                data = payload.encode()
                kind = "text/event-stream" if streamed else "application/json"
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", kind)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def script(self, *replies: Reply) -> None:
        self.replies.extend(replies)

    def prompts(self) -> list[str]:
        """The user message of every request received."""
        return [
            message["content"]
            for body in self.requests
            for message in body["messages"]
            if message["role"] == "user"
        ]

    def __enter__(self) -> FakeLLM:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
