"""``tinmem bridge``: the plugin's hooks and tools for a host in another language.

The OpenClaw gateway is a Node.js process; its tinmem plugin (``integrations/openclaw``)
starts this once per gateway and talks JSON lines over stdin/stdout. Each request is one
line, ``{"id": 1, "method": ..., "params": {...}}``; each answer is one line with the same
``id`` and ``result`` (or ``error``). Requests are served concurrently, so a slow capture
never holds up a recall; answers may come back in any order. A request may say until when
its asker waits (``"deadline"``: milliseconds since the epoch); one that starts later is
answered ``expired`` at once, so a flood of recalls no one waits for any more does not hold
up the next turn's.

Methods:
- ``hook``: ``{"hook": "before_prompt_build" | "agent_end" | "session_start" |
  "session_end" | "before_reset" | "before_compaction", "event": {...}, "ctx": {...}}``. The
  event and context use OpenClaw's field names (``prompt``, ``messages``, ``agentId``,
  ``sessionKey``, ...). ``before_prompt_build`` answers ``{"prependContext": ...}`` (or
  ``{}``); the others answer ``{}`` once the hook returned (``agent_end`` returns as soon as
  the turn is journalled).
- ``tools``: the registered tools (name, description, JSON-schema parameters).
- ``call_tool``: ``{"name", "arguments", "ctx"}`` answers ``{"data": ..., "text": ...}``.
- ``status``: ``{"ctx": {...}}`` answers what OpenClaw's memory status shows: the memories
  the agent may read and in all, where the store is, the embedding model, the LLM mode.
- ``ping``: ``{"version": ...}``.

Everything goes through one pluggy ``PluginManager`` holding the ``TinmemPlugin``, the same
path as every other host. A finished turn (``agent_end``) is journalled as its line is
read, before the next one, so however the process is stopped no turn it was handed is lost.
End of input closes the plugin, bounded: the requests read are answered while they make
progress; once none has finished for ``CLOSE_WAIT_SECONDS`` (an LLM or a store that does not
answer) the rest are dropped, and the process exits whatever is still stuck.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any, TextIO

from openclaw_tinmem.access import Identity
from openclaw_tinmem.capture.trust import TOOL_OUTPUT_CHARACTERS, is_outside_words
from openclaw_tinmem.config import Settings
from openclaw_tinmem.errors import (
    InvalidRequestError,
    TinmemError,
    describe_failure,
)
from openclaw_tinmem.events import (
    AgentEndEvent,
    HookContext,
    Message,
    PromptBuildEvent,
    Role,
    SessionEvent,
    content_text,
    parse_timestamp,
)
from openclaw_tinmem.plugin.hookimpls import TinmemPlugin
from openclaw_tinmem.plugin.hookspecs import registered_tools
from openclaw_tinmem.plugin.host import join_contexts, load_plugins, registered
from openclaw_tinmem.text import quoted

logger = logging.getLogger("openclaw_tinmem")

SESSION_HOOKS = ("session_start", "session_end", "before_reset", "before_compaction")
WARM_UP_AGENT = "tinmem-warm-up"  # an agent id no one uses: its recall finds nothing
WORKERS = 4  # concurrent requests: recalls of several sessions, captures, tool calls
CLOSE_WAIT_SECONDS = 10.0  # at end of input, the longest wait for a request to finish
CLOSE_SECONDS = 20.0  # then, for the plugin to close (captures flushed, bounded)
# OpenClaw's message roles as ours (system and other messages are left out)
OPENCLAW_ROLES: dict[str, Role] = {
    "user": "user",
    "assistant": "assistant",
    "toolResult": "tool",
    "tool": "tool",
}


def message_id(item: dict[str, Any]) -> str | None:
    """The id OpenClaw gives a message: ``id`` where a host sets one, else the user
    message's ``idempotencyKey`` ("<runId>:user") or the assistant's provider ``responseId``
    (OpenClaw's stored messages carry those; the current turn's own user message has none)."""
    for key in ("id", "idempotencyKey", "responseId"):
        if item.get(key):
            return str(item[key])
    return None


def to_messages(raw: Any) -> tuple[Message, ...]:
    """OpenClaw's messages as ours: user and assistant text, with when each was said (its
    ``timestamp``, ms) and who sent it (``__openclaw.senderName``), and tool results (clipped)
    as ``tool`` messages, which capture reads only to tell whether a reply quotes them."""
    messages = []
    for item in raw if isinstance(raw, list) else []:
        given = item.get("role") if isinstance(item, dict) else None
        if not isinstance(given, str) or given not in OPENCLAW_ROLES:
            continue
        text = content_text(item.get("content"))
        if not text.strip():
            continue
        role = OPENCLAW_ROLES[given]
        if role == "tool":
            if not is_outside_words(item.get("toolName"), text):
                continue
            text = text[:TOOL_OUTPUT_CHARACTERS]
        sender = item.get("__openclaw")
        name = sender.get("senderName") if isinstance(sender, dict) and role == "user" else None
        messages.append(
            Message(
                role,
                text,
                name=str(name) if name else None,
                timestamp=parse_timestamp(item.get("timestamp")),
                id=message_id(item),
            )
        )
    return tuple(messages)


def to_context(raw: Any) -> HookContext:
    """OpenClaw's hook or tool context (camelCase) as a ``HookContext``."""
    return HookContext.from_host(raw)


def read_request(line: str) -> dict[str, Any] | InvalidRequestError:
    """A request line as its JSON object, or the error to answer it with."""
    try:
        request = json.loads(line)
    except json.JSONDecodeError as error:
        return InvalidRequestError(f"a request is a JSON object, not JSON: {error.msg}")
    if not isinstance(request, dict):
        return InvalidRequestError("a request is a JSON object", field="request")
    return request


def _is_turn(request: dict[str, Any] | InvalidRequestError) -> bool:
    """Whether a request hands over a finished turn (``agent_end``)."""
    if isinstance(request, InvalidRequestError) or request.get("method") != "hook":
        return False
    params = request.get("params")
    return isinstance(params, dict) and params.get("hook") == "agent_end"


def _expired(deadline: Any) -> bool:
    """Whether a request's deadline (milliseconds since the epoch; a number) has passed."""
    if isinstance(deadline, bool) or not isinstance(deadline, int | float):
        return False
    return time.time() * 1000 > deadline


def _number(value: Any) -> float:
    """A number OpenClaw sends (a duration), 0 for anything else: a turn is never refused
    for a field it only describes."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return 0.0
    return number if number == number and abs(number) != float("inf") else 0.0


class Bridge:
    """Serves requests from ``stdin`` on ``stdout`` until end of input."""

    def __init__(self, plugin: TinmemPlugin, output: TextIO) -> None:
        self.plugin = plugin
        self.manager = load_plugins([plugin], entry_points=False)
        self.tools = registered_tools(self.manager)
        self.output = output
        self._write_lock = threading.Lock()

    def serve(self, lines: TextIO) -> bool:
        """Answer until end of input; False when requests were stuck at the end. A turn to
        capture is journalled as it is read, before the next line: however the process is
        stopped afterwards, no turn it was handed is lost."""
        pool = ThreadPoolExecutor(WORKERS, thread_name_prefix="tinmem-bridge")
        queued: set[Future[None]] = set()
        try:
            for line in lines:
                if not line.strip():
                    continue
                request = read_request(line)
                if _is_turn(request):
                    self.answer(request)  # journalling takes milliseconds; capture runs later
                    continue
                future = pool.submit(self.answer, request)
                queued.add(future)
                future.add_done_callback(queued.discard)
        finally:
            waiting = set(queued)
            while waiting:
                finished, waiting = wait(waiting, CLOSE_WAIT_SECONDS, FIRST_COMPLETED)
                if not finished:
                    break
            for future in list(queued):
                future.cancel()  # no one waits for these any more
            pool.shutdown(wait=False)
        return not queued

    def answer(self, request: dict[str, Any] | InvalidRequestError) -> None:
        """Answer one request (or the error it was read as) on the output."""
        request_id: Any = None
        reply: dict[str, Any]
        try:
            if isinstance(request, InvalidRequestError):
                raise request
            request_id = request.get("id")
            if _expired(request.get("deadline")):
                failure = {"type": "expired", "message": "the asker stopped waiting"}
                reply = {"id": request_id, "error": failure}
            else:
                reply = {"id": request_id, "result": self.handle(request)}
        except TinmemError as error:  # a bad request, a broken setting: said, not traced
            logger.warning("bridge request failed: %s", error.message)
            reply = {"id": request_id, "error": error.to_dict()}
        except Exception as error:  # one failed request never stops the bridge
            logger.exception("bridge request failed")
            failure = {"type": "internal_error", "message": describe_failure(error)}
            reply = {"id": request_id, "error": failure}
        text = json.dumps(reply, default=str)  # ASCII: a lone surrogate is written escaped
        try:
            with self._write_lock:
                self.output.write(text + "\n")
                self.output.flush()
        except (OSError, ValueError):  # the host is gone: no one to answer
            logger.debug("bridge answer not written: the output is closed")

    def handle(self, request: dict[str, Any]) -> Any:
        method, params = request.get("method"), request.get("params") or {}
        if not isinstance(params, dict):
            raise InvalidRequestError("params is a JSON object", field="params")
        if method == "ping":
            from openclaw_tinmem import __version__

            return {"version": __version__}
        if method == "tools":
            return [
                {"name": tool.name, "description": tool.description, "parameters": tool.parameters}
                for tool in self.tools.values()
            ]
        if method == "call_tool":
            tool = registered(self.tools, str(params.get("name")))
            result = tool.handler(params.get("arguments") or {}, to_context(params.get("ctx")))
            return {"data": result.data, "text": result.text}
        if method == "status":
            return self.status(to_context(params.get("ctx")))
        if method == "hook":
            return self.hook(str(params.get("hook")), params.get("event") or {}, params)
        raise InvalidRequestError(f"unknown method {quoted(method)}", field="method")

    def hook(self, name: str, event: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
        ctx = to_context(params.get("ctx"))
        hook = self.manager.hook
        if name == "before_prompt_build":
            prompt = PromptBuildEvent(
                str(event.get("prompt") or ""), to_messages(event.get("messages"))
            )
            added = join_contexts(hook.before_prompt_build(event=prompt, ctx=ctx))
            text = "\n\n".join(
                part for part in (added.prepend_system_context, added.prepend_context) if part
            )
            return {"prependContext": text} if text else {}
        if name == "agent_end":
            ended = AgentEndEvent(
                messages=to_messages(event.get("messages")),
                success=bool(event.get("success", True)),
                error=event.get("error"),
                run_id=str(event.get("runId") or ctx.run_id),
                duration_ms=_number(event.get("durationMs")),
            )
            hook.agent_end(event=ended, ctx=ctx)
            return {}
        if name in SESSION_HOOKS:
            session = SessionEvent(
                str(event.get("sessionId") or ctx.session_id),
                to_messages(event.get("messages")),
                reason=event.get("reason"),
            )
            getattr(hook, name)(event=session, ctx=ctx)
            return {}
        raise InvalidRequestError(f"unknown hook {quoted(name)}", field="hook")

    def status(self, ctx: HookContext) -> dict[str, Any]:
        from openclaw_tinmem import __version__

        service = self.plugin.service
        settings = service.settings
        readable = service.access(Identity.from_context(ctx)).readable_scopes()
        model, dimension = service.store.stored_model()
        return {
            "version": __version__,
            "memories": service.store.count(scopes=readable),
            "total": service.store.count(),
            "dbPath": settings.resolved_db_path(),
            "embeddingModel": model,
            "dimension": int(dimension) if dimension.isdigit() else None,
            "llm": settings.llm_model if settings.llm_configured() else None,
        }

    def warm_up(self) -> None:
        """Load the models now, so that the gateway's first real turn does not wait for them
        (its recall is time-boxed): one recall for an agent with no memories loads the
        embedder and the late-interaction encoder; that recall finds no candidate, so the
        cross-encoder is loaded and run once by itself."""
        event = PromptBuildEvent("warming up the memory models")
        try:
            self.manager.hook.before_prompt_build(event=event, ctx=HookContext(WARM_UP_AGENT))
            if not self.plugin.degraded() and self.plugin.settings.rerank:
                self.plugin.service.reranker.score(event.prompt, [event.prompt])
        except Exception:  # the first real turn will report whatever is wrong
            logger.debug("bridge warm-up failed", exc_info=True)


def run(settings: Settings | None = None) -> None:
    """Serve the bridge on standard input and output (logs go to standard error)."""
    plugin = TinmemPlugin(settings)
    bridge = Bridge(plugin, sys.stdout)
    warming = threading.Thread(target=bridge.warm_up, name="tinmem-warm-up", daemon=True)
    warming.start()
    finished = False
    try:
        finished = bridge.serve(sys.stdin)
    finally:
        # the warm-up runs native model code: the interpreter must not tear down under it
        # (an input that ends at once would abort the process), so it finishes first
        warming.join(CLOSE_WAIT_SECONDS)
        if finished and not warming.is_alive():
            closing = threading.Thread(target=plugin.close, name="tinmem-close", daemon=True)
            closing.start()
            closing.join(CLOSE_SECONDS)
            finished = not closing.is_alive()
    if not finished:  # stuck on a store or an LLM that does not answer: the turns are journalled
        logger.warning("bridge closed with work still under way; it was dropped")
        logging.shutdown()
        os._exit(0)
