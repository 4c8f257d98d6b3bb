"""The settings of who may do what: scope rights of agents, and the identities behind
bearer tokens. Part of the one settings model (``config.settings``)."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, SecretStr

from openclaw_tinmem.errors import InvalidArgumentError
from openclaw_tinmem.models import validate_scope

OWN_SCOPES = ["global", "{agent}", "{user}"]
SCOPE_KEYWORDS = ("agent", "user", "global")


def _scope_setting(value: str) -> str:
    if value in SCOPE_KEYWORDS:
        return value
    try:
        return validate_scope(value)
    except InvalidArgumentError as error:
        raise ValueError(f"use 'agent', 'user', 'global' or one scope: {error.message}") from None


# 'agent' (each agent's own scope), 'user', 'global', or one scope: never a pattern
ScopeSetting = Annotated[str, AfterValidator(_scope_setting)]


class ScopeRule(BaseModel):
    """The scopes one agent may read and write (patterns; see ``read_scopes``)."""

    model_config = ConfigDict(extra="forbid")

    read: list[str] = Field(default_factory=lambda: list(OWN_SCOPES))
    write: list[str] = Field(default_factory=lambda: list(OWN_SCOPES))


class AccessToken(BaseModel):
    """An identity for callers that present a bearer token (``tinmem mcp --http``)."""

    model_config = ConfigDict(extra="forbid")

    token_sha256: str | None = Field(
        None, pattern=r"^[0-9a-f]{64}$", description="sha256 of the token, hex"
    )
    token: SecretStr | None = Field(None, description='the token itself, e.g. "${MY_TOKEN}"')
    agent_id: str = "main"
    user_id: str | None = None
    admin: bool = False
