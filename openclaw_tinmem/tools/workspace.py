"""IronClaw-compatible workspace tools: memory_search, memory_write, memory_read, memory_tree.

Each identity works in its own workspace (``workspace_scope``: an agent's own by default), and
only where its rights allow: reading needs the right to read that scope, writing to write it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from functools import cached_property
from typing import TYPE_CHECKING, Any

from openclaw_tinmem.access import Identity, default_workspace_scope
from openclaw_tinmem.errors import InvalidArgumentError, ModelError, StoreError
from openclaw_tinmem.events import ToolResult
from openclaw_tinmem.models import Level, utc_now
from openclaw_tinmem.recall.asking import plain_question
from openclaw_tinmem.recall.passages import best_passage
from openclaw_tinmem.recall.scoring import sigmoid
from openclaw_tinmem.redaction import redact_secrets
from openclaw_tinmem.tools.arguments import (
    ReadArguments,
    SearchArguments,
    TreeArguments,
    WriteArguments,
)
from openclaw_tinmem.tools.definitions import WORKSPACE_TOOLS, Handler, ToolDefinition
from openclaw_tinmem.tools.rate_limit import RateLimiter
from openclaw_tinmem.workspace.paths import build_tree, normalise_path, resolve_target
from openclaw_tinmem.workspace.store import WorkspaceStore
from openclaw_tinmem.workspace.tables import rfc3339, word_count

if TYPE_CHECKING:
    from openclaw_tinmem.service import MemoryService


logger = logging.getLogger("openclaw_tinmem")
RATE_LIMITS_FILE = "rate-limits.sqlite3"


def rate_key(identity: Identity) -> str:
    """Whose quota a call counts against: its agent (the administrator has its own)."""
    return "administrator" if identity.admin else f"agent:{identity.agent_id}"


class WorkspaceTools:
    """Handlers of the workspace tools over one WorkspaceStore."""

    def __init__(
        self,
        service: MemoryService,
        *,
        clock: Callable[[], datetime] = utc_now,
        rate_clock: Callable[[], float] | None = None,
    ) -> None:
        self.service = service
        legacy = default_workspace_scope(service.settings.workspace_scope)
        self.workspace = WorkspaceStore(service.store, service.embedder, legacy)
        self.clock = clock
        self._rate_clock = rate_clock

    @cached_property
    def limiter(self) -> RateLimiter:
        """The write counts, opened at the first memory_write: a journal path that cannot be
        used fails that call with a clear error, not every tool."""
        settings = self.service.settings
        options = {"clock": self._rate_clock} if self._rate_clock else {}
        return RateLimiter(
            settings.workspace_writes_per_minute,
            settings.workspace_writes_per_hour,
            settings.resolved_journal_path() / RATE_LIMITS_FILE,
            **options,
        )

    def _scope(self, identity: Identity, *, field: str = "path", writing: bool = False) -> str:
        """The workspace ``identity`` works in, checked against its rights."""
        access = self.service.access(identity)
        setting = self.service.settings.workspace_scope
        return access.workspace_scope(setting, writing=writing, field=field)

    def handlers(self) -> list[tuple[ToolDefinition, Handler]]:
        functions: dict[str, Handler] = {
            "memory_search": self.search,
            "memory_write": self.write,
            "memory_read": self.read,
            "memory_tree": self.tree,
        }
        return [(definition, functions[definition.name]) for definition in WORKSPACE_TOOLS]

    def search(self, arguments: SearchArguments, identity: Identity) -> ToolResult:
        chunks = self.workspace.search(
            arguments.query, arguments.limit, self._scope(identity, field="query")
        )
        results: list[dict[str, Any]] = [
            {
                "content": hit.content,
                "score": hit.score,
                "document_id": hit.document_id,
                "is_hybrid_match": hit.is_hybrid_match,
                "path": hit.path,
            }
            for hit in chunks
        ]
        if self.service.settings.workspace_search_memories:
            hits = self.service.recall(arguments.query, limit=arguments.limit, identity=identity)
            judged = self._judged(arguments.query, [hit.content for hit in chunks])
            if judged is not None:  # files on the memories' scale
                for result, relevance in zip(results, judged, strict=True):
                    result["score"] = round(relevance, 4)
            results += [
                {
                    "content": hit.memory.text_at(Level.L1),
                    "score": round(hit.relevance if judged is not None else hit.score, 4),
                    "document_id": hit.memory.id,
                    "is_hybrid_match": hit.match.value == "both",
                    "category": hit.memory.category.value,  # a memory, not a file: no path
                }
                for hit in hits
            ]
            results = sorted(results, key=lambda result: -result["score"])[: arguments.limit]
        text = "\n".join(
            f"- {r['content'][:200]} ({r.get('path') or 'memory: ' + r['category']}, "
            f"score {r['score']})"
            for r in results
        )
        data = {"query": arguments.query, "results": results, "result_count": len(results)}
        return ToolResult(data, text or "No matches.")

    def _judged(self, query: str, chunks: list[str]) -> list[float] | None:
        """The cross-encoder's relevance of each chunk to ``query``, read as recall reads a
        memory (the passage the query is about, the question without "remind me"): the scale
        of a memory's ``relevance``, so files and memories rank together (a file's fused rank
        and a memory's recall score are not comparable: files only near in meaning pushed out
        the memory that answered). None without the cross-encoder (``rerank`` off, or its
        model missing): then each keeps its own score, as before."""
        if not self.service.settings.rerank:
            return None
        question = plain_question(query)
        try:
            logits = self.service.reranker.score(
                question, [best_passage(query, chunk) or chunk for chunk in chunks]
            )
        except ModelError as error:
            logger.warning("memory_search ranks without the cross-encoder: %s", error.message)
            return None
        return [sigmoid(logit) for logit in logits]

    def write(self, arguments: WriteArguments, identity: Identity) -> ToolResult:
        now = self.clock()
        path = resolve_target(arguments.target, now)
        scope = self._scope(identity, field="target", writing=True)
        moment = self.limiter.check(rate_key(identity), "memory_write")
        content = redact_secrets(arguments.content.strip())
        separator = "\n\n"
        if arguments.target == "daily_log":
            content = f"[{now:%H:%M:%S}] {content}"
            separator = "\n"
        try:
            document = self.workspace.write(
                path, content, scope, append=arguments.append, separator=separator, field="target"
            )
        except (InvalidArgumentError, StoreError):  # refused, or never written: not a write
            self.limiter.release(rate_key(identity), moment)
            raise
        written = content if arguments.append and document.content != content else document.content
        data = {
            "status": "written",
            "path": document.path,
            "append": arguments.append,
            "content_length": len(written.encode("utf-8")),
        }
        return ToolResult(data, f"Wrote {data['content_length']} bytes to {document.path}.")

    def read(self, arguments: ReadArguments, identity: Identity) -> ToolResult:
        document = self.workspace.read(normalise_path(arguments.path), self._scope(identity))
        data = {
            "path": document.path,
            "content": document.content,
            "word_count": word_count(document.content),
            "updated_at": rfc3339(document.updated_at),
        }
        return ToolResult(data, document.content)

    def tree(self, arguments: TreeArguments, identity: Identity) -> ToolResult:
        root = normalise_path(arguments.path, allow_root=True)
        paths = self.workspace.paths(self._scope(identity))
        tree = build_tree(paths, root, arguments.depth)
        empty = f"(no files under {root}/)" if root else "(the workspace is empty)"
        if root in paths:
            empty = f"({root} is a file, not a directory: memory_read opens it)"
        return ToolResult(tree, _tree_text(tree) or empty)


def _tree_text(tree: list[Any], indent: str = "") -> str:
    lines = []
    for entry in tree:
        if isinstance(entry, dict):
            for name, children in entry.items():
                lines.append(f"{indent}{name}")
                lines.append(_tree_text(children, indent + "  "))
        else:
            lines.append(f"{indent}{entry}")
    return "\n".join(line for line in lines if line)
