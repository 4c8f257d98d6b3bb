"""What automatic recall may inject into a session: trust and privacy by provenance.

The tools find every memory the caller may read (scopes decide that). Automatic injection is
narrower, because nobody asked for it and everyone in the session sees its effect:

- an *untrusted* memory (its words may come from tool output, or instruct the model) is not
  injected unless ``inject_untrusted``;
- in a group or channel session (``group_session_keys``), what was captured in a direct
  conversation is not injected unless ``inject_private_in_groups``;
- in a session with a known user, what another known user said is not injected unless
  ``inject_other_users`` — except from shared scopes (``global``, ``project:…``: anything
  but an agent's or a user's own scope), which are shared on purpose, and except what was
  said in this same group conversation (where each member has an id of their own).

Memories captured in one group are injected in another group when they pass these rules (the
same user, or no user named): groups are not private from one another.

A memory stored through a tool records its caller's agent, user and session, as a captured
one does; a text another user rewrites in a personal scope becomes theirs
(``write.updating.author``). A memory without provenance (imported, or stored by an
administrator) is neither private nor another user's: it was written for whoever may read
its scope.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from dataclasses import dataclass

from openclaw_tinmem.config import Settings
from openclaw_tinmem.events import HookContext
from openclaw_tinmem.models import PERSONAL_SCOPE_PREFIXES, Memory


def is_group_session(session_key: str | None, patterns: Sequence[str]) -> bool:
    """Whether a session key names a group or channel conversation."""
    if not session_key:
        return False
    return any(fnmatch.fnmatchcase(session_key, pattern) for pattern in patterns)


@dataclass(frozen=True)
class InjectionPolicy:
    """Which memories automatic recall may inject into one session."""

    settings: Settings
    context: HookContext

    def allows(self, memory: Memory) -> bool:
        """Whether automatic recall may inject ``memory`` into this session."""
        settings, origin = self.settings, memory.provenance
        if origin.untrusted and not settings.inject_untrusted:
            return False
        patterns = settings.group_session_keys
        if (
            not settings.inject_private_in_groups
            and is_group_session(self.context.session_key, patterns)
            and origin.session_key
            and not is_group_session(origin.session_key, patterns)
        ):
            return False
        user = self.context.user_id
        return (
            settings.inject_other_users
            or not user
            or not origin.user_id
            or origin.user_id == user
            or not memory.scope.startswith(PERSONAL_SCOPE_PREFIXES)
            or self._said_in_this_group(origin.session_key)
        )

    def _said_in_this_group(self, session_key: str | None) -> bool:
        """Said in this very group conversation, before all its members (who each have an id
        of their own). Not a direct session: OpenClaw's default puts every user's direct
        messages in one session key."""
        current = self.context.session_key
        groups = self.settings.group_session_keys
        return bool(session_key) and session_key == current and is_group_session(current, groups)
