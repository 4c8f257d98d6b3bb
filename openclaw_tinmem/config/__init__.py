"""One settings model. Sources, later wins: defaults, a TOML file, ``TINMEM_*`` env vars.

Every option is a flat field; its env var is ``TINMEM_`` + the field name upper-cased
(``db_path`` -> ``TINMEM_DB_PATH``). ``${VAR}`` in file values is expanded from the environment.
"""

from openclaw_tinmem.config.loading import expand_env_references, load_settings
from openclaw_tinmem.config.model_settings import DEFAULT_EMBEDDING_MODEL, DEFAULT_RERANKER_MODEL
from openclaw_tinmem.config.settings import Settings

__all__ = [
    "DEFAULT_EMBEDDING_MODEL",
    "DEFAULT_RERANKER_MODEL",
    "Settings",
    "expand_env_references",
    "load_settings",
]
