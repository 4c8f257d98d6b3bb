"""The package face: what it exports, and that importing it stays cheap."""

import subprocess
import sys
from types import ModuleType

import pytest

import openclaw_tinmem


def test_exported_members_are_all_of_the_public_names() -> None:
    """httpx's test_exported_members, on the package's real namespace: once every name of
    ``__all__`` is resolved, the project's objects the package holds are exactly those names
    (``dir()`` is no check: the package's ``__dir__`` answers from ``__all__``)."""
    exported = [name for name in openclaw_tinmem.__all__ if name != "__version__"]
    for name in exported:
        getattr(openclaw_tinmem, name)
    held = {
        name
        for name, value in vars(openclaw_tinmem).items()
        if not name.startswith("_")
        and not isinstance(value, ModuleType)  # subpackages become attributes once imported
        and getattr(value, "__module__", "").startswith("openclaw_tinmem.")
    }
    assert held == set(exported) == set(openclaw_tinmem._EXPORTS)
    assert dir(openclaw_tinmem) == sorted(openclaw_tinmem.__all__)


def test_an_unknown_name_is_an_attribute_error() -> None:
    try:
        openclaw_tinmem.NoSuchThing  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as error:
        assert "NoSuchThing" in str(error)
    else:
        raise AssertionError("no AttributeError")


def test_the_version_comes_from_the_package_metadata() -> None:
    from importlib.metadata import version

    assert openclaw_tinmem.__version__ == version("openclaw-tinmem")


def _loaded_after(code: str) -> set[str]:
    script = f"{code}\nimport sys\nprint(' '.join(sorted(sys.modules)))"
    output = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert output.returncode == 0, output.stderr
    return set(output.stdout.split())


def test_importing_the_package_and_the_cli_loads_no_heavy_library() -> None:
    heavy = {"lancedb", "pyarrow", "fastembed", "onnxruntime", "numpy", "openai", "pydantic"}
    for code in (
        "import openclaw_tinmem",
        "import openclaw_tinmem.cli",
        "import openclaw_tinmem.plugin, openclaw_tinmem.plugin.hookspecs",
    ):
        loaded = _loaded_after(code)
        assert not heavy & loaded, (code, heavy & loaded)


def test_old_import_paths_still_work_and_say_where_the_api_lives() -> None:
    from openclaw_tinmem.plugin import TinmemPlugin, plugin
    from openclaw_tinmem.plugin.hookspecs import make_plugin_manager
    from openclaw_tinmem.plugin.host import Host

    sys.modules.pop("openclaw_tinmem.host", None)
    sys.modules.pop("openclaw_tinmem.hookspecs", None)
    with pytest.warns(DeprecationWarning, match="openclaw_tinmem.plugin.host"):
        from openclaw_tinmem.host import Host as OldHost
    with pytest.warns(DeprecationWarning, match="openclaw_tinmem.plugin.hookspecs"):
        from openclaw_tinmem.hookspecs import make_plugin_manager as old_manager
    assert OldHost is Host and old_manager is make_plugin_manager
    assert isinstance(plugin, TinmemPlugin)
