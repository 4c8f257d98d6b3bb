"""The options of the local models: where they live, which ones, how many threads.
``Settings`` inherits them, after the storage options."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from openclaw_tinmem.locations import DEFAULT_MODEL_DIR

DEFAULT_EMBEDDING_MODEL = "openclaw-tinmem/bge-small-en-int8"
DEFAULT_RERANKER_MODEL = "openclaw-tinmem/ms-marco-MiniLM-L-12-v2-int8"


class ModelSettings(BaseModel):
    """The embedding and reranking models, provisioned from PyPI and run on this machine."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    # --- models
    model_dir: str = Field(DEFAULT_MODEL_DIR, description="Where provisioned ONNX models live")
    embedding_model: str = Field(
        DEFAULT_EMBEDDING_MODEL,
        description="Embedding model: the built-in offline default or any fastembed model name",
    )
    reranker_model: str = Field(
        DEFAULT_RERANKER_MODEL,
        description="Cross-encoder: the built-in offline default or any fastembed reranker name",
    )
    model_threads: int | None = Field(
        None,
        ge=1,
        description="ONNX Runtime threads per model; the cross-encoder scores pairs on this "
        "many single-threaded workers (empty: runtime default, one worker per usable core)",
    )
    query_cache_size: int = Field(1024, ge=0, description="Query vectors kept in an LRU cache")
    auto_provision: bool = Field(
        True, description="Fetch the default models from PyPI on first use if missing"
    )

    def resolved_model_dir(self) -> Path:
        return Path(self.model_dir).expanduser()
