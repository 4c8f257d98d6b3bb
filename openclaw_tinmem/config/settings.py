"""The settings model: every option of openclaw-tinmem, with its default and meaning."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator, ConfigDict, Field, SecretStr

from openclaw_tinmem.config.identities import OWN_SCOPES, AccessToken, ScopeRule, ScopeSetting
from openclaw_tinmem.config.model_settings import (
    ModelSettings,
)
from openclaw_tinmem.config.recall_settings import RecallSettings
from openclaw_tinmem.config.storage_settings import StorageSettings
from openclaw_tinmem.locations import (
    DEFAULT_JOURNAL_PATH,
)

# OpenClaw's keys of sessions that are not a conversation with a person: cron jobs and their
# runs, sub-agents, isolated heartbeats, webhooks, ACP and node sessions
NOT_CONVERSATIONS = (
    "*:cron:*",
    "*:subagent:*",
    "*:heartbeat",
    "*:heartbeat:*",
    "*:hook:*",
    "hook:*",
    "*:acp:*",
    "acp:*",
    "*:node:*",
)
SCHEDULED_TRIGGERS = ("heartbeat", "cron", "memory", "overflow")
OPENAI_HOST = "api.openai.com"
OPENAI_ENDPOINT = f"https://{OPENAI_HOST}/v1"  # where an LLM key without an endpoint goes


def _regular_expression(value: str) -> str:
    try:
        re.compile(value)
    except re.error as error:
        raise ValueError(f"not a regular expression: {error}") from None
    return value


RegularExpression = Annotated[str, AfterValidator(_regular_expression)]


class Settings(RecallSettings, ModelSettings, StorageSettings):
    """All options of openclaw-tinmem with their defaults: the storage options
    (``StorageSettings``), the models' (``ModelSettings``), recall's (``RecallSettings``),
    then the rest, in this order."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    # --- writing and dedup (no-LLM rules)
    duplicate_similarity: float = Field(
        0.97, ge=0, le=1, description="Cosine at or above which a new memory is a duplicate"
    )
    merge_similarity: float = Field(
        0.88,
        ge=0,
        le=1,
        description="Cosine at or above which memories on the same topic or pattern merge (no-LLM "
        "rule; entities by their name first, profile facts always)",
    )
    merge_max_characters: int = Field(
        500,
        ge=0,
        description="A merge that appends (no merged text from an LLM) and would make a memory "
        "longer than this creates a new memory instead: late interaction reads only a memory's "
        "first 128 tokens, about 500 characters",
    )
    forget_min_similarity: float = Field(
        0.85, ge=0, le=1, description="memory_forget by query deletes only hits at least this close"
    )
    forget_max_deletions: int = Field(
        3, ge=1, le=20, description="memory_forget by query deletes at most this many memories"
    )
    import_batch_size: int = Field(256, ge=1, description="Rows embedded and written per batch")
    history: bool = Field(
        True,
        description="Keep every change of every memory (created, merged, updated, forgotten, "
        "imported, restored) in the memory_history table: 'tinmem history', 'tinmem restore'",
    )
    history_retention_days: float = Field(
        365.0, gt=0, description="History events older than this are dropped by upkeep"
    )
    episode_retention_days: float = Field(
        0.0,
        ge=0,
        description="Episodes (the exchanges automatic capture keeps) said longer ago than this "
        "are folded into one memory per session and forgotten by upkeep; the facts taken "
        "from them stay. 0 keeps them for ever",
    )
    fold_expired_episodes: bool = Field(
        True,
        description="Before expired episodes are forgotten, keep what happened in each of "
        "their sessions as one memory (an exchange a line, tagged 'folded-session'); off, they are "
        "only forgotten",
    )
    history_tool: bool = Field(
        False,
        description="Also offer the memory_history tool to agents, MCP clients and the CLI's "
        "tinmem tool (the skill's four tools stay the default set)",
    )
    tool_timeout_seconds: float = Field(
        8.0,
        gt=0,
        description="The LLM decisions of one memory_store or memory_update call (levels, "
        "dedup) wait at most this long; then the no-LLM rules decide and the result says so",
    )

    # --- automatic recall (before each turn)
    recall_timeout_seconds: float = Field(
        2.0, gt=0, description="Pre-turn recall gives up after this long and injects nothing"
    )
    injection_limit: int = Field(12, ge=1, le=50, description="Memories considered for injection")
    injection_min_similarity: float = Field(
        0.6,
        ge=0,
        le=1,
        description="A memory that shares no words with the message is injected only if its "
        "embedding's cosine similarity to the message reaches this (0: inject whatever recall "
        "returns). Set for the bundled embedding model; measure again for another one",
    )
    injection_instruction_min_similarity: float = Field(
        0.65,
        ge=0,
        le=1,
        description='A standing instruction ("always … when I ask about X") is injected when '
        "the message's cosine similarity to its condition (X) reaches this (0: never). Set "
        "for the bundled embedding model (docs/benchmarks.md)",
    )
    injection_word_match_min_similarity: float = Field(
        0.55,
        ge=0,
        le=1,
        description="With rerank on, a memory that shares words with the message is injected "
        "if its embedding's cosine similarity to the message reaches this (0: sharing a word "
        "is enough). Chosen with injection_min_relevance (docs/benchmarks.md)",
    )
    injection_min_relevance: float = Field(
        0.02,
        ge=0,
        le=1,
        description="With rerank on, a memory not close enough to the message by the two "
        "similarity floors is injected if the cross-encoder's relevance (0–1) of it reaches "
        "this; a message about nothing stored gets no block. Chosen on LoCoMo and BEAM "
        "conversations held out one at a time (docs/benchmarks.md)",
    )
    injection_similarity_min_relevance: float = Field(
        0.0,
        ge=0,
        le=1,
        description="With rerank on, a memory injected for being close to the message (the "
        "two similarity floors) must also have at least this cross-encoder relevance (0–1); "
        "profile, preferences, cases and patterns need only be close. 0 (closeness alone is "
        "enough) keeps what bears on a message without answering it, such as an allergy for "
        "'suggest a snack'; 0.001 silences most messages about other matters "
        "(docs/benchmarks.md)",
    )
    injection_min_neighbourhood: float = Field(
        0.0,
        ge=0,
        le=1,
        description="With rerank on, a message whose nearest memories are on average less "
        "close than this (the mean cosine of the 10 nearest, when the vector search finds at "
        "least 50) is taken as about nothing stored: only what the cross-encoder finds "
        "relevant, and the user's profile, preferences, cases and patterns, may be injected "
        "for it. 0 (off, the default); 0.62 silences many more messages about other matters "
        "in a store of one person's conversations, at some cost in coverage. Set for the "
        "bundled embedding model (docs/benchmarks.md)",
    )
    injection_token_budget: int = Field(
        600, ge=50, description="Estimated tokens (characters / 4) the injected block may use"
    )
    injection_detail_items: int = Field(
        3, ge=0, description="How many of the best injected memories are shown at L1, not L0"
    )
    max_query_characters: int = Field(
        1000, ge=50, description="The user message is cut to this length before recall"
    )

    # --- what automatic recall may inject where (trust and privacy; the tools find all)
    inject_untrusted: bool = Field(
        False,
        description="Inject memories marked untrusted: an exchange whose reply quoted tool "
        "output or gave the model standing instructions, a stored text that reads as an "
        "instruction to the model",
    )
    inject_private_in_groups: bool = Field(
        False,
        description="Inject what was said in a direct conversation into group and channel "
        "sessions (group_session_keys)",
    )
    inject_other_users: bool = Field(
        False,
        description="Inject what another user of the agent said into this user's session; "
        "memories in shared scopes (global, project:…) are injected for everyone",
    )
    group_session_keys: list[str] = Field(
        default_factory=lambda: ["*:group:*", "*:channel:*"],
        description="Session keys (fnmatch patterns) of group and channel conversations; any "
        "other session key is a direct conversation",
    )

    # --- identity and access
    read_scopes: list[str] = Field(
        default_factory=lambda: list(OWN_SCOPES),
        description="Scopes an agent may read (patterns: {agent} is agent:<its id>, {user} "
        "user:<its user>, * matches anything); a recall that names no scope reads the concrete "
        "ones",
    )
    write_scopes: list[str] = Field(
        default_factory=lambda: list(OWN_SCOPES),
        description="Scopes an agent may write, forget and update in (same patterns)",
    )
    agent_access: dict[str, ScopeRule] = Field(
        default_factory=dict,
        description="Rights of particular agents instead of read_scopes/write_scopes, by agent "
        'id or id pattern: {"ops-*": {"read": ["*"], "write": ["{agent}"]}}',
    )
    store_scope: ScopeSetting = Field(
        "global",
        description="Where memory_store writes when no scope is given: 'global' (the skill's "
        "default), 'agent', 'user', or a scope",
    )
    workspace_scope: ScopeSetting = Field(
        "agent",
        description="Whose workspace files (memory_write, memory_read, memory_tree, "
        "memory_search) an agent uses: 'agent' (its own), 'user', 'global' (one for all), or "
        "a scope",
    )
    access_tokens: dict[str, AccessToken] = Field(
        default_factory=dict,
        description="Bearer tokens of the MCP HTTP server, by name, each with the identity it "
        "stands for (see 'tinmem mcp token'); none: the server binds loopback only",
    )

    # --- automatic recall and capture switches
    auto_recall: bool = Field(True, description="Inject recalled memories before each turn")
    auto_capture: bool = Field(True, description="Capture memories after each turn")
    recall_exclude_agents: list[str] = Field(
        default_factory=list, description="Agent ids (or patterns) that get no automatic recall"
    )
    capture_exclude_agents: list[str] = Field(
        default_factory=list, description="Agent ids (or patterns) whose turns are not captured"
    )
    capture_min_characters: int = Field(
        12, ge=0, description="User messages shorter than this are not captured"
    )
    capture_max_characters: int = Field(
        8000, ge=1, description="User messages longer than this are not captured (pasted logs)"
    )
    capture_skip_patterns: list[RegularExpression] = Field(
        default_factory=list,
        description="Regular expressions: a user message that matches one is not captured",
    )
    capture_skip_sessions: list[str] = Field(
        default_factory=lambda: list(NOT_CONVERSATIONS),
        description="Session keys (fnmatch patterns) whose turns are not captured: runs that "
        "are not conversations (scheduled jobs, sub-agents, heartbeats, webhooks)",
    )
    capture_skip_triggers: list[str] = Field(
        default_factory=lambda: list(SCHEDULED_TRIGGERS),
        description="Runs started by these triggers (the host's ctx.trigger) are not captured: "
        "a heartbeat or a cron job in the main session is not something the user said",
    )
    capture_filter_injections: bool = Field(
        True,
        description="Keep prompt-injection text (instructions to the model, fake system or "
        "tool tags) out of captured memories; counted in 'tinmem stats'",
    )

    # --- automatic capture (after each turn)
    capture_scope: ScopeSetting = Field(
        "agent",
        description="Where captured memories go: 'agent' (agent:<id>), 'user' (user:<id>, "
        "falling back to agent), 'global', or an explicit scope",
    )
    journal_path: str = Field(
        DEFAULT_JOURNAL_PATH, min_length=1, description="Directory of the durable capture journal"
    )
    capture_max_attempts: int = Field(
        4, ge=1, le=20, description="LLM attempts per turn before the no-LLM fallback is used"
    )
    capture_retry_seconds: float = Field(
        5.0, ge=0, description="Delay before the first retry of a failed turn; doubles each time"
    )
    flush_timeout_seconds: float = Field(
        5.0, ge=0, description="How long session_end / before_reset wait for pending captures"
    )
    session_summary_min_messages: int = Field(
        3,
        ge=1,
        description="With an LLM, sessions with at least this many user messages are summarised",
    )
    context_messages: int = Field(
        4, ge=0, le=20, description="Earlier messages given to extraction as context"
    )

    # --- tools
    tool_sets: Literal["tinmem", "workspace", "both"] = Field(
        "both", description="Tools offered: the tinmem tools, the IronClaw workspace tools, or both"
    )
    workspace_writes_per_minute: int = Field(
        20, ge=1, description="memory_write calls allowed per agent in any minute"
    )
    workspace_writes_per_hour: int = Field(
        200, ge=1, description="memory_write calls allowed per agent in any hour"
    )
    workspace_search_memories: bool = Field(
        True,
        description="memory_search also searches the structured memories the caller may read "
        "(what automatic capture and memory_store kept), not only workspace documents",
    )

    # --- LLM (extraction and dedup)
    llm_base_url: str | None = Field(
        None,
        description="OpenAI-compatible endpoint (empty: no LLM, unless llm_api_key is set: then "
        "OpenAI's)",
    )
    llm_api_key: SecretStr | None = Field(
        None,
        description="API key; with llm_base_url set to OpenAI's API, falls back to "
        "OPENAI_API_KEY (which alone never turns the LLM on, nor goes to another endpoint); "
        "never printed or logged",
    )
    llm_model: str = Field("gpt-4o-mini", description="Model name sent to the endpoint")
    llm_mode: Literal["md_json", "json", "tools"] = Field(
        "md_json", description="instructor mode; md_json works with generic servers"
    )
    llm_timeout_seconds: float = Field(30.0, gt=0, description="Timeout of one LLM request")
    llm_max_retries: int = Field(2, ge=0, le=10, description="Retries of one LLM call")

    def resolved_journal_path(self) -> Path:
        return Path(self.journal_path).expanduser()

    def llm_configured(self) -> bool:
        return bool(self.llm_base_url or self.api_key())

    def llm_endpoint(self) -> str:
        """Where LLM requests go: ``llm_base_url``, else OpenAI's API (never the endpoint an
        ``OPENAI_BASE_URL`` meant for the agent's own model names)."""
        return self.llm_base_url or OPENAI_ENDPOINT

    def api_key(self) -> str | None:
        """The LLM API key in clear, for the client only."""
        key = self.llm_api_key
        if isinstance(key, SecretStr):
            return key.get_secret_value() or None
        return key or None  # a plain str given through model_copy(update=...), unvalidated
