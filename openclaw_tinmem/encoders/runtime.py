"""What the three models share: where a model lives, ONNX Runtime options, one load per process."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

from openclaw_tinmem.config import Settings
from openclaw_tinmem.encoders.provisioning import BundledModel, provision
from openclaw_tinmem.errors import ModelError

LoadedModel = TypeVar("LoadedModel")
REGISTRATION_LOCK = threading.Lock()  # fastembed's model registries are plain class lists


def model_path(settings: Settings, bundled: BundledModel) -> str:
    model_dir = settings.resolved_model_dir()
    directory = bundled.directory(model_dir)
    if not (directory / "model.onnx").exists():
        if not settings.auto_provision:
            raise ModelError(
                f"model {bundled.name} is not provisioned in {model_dir}; run 'tinmem models pull'"
            )
        provision(model_dir, report=_stderr)
    return str(directory)


def session_options(threads: int | None) -> Any:
    """ONNX Runtime options for our sessions: full graph optimisation, no busy-waiting.

    A recall runs up to three models one after another on a couple of cores. By default
    ONNX Runtime's worker threads spin for a while after each run, and that spinning steals
    the cores from whatever runs next: on 2 cores the cross-encoder's 10 pairs took 164 ms
    after the other models had run instead of 132 ms, and numpy scoring 12.8 ms instead of 2.4.
    """
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    if threads:
        options.intra_op_num_threads = threads
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return options


def attach_session(fastembed_model: Any, directory: str, threads: int | None) -> None:
    """Give a fastembed model our ONNX session (see ``session_options``) and its tokenizer.

    The bundled models are created with ``lazy_load``, so fastembed never builds a session
    of its own only for it to be replaced: that would load every model twice (about 0.13 s
    each on the development machine). On a fastembed layout we do not know, nothing is
    attached and fastembed loads its own session on first use.
    """
    import onnxruntime

    holder = getattr(fastembed_model, "model", None)
    if holder is None or not hasattr(holder, "load_onnx_model"):
        return
    ensure_tokenizer = getattr(holder, "_ensure_tokenizer", None)
    if ensure_tokenizer is not None:
        ensure_tokenizer()
    if getattr(holder, "tokenizer", None) is None:
        return
    holder.model = onnxruntime.InferenceSession(
        f"{directory}/model.onnx", session_options(threads), providers=["CPUExecutionProvider"]
    )


def usable_cores() -> int:
    """Cores this process may run on (its CPU affinity where the platform reports one)."""
    if hasattr(os, "sched_getaffinity"):
        return max(len(os.sched_getaffinity(0)), 1)
    return os.cpu_count() or 1


def _stderr(message: str) -> None:
    print(f"openclaw-tinmem: {message}", file=sys.stderr)


class SharedModels(Generic[LoadedModel]):
    """One loaded model per key in a process: loading takes a second, so loads are shared."""

    def __init__(
        self, load: Callable[[Settings], LoadedModel], key: Callable[[Settings], Hashable]
    ) -> None:
        self._load = load
        self._key = key
        self._models: dict[Hashable, LoadedModel] = {}
        self._lock = threading.Lock()

    def get(self, settings: Settings) -> LoadedModel:
        key = self._key(settings)
        with self._lock:
            if key not in self._models:
                self._models[key] = self._load(settings)
            return self._models[key]
