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
  said in this same conversation (a group chat, where each member has an id of their own).

A memory without provenance (stored by a tool, imported) is neither private nor another
user's: it was written for whoever may read its scope.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from dataclasses import dataclass

from openclaw_tinmem.config import Settings
from openclaw_tinmem.events import HookContext
from openclaw_tinmem.models import Memory

PERSONAL_SCOPE_PREFIXES = ("agent:", "user:")


def is_group_session(session_key: str | None, patterns: Sequence[str]) -> bool:
    """Whether a session key names a group or channel conversation."""
    return bool(session_key) and any(fnmatch.fnmatchcase(session_key or "", p) for p in patterns)


@dataclass(frozen=True)
class InjectionPolicy:
    """Which memories automatic recall may inject into one session."""

    settings: Settings
    context: HookContext

    def allows(self, memory: Memory) -> bool:
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
            # said in this very conversation (a group's members each have their own id)
            or bool(origin.session_key and origin.session_key == self.context.session_key)
        )
