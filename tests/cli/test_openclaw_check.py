import json
from pathlib import Path

from openclaw_tinmem.cli.openclaw_check import ALLOW_HOOKS, openclaw_check, openclaw_config_path


def write(path: Path, config: object) -> Path:
    path.write_text(json.dumps(config))
    return path


def test_the_config_is_found_where_openclaw_looks(tmp_path: Path) -> None:
    assert openclaw_config_path({"OPENCLAW_CONFIG_PATH": str(tmp_path / "c.json")}) == (
        tmp_path / "c.json"
    )
    assert openclaw_config_path({"OPENCLAW_STATE_DIR": str(tmp_path)}) == tmp_path / "openclaw.json"
    assert openclaw_config_path({}).name == "openclaw.json"


def test_blocked_hooks_fail_with_the_command_that_allows_them(tmp_path: Path) -> None:
    installed = {
        "plugins": {"slots": {"memory": "tinmem"}, "entries": {"tinmem": {"enabled": True}}}
    }
    check = openclaw_check(write(tmp_path / "openclaw.json", installed))
    assert check is not None and check["ok"] is False and ALLOW_HOOKS in check["detail"]
    installed["plugins"]["entries"]["tinmem"]["hooks"] = {"allowConversationAccess": True}
    check = openclaw_check(write(tmp_path / "openclaw.json", installed))
    assert check is not None and check["ok"] is True


def test_another_memory_slot_fails_and_no_openclaw_is_no_check(tmp_path: Path) -> None:
    other = {
        "plugins": {
            "slots": {"memory": "memory-core"},
            "entries": {"tinmem": {"hooks": {"allowConversationAccess": True}}},
        }
    }
    check = openclaw_check(write(tmp_path / "openclaw.json", other))
    assert check is not None and not check["ok"] and "'memory-core'" in check["detail"]
    assert openclaw_check(tmp_path / "missing.json") is None
    assert openclaw_check(write(tmp_path / "other.json", {"agents": {}})) is None
    broken = tmp_path / "broken.json"
    broken.write_text("{ plugins: ")
    check = openclaw_check(broken)
    assert check is not None and check["ok"] and "could not read" in check["detail"]
