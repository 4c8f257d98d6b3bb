import re
import tomllib
from pathlib import Path

from openclaw_tinmem.config import Settings
from openclaw_tinmem.models import Category
from openclaw_tinmem.plugin.hookimpls import TinmemPlugin
from openclaw_tinmem.plugin.hookspecs import hook_names, make_plugin_manager
from openclaw_tinmem.plugin.manifest import manifest, render_manifest
from openclaw_tinmem.tools.definitions import HISTORY_TOOLS, TINMEM_TOOLS, WORKSPACE_TOOLS

ROOT = Path(__file__).parents[2]


def test_committed_manifest_matches_the_code() -> None:
    committed = tomllib.loads((ROOT / "plugin.toml").read_text())
    assert committed == tomllib.loads(render_manifest()), (
        "regenerate: python -m openclaw_tinmem.plugin.manifest > plugin.toml"
    )
    assert set(committed["plugin"]["hooks"]) == set(hook_names())
    every = (*TINMEM_TOOLS, *WORKSPACE_TOOLS, *HISTORY_TOOLS)
    assert set(committed["tools"]) == {tool.name for tool in every}
    assert set(committed["config"]) == set(Settings.model_fields)
    assert (ROOT / committed["plugin"]["skill"]).exists()


def test_plugin_implements_every_hook_and_nothing_else() -> None:
    manager = make_plugin_manager()
    plugin = TinmemPlugin()
    manager.register(plugin)
    manager.check_pending()
    assert (
        {caller.name for caller in manager.get_hookcallers(plugin)}
        == set(hook_names())
        == set(manifest()["plugin"]["hooks"])
    )


def test_every_hook_is_documented_with_its_arguments() -> None:
    """Each hook's row in the user guide names exactly the spec's arguments (datasette's
    ``test_plugin_hooks_are_documented``)."""
    import inspect

    import openclaw_tinmem.plugin.hookspecs as specs

    guide = (ROOT / "docs" / "user-guide.md").read_text()
    documented = dict(re.findall(r"^\| `(\w+)\(([\w, ]*)\)` \|", guide, re.MULTILINE))
    assert set(documented) == set(hook_names())
    for name in hook_names():
        spec = getattr(specs, name)
        assert spec.__doc__, name
        arguments = list(inspect.signature(spec).parameters)
        assert [part.strip() for part in documented[name].split(",")] == arguments, name


def test_skill_file_covers_tools_categories_and_levels() -> None:
    skill = (ROOT / "skills/tinmem-memory-system/SKILL.md").read_text()
    front = re.match(r"^---\nname: (.+)\ndescription: (.+)\n---\n", skill)
    assert front and front.group(1) == "tinmem-memory-system"
    for tool in (*TINMEM_TOOLS, *WORKSPACE_TOOLS):
        assert f"### {tool.name}" in skill
        for parameter in tool.parameters()["properties"]:
            assert f"`{parameter}`" in skill, (tool.name, parameter)
    for category in Category:
        assert f"`{category.value}`" in skill
    assert all(level in skill for level in ("L0", "L1", "L2")) and "<agent-experience>" in skill
