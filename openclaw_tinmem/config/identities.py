"""The settings of who may do what: scope rights of agents, and the identities behind
bearer tokens. Part of the one settings model (``config.settings``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, SecretStr

OWN_SCOPES = ["global", "{agent}", "{user}"]


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
