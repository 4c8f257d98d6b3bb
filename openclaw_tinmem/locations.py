"""Where openclaw-tinmem keeps things by default, and the prefix of its environment variables.

Plain constants without imports, so the CLI can show them in ``--help`` at once; the
settings model (``config.Settings``) uses them as its defaults.
"""

ENV_PREFIX = "TINMEM_"
CONFIG_VARIABLE = "TINMEM_CONFIG"
TRACE_VARIABLE = "TINMEM_TRACE"  # every hook call traced (plugin/tracing.py)
PACKAGE_INDEX_VARIABLE = "TINMEM_PACKAGE_INDEX"  # models from (encoders/package_index.py)
DEBUG_VARIABLE = "TINMEM_DEBUG"  # the CLI logs every detail, tracebacks included (cli/app.py)
DEFAULT_CONFIG_PATH = "~/.openclaw/tinmem.toml"
DEFAULT_DB_PATH = "~/.openclaw/tinmem/lancedb"
DEFAULT_JOURNAL_PATH = "~/.openclaw/tinmem/journal"
DEFAULT_MODEL_DIR = "~/.cache/openclaw-tinmem/models"
