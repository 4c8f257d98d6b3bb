"""The options of recall: how candidates are found, fused, re-ranked and scored, and how
recalling a memory counts. ``Settings`` inherits them, after the models' options."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class RecallSettings(BaseModel):
    """How ``memory_recall`` (and automatic recall, which adds its floors) ranks memories."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    # --- recall
    recall_limit: int = Field(
        10,
        ge=1,
        le=100,
        description="Results of a recall that names no limit (tinmem search, "
        "MemoryService.recall); the memory_recall tool's default is the skill's 10",
    )
    candidate_pool: int = Field(
        50,
        ge=1,
        le=1000,
        description="Candidates fetched from each retriever before fusion (with late "
        "interaction, at least half of late_interaction_candidates)",
    )
    rrf_k: float = Field(20.0, gt=0, description="Reciprocal-rank-fusion constant")
    vector_weight: float = Field(0.5, ge=0, description="Weight of the vector ranking in fusion")
    text_weight: float = Field(1.0, ge=0, description="Weight of the full-text ranking in fusion")
    late_interaction: bool = Field(
        True,
        description="Re-rank fused candidates by token-level (ColBERT) similarity; memories "
        "store token vectors when written",
    )
    late_interaction_candidates: int = Field(
        200, ge=1, le=1000, description="How many fused candidates late interaction re-ranks"
    )
    late_interaction_max_tokens: int = Field(
        128, ge=16, le=512, description="Tokens of a memory (or query) encoded for late interaction"
    )
    late_interaction_context_tokens: int = Field(
        64,
        ge=0,
        le=256,
        description="Tokens of a memory's conversational context (the message before it) "
        "encoded with it for late interaction; 0 leaves context out",
    )
    late_interaction_context_weight: float = Field(
        0.85,
        ge=0,
        le=1,
        description="How much a match on a context token counts against a match on the "
        "memory's own tokens",
    )
    late_interaction_function_words: bool = Field(
        True,
        description="Store and match the token vectors of function words ('the', 'of', "
        "'you'); off, a quarter less store for a little recall (LoCoMo import: 5.7 KB a "
        "memory and frac@10 / nDCG@10 81.9 / 69.8, against 7.5 KB and 82.6 / 70.3)",
    )
    late_interaction_cache_megabytes: float = Field(
        64.0,
        ge=0,
        description="Token vectors kept in memory between recalls (read from the table once); "
        "0 reads them for every recall",
    )
    episode_weight: float = Field(
        0.75,
        ge=0,
        le=10,
        description="How far a candidate's relevance moves towards that of its episode (the "
        "memories written around the same time) before the cross-encoder; 0 turns it off",
    )
    episode_gap_minutes: float = Field(
        30.0,
        gt=0,
        description="Memories written less than this apart belong to one episode",
    )
    rerank: bool = Field(True, description="Re-score the top candidates with the cross-encoder")
    rerank_candidates: int = Field(
        8, ge=1, le=200, description="How many of the best candidates the cross-encoder re-scores"
    )
    rerank_max_tokens: int = Field(
        128,
        ge=16,
        le=512,
        description="Longest (query, memory) pair the cross-encoder reads, in tokens",
    )
    rerank_context_characters: int = Field(
        80,
        ge=0,
        le=2000,
        description="Characters from the end of a memory's context (the message before it) "
        "that the cross-encoder reads after the memory; 0 leaves context out",
    )
    importance_weight: float = Field(
        0.15, ge=0, le=1, description="Share of the final score that comes from importance"
    )
    recency_weight: float = Field(
        0.1, ge=0, le=1, description="Share of the final score that comes from recency"
    )
    recency_half_life_days: float = Field(
        30.0, gt=0, description="Age (since last update) at which the recency factor halves"
    )
    time_weight: float = Field(
        0.3,
        ge=0,
        le=1,
        description='When a query names a time ("last week", "in May", "on 8 May 2023"), '
        "the score of a memory said outside it is lowered by this share, so memories of then "
        "come first; 0 ignores named times",
    )
    min_score: float = Field(0.0, ge=0, le=1, description="Hits scoring below this are dropped")
    recall_min_similarity: float = Field(
        0.6,
        ge=0,
        le=1,
        description="memory_recall returns a memory that shares no words with the query only "
        "if its embedding's cosine similarity to the query reaches this, so an unrelated query "
        "gets an empty list (0: the best results whatever they are). Set for the bundled "
        "embedding model",
    )
    track_access: bool = Field(
        True,
        description="Record access count and time of recalled memories (in the background, "
        "gathered in memory and written every access_write_seconds, not on each recall)",
    )
    access_write_seconds: float = Field(
        300.0,
        ge=0,
        description="Write the gathered access statistics at most this often (and when a "
        "thousand memories wait, and at close); 0 writes them after every recall",
    )
