"""Where settings come from, later winning: defaults, a TOML file, ``TINMEM_*`` env vars."""

from __future__ import annotations

import difflib
import json
import logging
import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, get_origin
from urllib.parse import urlsplit

from pydantic import ValidationError

from openclaw_tinmem.config.settings import OPENAI_HOST, Settings
from openclaw_tinmem.errors import ConfigError, invalid_argument
from openclaw_tinmem.locations import (
    CONFIG_VARIABLE,
    DEBUG_VARIABLE,
    DEFAULT_CONFIG_PATH,
    ENV_PREFIX,
    PACKAGE_INDEX_VARIABLE,
    TRACE_VARIABLE,
)

logger = logging.getLogger("openclaw_tinmem")
# TINMEM_ variables read outside the settings model
OTHER_VARIABLES = (CONFIG_VARIABLE, TRACE_VARIABLE, PACKAGE_INDEX_VARIABLE, DEBUG_VARIABLE)


def switched_on(variable: str, environ: Mapping[str, str] | None = None) -> bool:
    """Whether an on/off environment variable is on (unset, 0, false, no, off: off)."""
    value = (os.environ if environ is None else environ).get(variable, "")
    return value.strip().lower() not in ("", "0", "false", "no", "off")


_ENV_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def expand_env_references(value: Any, environ: dict[str, str]) -> Any:
    """Replace ``${VAR}`` in strings, also inside tables and lists, with the environment's
    value (empty if unset)."""
    if isinstance(value, str):
        return _ENV_REFERENCE.sub(lambda match: environ.get(match.group(1), ""), value)
    if isinstance(value, dict):
        return {key: expand_env_references(item, environ) for key, item in value.items()}
    if isinstance(value, list):
        return [expand_env_references(item, environ) for item in value]
    return value


def _read_file(path: Path, environ: dict[str, str]) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            raw = tomllib.load(handle)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"config file {path} is not valid TOML: {error}") from error
    except UnicodeDecodeError as error:
        raise ConfigError(
            f"config file {path} is not UTF-8 text ({error.reason} at byte {error.start}); "
            "save it as UTF-8"
        ) from None
    # A [tinmem] table is accepted so the options can live in a shared file.
    section = raw.get("tinmem", raw)
    if not isinstance(section, dict):
        raise ConfigError(f"config file {path}: [tinmem] must be a table")
    return {key: expand_env_references(value, environ) for key, value in section.items()}


def _read_environment(environ: dict[str, str]) -> dict[str, Any]:
    """Options from ``TINMEM_<OPTION>``; a list or table option takes JSON (a list also takes
    comma-separated values)."""
    values: dict[str, Any] = {}
    for name, field in Settings.model_fields.items():
        variable = ENV_PREFIX + name.upper()
        raw = environ.get(variable)
        if raw is None:
            continue
        structured = get_origin(field.annotation) in (list, dict)
        if raw == "":
            values[name] = [] if get_origin(field.annotation) is list else None
        elif structured and raw.lstrip()[:1] in ("[", "{"):
            try:
                values[name] = json.loads(raw)
            except json.JSONDecodeError as error:
                raise ConfigError(
                    f"{variable} is not valid JSON: {error.msg}", field=name
                ) from None
        elif get_origin(field.annotation) is list:
            values[name] = [part.strip() for part in raw.split(",") if part.strip()]
        else:
            values[name] = raw
    return values


def unknown_variables(environ: dict[str, str]) -> list[str]:
    """A line for each ``TINMEM_*`` variable set in ``environ`` that names no option (a typo
    would otherwise be ignored in silence), with the closest known name if one is close."""
    known = [ENV_PREFIX + name.upper() for name in Settings.model_fields] + list(OTHER_VARIABLES)
    lines = []
    for variable in sorted(environ):
        if variable.startswith(ENV_PREFIX) and variable not in known:
            close = difflib.get_close_matches(variable, known, n=1, cutoff=0.8)
            hint = f" (did you mean {close[0]}?)" if close else ""
            lines.append(f"{variable} names no option and is ignored{hint}")
    return lines


def is_openai(url: object) -> bool:
    """Whether ``url`` is OpenAI's own API."""
    return isinstance(url, str) and urlsplit(url.strip()).hostname == OPENAI_HOST


def load_settings(
    config_path: str | Path | None = None,
    *,
    environ: dict[str, str] | None = None,
    overrides: dict[str, Any] | None = None,
) -> Settings:
    """Build Settings from defaults, the config file, the environment and explicit overrides.

    ``config_path`` falls back to ``TINMEM_CONFIG`` and then ``~/.openclaw/tinmem.toml``; a
    missing default file is fine, a missing explicit file is an error.
    """
    environment = dict(os.environ if environ is None else environ)
    explicit = config_path or environment.get(CONFIG_VARIABLE)
    path = Path(explicit or DEFAULT_CONFIG_PATH).expanduser()
    values: dict[str, Any] = {}
    if path.exists():
        values.update(_read_file(path, environment))
    elif explicit:
        raise ConfigError(f"config file {path} does not exist")
    values.update(_read_environment(environment))
    for line in unknown_variables(environment):
        logger.warning(line)
    values.update(overrides or {})
    # OpenAI's endpoint, chosen for tinmem, may take the key every OpenAI client reads; that
    # key alone (set for the agent's own model) never turns on LLM capture, which sends turns
    # out, and never goes to another endpoint.
    fallback = environment.get("OPENAI_API_KEY")
    if is_openai(values.get("llm_base_url")) and not values.get("llm_api_key") and fallback:
        values["llm_api_key"] = fallback
    try:
        return Settings(**values)
    except ValidationError as error:
        problem = invalid_argument(error, noun="option", prefix="config: ")
        raise ConfigError(problem.message, field=problem.field) from error
