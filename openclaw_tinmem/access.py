"""Who is calling, and which scopes it may read and write: one rule for every front end.

An ``Identity`` travels with every call: the plugin's hooks and tools take it from the host's
context, the MCP server from its flags or the caller's bearer token, the CLI from its flags
(an administrator by default). ``Access`` is what an identity may do under the settings:

- an administrator reads and writes every scope;
- an agent reads the scopes of ``read_scopes`` and writes those of ``write_scopes``
  (patterns: ``{agent}`` and ``{user}`` stand for the caller's own scopes, ``*`` matches any
  characters), unless ``agent_access`` has an entry for its agent id;
- a call that names no scope reads every concrete scope the caller may read (by default its
  agent scope, its user's scope and ``global``: the set automatic recall uses).
"""

from __future__ import annotations

import fnmatch
import hashlib
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from openclaw_tinmem.errors import AccessDeniedError
from openclaw_tinmem.models import EMPTY_PROVENANCE, GLOBAL_SCOPE, Provenance, validate_scope

if TYPE_CHECKING:
    from openclaw_tinmem.config import Settings
    from openclaw_tinmem.events import HookContext

DEFAULT_AGENT_ID = "main"


@dataclass(frozen=True)
class Identity:
    """The caller: an agent (with its user and session, where known) or an administrator."""

    agent_id: str = DEFAULT_AGENT_ID
    user_id: str | None = None
    session_id: str | None = None
    run_id: str | None = None
    session_key: str | None = None  # the host's name of the conversation (a group's, say)
    channel: str | None = None
    admin: bool = False
    via: str = "python"  # the front end that carried the call: plugin, mcp, cli, ui, python

    @classmethod
    def administrator(cls, via: str = "cli") -> Identity:
        return cls(agent_id="", admin=True, via=via)

    @classmethod
    def from_context(cls, ctx: HookContext | None, via: str = "plugin") -> Identity:
        """The agent a host's hook context names (``main`` when it names none)."""
        if ctx is None:
            return cls(via=via)
        return cls(
            agent_id=ctx.agent_id or DEFAULT_AGENT_ID,
            user_id=ctx.user_id or None,
            session_id=ctx.session_id or None,
            run_id=ctx.run_id or None,
            session_key=ctx.session_key or None,
            channel=ctx.channel or None,
            via=via,
        )

    def describe(self) -> str:
        if self.admin:
            return f"administrator ({self.via})"
        user = f", user {self.user_id}" if self.user_id else ""
        return f"agent {self.agent_id}{user} ({self.via})"

    def provenance(self) -> Provenance:
        """Where what this caller stores comes from, as a captured memory records it: its
        agent, user, session and channel (nothing of an administrator's). So automatic recall
        judges it as it judges a captured one: another user's is left out, a direct
        conversation's kept out of groups, a group's shown to that group."""
        if self.admin:
            return EMPTY_PROVENANCE
        return Provenance(
            agent_id=self.agent_id or None,
            user_id=self.user_id,
            session_id=self.session_id,
            session_key=self.session_key,
            channel=self.channel,
        )


_VERBATIM_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@+\-]{0,127}")
_EDGE_PUNCTUATION = re.compile(r"^[._@+\-]+|[._@+\-]+$")
READABLE_PREFIX_CHARACTERS = 48
DIGEST_CHARACTERS = 20  # 80 bits of sha256: no two ids of one store will share them


def scope_for(prefix: str, raw_id: str | None) -> str | None:
    """The scope of an agent or user id; None without an id. Never ``global``, and never
    the same for two different ids.

    An id that the scope grammar allows as it is (letters, digits, ``._@+-``, at most 128
    characters) is kept exactly: ``agent:alpha``. Any other id (``team/alpha``, ``张三``, a
    200-character id) becomes a readable prefix and a hash of the exact id (after Unicode
    NFC), joined by ``~``, which a verbatim id can never contain: ``agent:team_alpha~3f9a…``.
    """
    if not raw_id:
        return None
    if _VERBATIM_ID.fullmatch(raw_id):
        return f"{prefix}:{raw_id}"
    exact = unicodedata.normalize("NFC", raw_id)
    digest = hashlib.sha256(exact.encode("utf-8")).hexdigest()[:DIGEST_CHARACTERS]
    readable = re.sub(r"[^A-Za-z0-9._@+\-]", "_", exact)
    readable = _EDGE_PUNCTUATION.sub("", readable[:READABLE_PREFIX_CHARACTERS]) or "id"
    return f"{prefix}:{readable}~{digest}"


@dataclass(frozen=True)
class Access:
    """What one identity may read and write, as scope patterns."""

    identity: Identity
    read: tuple[str, ...]
    write: tuple[str, ...]

    @classmethod
    def of(cls, identity: Identity, settings: Settings) -> Access:
        if identity.admin:
            return cls(identity, ("*",), ("*",))
        rule = settings.agent_access.get(identity.agent_id)
        if rule is None:  # a pattern key (e.g. "ops-*") applies when no exact key does
            rule = next(
                (
                    value
                    for key, value in settings.agent_access.items()
                    if fnmatch.fnmatchcase(identity.agent_id, key)
                ),
                None,
            )
        read = rule.read if rule is not None else settings.read_scopes
        write = rule.write if rule is not None else settings.write_scopes
        return cls(identity, _expand(read, identity), _expand(write, identity))

    def can_read(self, scope: str) -> bool:
        return any(fnmatch.fnmatchcase(scope, pattern) for pattern in self.read)

    def can_write(self, scope: str) -> bool:
        return any(fnmatch.fnmatchcase(scope, pattern) for pattern in self.write)

    def readable_scopes(self) -> list[str] | None:
        """The concrete scopes a call that names none reads; None: every scope (no filter)."""
        if "*" in self.read:
            return None
        return [pattern for pattern in self.read if not _is_pattern(pattern)]

    def scopes_to_read(
        self, scopes: Sequence[str] | None, *, field: str = "scope"
    ) -> list[str] | None:
        """The scopes a read covers: those named (each checked) or, with none, the default set."""
        if not scopes:
            return self.readable_scopes()
        for scope in scopes:
            validate_scope(scope, field=field)
            if not self.can_read(scope):
                raise AccessDeniedError(
                    f"{self.identity.describe()} may not read scope {scope!r}; it may read: "
                    + ", ".join(self.read),
                    field=field,
                )
        return list(dict.fromkeys(scopes))

    def check_write(self, scope: str, *, field: str = "scope") -> str:
        validate_scope(scope, field=field)
        if not self.can_write(scope):
            raise AccessDeniedError(
                f"{self.identity.describe()} may not write scope {scope!r}; it may write: "
                + (", ".join(self.write) or "no scope"),
                field=field,
            )
        return scope

    def default_store_scope(self, setting: str) -> str:
        """Where ``memory_store`` writes when no scope is given (``store_scope``)."""
        return resolve_scope_setting(setting, self.identity)

    def workspace_scope(self, setting: str, *, writing: bool = False, field: str = "path") -> str:
        """Whose workspace files this identity's workspace tools use (``workspace_scope``;
        an administrator's are the default agent's), once checked that it may read them, and
        write them when ``writing``."""
        identity = self.identity
        scope = (
            default_workspace_scope(setting)
            if identity.admin
            else resolve_scope_setting(setting, identity)
        )
        if writing:
            return self.check_write(scope, field=field)
        if not self.can_read(scope):
            raise AccessDeniedError(
                f"{self.identity.describe()} may not read the workspace of scope {scope!r}",
                field=field,
            )
        return scope

    def capture_scope(self, setting: str) -> str:
        """Where automatic capture writes this identity's turns (``capture_scope``)."""
        return resolve_scope_setting(setting, self.identity)


def default_workspace_scope(setting: str) -> str:
    """The default agent's workspace: the administrator's, and where the files written
    before workspaces had owners belong (``workspace_scope``)."""
    return resolve_scope_setting(setting, Identity(agent_id=DEFAULT_AGENT_ID))


def resolve_scope_setting(setting: str, identity: Identity) -> str:
    """'agent' (agent:<id>), 'user' (user:<id>, else the agent's), 'global', or a scope."""
    agent = scope_for("agent", identity.agent_id)
    if setting == "agent":
        return agent or GLOBAL_SCOPE
    if setting == "user":
        return scope_for("user", identity.user_id) or agent or GLOBAL_SCOPE
    return setting


def _is_pattern(scope: str) -> bool:
    return any(character in scope for character in "*?[")


def _expand(patterns: Sequence[str], identity: Identity) -> tuple[str, ...]:
    """Patterns with ``{agent}`` and ``{user}`` filled in; those naming an unknown id dropped."""
    values = {
        "{agent}": scope_for("agent", identity.agent_id),
        "{user}": scope_for("user", identity.user_id),
    }
    expanded = []
    for pattern in patterns:
        for placeholder, scope in values.items():
            if placeholder in pattern:
                pattern = pattern.replace(placeholder, scope or "")
                if scope is None:
                    pattern = ""
        if pattern:
            expanded.append(pattern)
    return tuple(dict.fromkeys(expanded))
