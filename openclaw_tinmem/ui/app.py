"""The memory browser's HTTP side: a page and a small JSON API over the service.

It binds 127.0.0.1 only and answers only requests that carry the random token printed in
its URL (``?token=`` for the page and reads, the ``X-Tinmem-Token`` header for the API, and
only the header for a change, which a page of another site cannot send without asking),
named to this machine in their ``Host`` (no other site's name resolved to 127.0.0.1). Its
answers forbid framing, loading from elsewhere and sending the URL on as a referrer. Every call
goes through ``MemoryService`` with the browser's identity (the administrator, unless an
agent is given), so the same rights, redaction and history apply as for the tools.
"""

from __future__ import annotations

import hmac
import logging
import secrets
import threading
from collections.abc import Awaitable, Callable
from datetime import datetime
from importlib import resources
from typing import TYPE_CHECKING, Any

from openclaw_tinmem.access import Identity
from openclaw_tinmem.errors import (
    ConflictError,
    InvalidArgumentError,
    NotFoundError,
    TinmemError,
    describe_failure,
)
from openclaw_tinmem.models import Memory, normalise_tags
from openclaw_tinmem.ui.parameters import (
    before_parameter,
    categories_parameter,
    json_body,
    offset_parameter,
    summary,
    tags_parameter,
)

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response

    from openclaw_tinmem.service import MemoryService

PAGE_SIZE = 50
EDITABLE_FIELDS = ("content", "summary", "headline", "importance", "tags")
LOCAL_HOSTS = ["127.0.0.1", "localhost"]
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'unsafe-inline'; "
    "style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
STATUS = {"invalid_argument": 400, "not_found": 404, "access_denied": 403, "conflict": 409}
Handler = Callable[["Request", bytes], Any]  # runs on a worker thread: the service blocks
logger = logging.getLogger("openclaw_tinmem")


class BrowserApi:
    """The browser's endpoints, each acting for ``identity`` through the service; only
    requests that carry ``secret`` are answered."""

    def __init__(self, service: MemoryService, identity: Identity, secret: str) -> None:
        self.service = service
        self.identity = identity
        self.secret = secret
        # the browser's changes, one at a time: an edit's check of updated_at and its write
        # are not parted by another tab's (its handlers run on worker threads)
        self._changing = threading.Lock()

    def allowed(self, request: Request) -> bool:
        given = request.headers.get("x-tinmem-token") or ""
        if not given and request.method in ("GET", "HEAD"):
            given = request.query_params.get("token") or ""
        secret = self.secret.encode()
        return hmac.compare_digest(given.encode("utf-8", "replace"), secret)

    def guarded(self, handler: Handler) -> Callable[[Request], Awaitable[Response]]:
        """``handler`` as a JSON endpoint: 401 without the token, tinmem's errors by kind."""
        from starlette.concurrency import run_in_threadpool
        from starlette.responses import JSONResponse

        async def endpoint(request: Request) -> Response:
            if not self.allowed(request):
                return JSONResponse({"error": {"type": "unauthorized"}}, status_code=401)
            try:  # a slow search or an edit waiting for an LLM holds one thread, not the page
                body = await request.body()
                return JSONResponse(await run_in_threadpool(handler, request, body))
            except TinmemError as error:
                status = STATUS.get(error.kind, 500)
                return JSONResponse({"error": error.to_dict()}, status_code=status)
            except Exception as error:  # the page shows it; the log has the traceback
                logger.exception("memory browser: %s %s failed", request.method, request.url.path)
                failure = {"type": "internal_error", "message": describe_failure(error)}
                return JSONResponse({"error": failure}, status_code=500)

        return endpoint

    async def page(self, request: Request) -> Response:
        from starlette.responses import HTMLResponse

        if not self.allowed(request):
            return HTMLResponse("Open the URL that 'tinmem ui' printed.", status_code=401)
        html = resources.files("openclaw_tinmem.ui").joinpath("page.html").read_text("utf-8")
        return HTMLResponse(html)

    def memories(self, request: Request, body: bytes) -> Any:
        query = request.query_params
        categories = categories_parameter(query)
        scopes = [s for s in query.getlist("scope") if s] or None
        tags = tags_parameter(query)
        before = before_parameter(query)
        offset = offset_parameter(query)
        text = (query.get("q") or "").strip()
        if not text:
            total, page_items = self.service.page(
                scopes=scopes,
                categories=categories or None,
                before=before,
                tags=tags,
                offset=offset,
                limit=PAGE_SIZE,
                identity=self.identity,
            )
            return {"total": total, "memories": [summary(m) for m in page_items]}
        if offset:
            raise InvalidArgumentError(
                f"a search gives its best {PAGE_SIZE} memories, not pages: offset must be 0",
                field="offset",
            )

        def matches(memory: Memory) -> bool:  # the list's filters, applied before the limit
            return set(tags) <= set(memory.tags) and (before is None or memory.updated_at < before)

        hits = self.service.recall(
            text,
            scopes=scopes,
            categories=categories or None,
            limit=PAGE_SIZE,
            identity=self.identity,
            allows=matches,
        )
        return {"total": len(hits), "memories": [summary(hit.memory) for hit in hits]}

    def one(self, request: Request, body: bytes) -> Any:
        memory_id = request.path_params["memory_id"]
        history = self.service.history(memory_id, identity=self.identity)
        try:
            memory = self.service.get(memory_id, identity=self.identity).public_dict()
        except NotFoundError:
            memory = None  # forgotten: its history can still bring it back
        return {"memory": memory, "history": [event.to_dict() for event in history]}

    def edit(self, request: Request, raw: bytes) -> Any:
        """Change the fields given (null: not given) that differ from the stored memory's, so
        an unchanged content is not summarised and embedded again. With
        ``expected_updated_at`` (the ``updated_at`` the page read), a memory changed since
        is a 409 and is left as the other change made it."""
        body = json_body(raw)
        expected = body.pop("expected_updated_at", None)
        unknown = sorted(set(body) - set(EDITABLE_FIELDS))
        if unknown:
            raise InvalidArgumentError(
                f"{unknown[0]!r} cannot be edited; fields: {', '.join(EDITABLE_FIELDS)}",
                field=unknown[0][:200],
            )
        given = {name: value for name, value in body.items() if value is not None}
        if not given:
            raise InvalidArgumentError(
                f"nothing to update: give at least one of {', '.join(EDITABLE_FIELDS)}",
                field="body",
            )
        with self._changing:
            return self._change(request.path_params["memory_id"], given, expected)

    def _change(self, memory_id: str, given: dict[str, Any], expected: Any) -> Any:
        stored = self.service.get(memory_id, identity=self.identity)
        if expected is not None and _moment(expected) != stored.updated_at:
            raise ConflictError(
                f"the memory was changed at {stored.updated_at.isoformat()} since it was "
                "read; open it again to see that change before making yours"
            )
        changes = {name: value for name, value in given.items() if not _same(stored, name, value)}
        if not changes:
            return {"memory": stored.public_dict(), "changed": False}
        updated = self.service.update(stored.id, identity=self.identity, **changes)
        return {"memory": updated.public_dict(), "changed": True}

    def forget(self, request: Request, body: bytes) -> Any:
        memory_id = request.path_params["memory_id"]
        with self._changing:
            outcome = self.service.forget(memory_id=memory_id, identity=self.identity)
        return {"deleted": [memory.id for memory in outcome.deleted]}

    def bring_back(self, request: Request, raw: bytes) -> Any:
        body = json_body(raw)
        memory_id = request.path_params["memory_id"]
        with self._changing:
            memory = self.service.restore(
                memory_id, to_event=body.get("to"), identity=self.identity
            )
        return {"memory": memory.public_dict()}

    def stats(self, request: Request, body: bytes) -> Any:
        by_category, weeks = self.service.tally(identity=self.identity)
        return {"by_category": by_category, "by_week": dict(sorted(weeks.items())[-12:])}


def _moment(given: Any) -> datetime:
    """``expected_updated_at`` as a time (an ISO 8601 time with its offset, as read)."""
    try:
        moment = datetime.fromisoformat(given) if isinstance(given, str) else None
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise InvalidArgumentError(
            "expected_updated_at must be the memory's updated_at as read, an ISO 8601 time "
            f"with its offset, not {str(given)[:60]!r}",
            field="expected_updated_at",
        )
    return moment


def _as_shown(text: str) -> str:
    """Text as a text box holds it: line breaks as ``\\n``, no space at either end."""
    return text.replace("\r\n", "\n").replace("\r", "\n").strip()


def _same(memory: Memory, name: str, value: Any) -> bool:
    """Whether an edit's ``value`` for field ``name`` is what ``memory`` holds already."""
    if name == "tags":
        return isinstance(value, list) and normalise_tags(value) == memory.tags
    if name in ("content", "summary", "headline"):  # as a browser's text box gives it back
        return isinstance(value, str) and _as_shown(value) == _as_shown(getattr(memory, name))
    return bool(value == getattr(memory, name) and not isinstance(value, bool))


def build_app(service: MemoryService, identity: Identity, token: str | None = None) -> Starlette:
    """The browser's app; ``token`` (random by default) is in ``app.state.token``."""
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.middleware.trustedhost import TrustedHostMiddleware
    from starlette.routing import Route

    api = BrowserApi(service, identity, token or secrets.token_urlsafe(24))
    one = "/api/memories/{memory_id}"
    routes = [
        Route("/", api.page),
        Route("/api/memories", api.guarded(api.memories)),
        Route("/api/stats", api.guarded(api.stats)),
        Route(one, api.guarded(api.one)),
        Route(one, api.guarded(api.edit), methods=["PUT"]),
        Route(one, api.guarded(api.forget), methods=["DELETE"]),
        Route(f"{one}/restore", api.guarded(api.bring_back), methods=["POST"]),
    ]
    middleware = [
        Middleware(TrustedHostMiddleware, allowed_hosts=LOCAL_HOSTS),
        Middleware(SecurityHeaders),
    ]
    app = Starlette(routes=routes, middleware=middleware)
    app.state.token = api.secret
    return app


class SecurityHeaders:
    """Adds ``SECURITY_HEADERS`` to every answer (an ASGI middleware)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [(k.lower().encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)
