"""The memory browser's HTTP side: a page and a small JSON API over the service.

It binds 127.0.0.1 only and answers only requests that carry the random token printed in
its URL (``?token=`` for the page, the ``X-Tinmem-Token`` header for the API). Every call
goes through ``MemoryService`` with the browser's identity (the administrator, unless an
agent is given), so the same rights, redaction and history apply as for the tools.
"""

from __future__ import annotations

import hmac
import json
import secrets
from collections import Counter
from datetime import UTC, datetime
from importlib import resources
from typing import TYPE_CHECKING, Any

from openclaw_tinmem.access import Identity
from openclaw_tinmem.categories import Category
from openclaw_tinmem.errors import InvalidArgumentError, NotFoundError, TinmemError
from openclaw_tinmem.models import Memory

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.datastructures import QueryParams
    from starlette.requests import Request
    from starlette.responses import Response

    from openclaw_tinmem.service import MemoryService

PAGE_SIZE = 50
STATUS = {"invalid_argument": 400, "not_found": 404, "access_denied": 403}


def categories_parameter(query: QueryParams) -> list[Category]:
    """The ``category`` parameters as categories; a 400 naming the parameter otherwise."""
    names = [name for name in query.getlist("category") if name]
    allowed = {category.value for category in Category}
    if unknown := [name for name in names if name not in allowed]:
        raise InvalidArgumentError(
            f"unknown category {unknown[0]!r}: use one of {', '.join(sorted(allowed))}",
            field="category",
        )
    return [Category(name) for name in names]


def offset_parameter(query: QueryParams) -> int:
    """The ``offset`` parameter, a whole number from 0 (0 when absent)."""
    given = query.get("offset") or "0"
    if not given.isdigit():
        raise InvalidArgumentError(
            f"offset must be a whole number from 0, not {given!r}", field="offset"
        )
    return int(given)


def before_parameter(query: QueryParams) -> datetime | None:
    """The ``before`` parameter as a UTC time (an ISO 8601 date or time), or None."""
    given = query.get("before")
    if not given:
        return None
    try:
        moment = datetime.fromisoformat(given)
    except ValueError:
        raise InvalidArgumentError(
            f"before must be an ISO 8601 date or time such as 2026-05-01, not {given!r}",
            field="before",
        ) from None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


async def json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object ({} for an empty body); a 400 for anything else."""
    raw = await request.body()
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw)
    except ValueError:
        raise InvalidArgumentError("the request body must be a JSON object", field="body") from None
    if not isinstance(body, dict):
        raise InvalidArgumentError("the request body must be a JSON object", field="body")
    return body


def summary(memory: Memory) -> dict[str, Any]:
    return {
        "id": memory.id,
        "scope": memory.scope,
        "category": memory.category.value,
        "headline": memory.headline,
        "importance": memory.importance,
        "tags": memory.tags,
        "updated_at": memory.updated_at.isoformat(),
    }


def build_app(service: MemoryService, identity: Identity, token: str | None = None) -> Starlette:
    """The browser's app; ``token`` (random by default) is in ``app.state.token``."""
    from starlette.applications import Starlette
    from starlette.responses import HTMLResponse, JSONResponse
    from starlette.routing import Route

    secret = token or secrets.token_urlsafe(24)

    def allowed(request: Request) -> bool:
        given = request.headers.get("x-tinmem-token") or request.query_params.get("token") or ""
        return hmac.compare_digest(given, secret)

    def guarded(handler: Any) -> Any:
        async def endpoint(request: Request) -> Response:
            if not allowed(request):
                return JSONResponse({"error": {"type": "unauthorized"}}, status_code=401)
            try:
                return JSONResponse(await handler(request))
            except TinmemError as error:
                status = STATUS.get(error.kind, 500)
                return JSONResponse({"error": error.to_dict()}, status_code=status)

        return endpoint

    async def page(request: Request) -> Response:
        if not allowed(request):
            return HTMLResponse("Open the URL that 'tinmem ui' printed.", status_code=401)
        html = resources.files("openclaw_tinmem.ui").joinpath("page.html").read_text("utf-8")
        return HTMLResponse(html)

    async def memories(request: Request) -> Any:
        query = request.query_params
        categories = categories_parameter(query)
        scopes = [s for s in query.getlist("scope") if s] or None
        tags = [t for t in query.getlist("tag") if t]
        text = (query.get("q") or "").strip()
        if not text:
            total, page_items = service.page(
                scopes=scopes,
                categories=categories or None,
                before=before_parameter(query),
                tags=tags,
                offset=offset_parameter(query),
                limit=PAGE_SIZE,
                identity=identity,
            )
            return {"total": total, "memories": [summary(m) for m in page_items]}
        hits = service.recall(
            text, scopes=scopes, categories=categories or None, limit=PAGE_SIZE, identity=identity
        )
        found = [hit.memory for hit in hits if set(tags) <= set(hit.memory.tags)]
        return {"total": len(found), "memories": [summary(m) for m in found]}

    async def one(request: Request) -> Any:
        memory_id = request.path_params["memory_id"]
        events = [event.to_dict() for event in service.history(memory_id, identity=identity)]
        try:
            memory: dict[str, Any] | None = service.get(memory_id, identity=identity).public_dict()
        except NotFoundError:
            memory = None  # forgotten: its history can still bring it back
        return {"memory": memory, "history": events}

    async def edit(request: Request) -> Any:
        fields = await json_body(request)
        allowed_fields = {"content", "summary", "headline", "importance", "tags"}
        changes = {key: value for key, value in fields.items() if key in allowed_fields}
        updated = service.update(request.path_params["memory_id"], identity=identity, **changes)
        return {"memory": updated.public_dict()}

    async def forget(request: Request) -> Any:
        outcome = service.forget(memory_id=request.path_params["memory_id"], identity=identity)
        return {"deleted": [memory.id for memory in outcome.deleted]}

    async def bring_back(request: Request) -> Any:
        body = await json_body(request)
        memory = service.restore(
            request.path_params["memory_id"], to_event=body.get("to"), identity=identity
        )
        return {"memory": memory.public_dict()}

    async def stats(request: Request) -> Any:
        memories = service.list_memories(limit=None, identity=identity)
        by_category = Counter(memory.category.value for memory in memories)
        weeks = Counter(memory.created_at.strftime("%G-W%V") for memory in memories)
        return {"by_category": dict(by_category), "by_week": dict(sorted(weeks.items())[-12:])}

    routes = [
        Route("/", page),
        Route("/api/memories", guarded(memories)),
        Route("/api/stats", guarded(stats)),
        Route("/api/memories/{memory_id}", guarded(one)),
        Route("/api/memories/{memory_id}", guarded(edit), methods=["PUT"]),
        Route("/api/memories/{memory_id}", guarded(forget), methods=["DELETE"]),
        Route("/api/memories/{memory_id}/restore", guarded(bring_back), methods=["POST"]),
    ]
    app = Starlette(routes=routes)
    app.state.token = secret
    return app
