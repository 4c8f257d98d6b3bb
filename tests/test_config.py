from pathlib import Path

import pytest

from openclaw_tinmem.cli.doctor import diagnose
from openclaw_tinmem.config import Settings, load_settings
from openclaw_tinmem.config.loading import unknown_variables
from openclaw_tinmem.config.pages import REGENERATE, render_config_file, render_reference
from openclaw_tinmem.errors import ConfigError


@pytest.fixture
def empty_config(tmp_path: Path) -> Path:
    path = tmp_path / "empty.toml"
    path.write_text("")
    return path


def test_defaults_without_file_or_env(empty_config: Path) -> None:
    settings = load_settings(empty_config, environ={})
    assert settings.recall_limit == 10
    assert settings.db_path == "~/.openclaw/tinmem/lancedb"


def test_file_then_env_precedence_and_variable_expansion(tmp_path: Path) -> None:
    config = tmp_path / "tinmem.toml"
    config.write_text('db_path = "${DATA}/store"\nrecall_limit = 7\nrerank = true\n')
    settings = load_settings(config, environ={"DATA": "/srv/mem", "TINMEM_RECALL_LIMIT": "12"})
    assert settings.db_path == "/srv/mem/store"
    assert settings.recall_limit == 12  # env beats file
    assert settings.rerank is True


def test_tinmem_section_is_accepted(tmp_path: Path) -> None:
    config = tmp_path / "shared.toml"
    config.write_text("[tinmem]\ncandidate_pool = 80\n")
    assert load_settings(config, environ={}).candidate_pool == 80


def test_openai_api_key_is_the_fallback_for_openais_endpoint_chosen_for_tinmem(
    empty_config: Path,
) -> None:
    endpoint = {"TINMEM_LLM_BASE_URL": "https://api.openai.com/v1"}
    settings = load_settings(empty_config, environ={**endpoint, "OPENAI_API_KEY": "sk-x"})
    assert settings.api_key() == "sk-x" and settings.llm_configured()
    assert "sk-x" not in repr(settings)
    both = {**endpoint, "OPENAI_API_KEY": "a", "TINMEM_LLM_API_KEY": "b"}
    assert load_settings(empty_config, environ=both).api_key() == "b"
    local = {"TINMEM_LLM_BASE_URL": "http://127.0.0.1:11434/v1", "OPENAI_API_KEY": "sk-x"}
    elsewhere = load_settings(empty_config, environ=local)  # an OpenAI key goes only to OpenAI
    assert elsewhere.llm_configured() and elsewhere.api_key() is None


def test_the_agents_openai_key_alone_does_not_turn_llm_capture_on(empty_config: Path) -> None:
    """Every Agents SDK or LangChain user has OPENAI_API_KEY (and maybe OPENAI_BASE_URL) set
    for their own model: tinmem stays in no-LLM mode and sends no turn anywhere."""
    agents = {"OPENAI_API_KEY": "sk-agent", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
    settings = load_settings(empty_config, environ=agents)
    assert not settings.llm_configured() and settings.api_key() is None
    own_key = load_settings(empty_config, environ={**agents, "TINMEM_LLM_API_KEY": "sk-t"})
    assert own_key.llm_configured()
    assert own_key.llm_endpoint() == "https://api.openai.com/v1"  # not OPENAI_BASE_URL


@pytest.mark.parametrize(
    ("environ", "field"),
    [
        ({"TINMEM_RECALL_LIMIT": "zero"}, "recall_limit"),
        ({"TINMEM_IMPORTANCE_WEIGHT": "3"}, "importance_weight"),
        ({"TINMEM_CAPTURE_SCOPE": "agents"}, "capture_scope"),  # else every turn is dropped
        ({"TINMEM_STORE_SCOPE": "custom:"}, "store_scope"),
    ],
)
def test_bad_values_name_the_option(
    environ: dict[str, str], field: str, empty_config: Path
) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(empty_config, environ=environ)
    assert caught.value.field == field


def test_unknown_option_and_missing_explicit_file_are_errors(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text("no_such_option = 1\n")
    with pytest.raises(ConfigError, match="no_such_option"):
        load_settings(config, environ={})
    with pytest.raises(ConfigError, match="does not exist"):
        load_settings(tmp_path / "missing.toml", environ={})


def test_a_config_file_names_itself_and_the_nested_option_it_got_wrong(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('agent_access = {"ops-*" = {read = ["*"], writ = ["{agent}"]}}\n')
    with pytest.raises(ConfigError, match=r"unknown option 'agent_access\.ops-\*\.writ'"):
        load_settings(config, environ={})
    config.write_bytes(b'db_path = "\xff\xfe"\n')
    with pytest.raises(ConfigError, match=f"config file {config} is not UTF-8 text"):
        load_settings(config, environ={})
    (check,) = diagnose(config)["checks"]
    assert check["detail"].startswith(f"config file {config}")
    config.write_text('capture_scope = "agents"\n')
    (check,) = diagnose(config)["checks"]
    assert not check["ok"] and check["detail"].startswith("capture_scope: ")  # once "config: "


def test_rendered_config_file_loads_back_to_defaults(tmp_path: Path) -> None:
    config = tmp_path / "generated.toml"
    config.write_text(render_config_file())
    assert load_settings(config, environ={}) == Settings()
    for name in Settings.model_fields:
        assert name in config.read_text()


def test_every_option_is_documented_in_the_configuration_reference() -> None:
    page = (Path(__file__).parent.parent / "docs" / "configuration.md").read_text()
    assert page == render_reference(), f"regenerate it: {REGENERATE}"
    for name in Settings.model_fields:
        assert f"| `{name}` |" in page


def test_named_object_store_options_become_lancedb_storage_options(tmp_path: Path) -> None:
    config = tmp_path / "tinmem.toml"
    config.write_text(
        'db_path = "s3://team/memory"\nstorage_region = "eu-west-1"\n'
        '[storage_options]\naws_secret_access_key = "${SECRET}"\n'
    )
    environment = {
        "SECRET": "s3cr3t",
        "TINMEM_STORAGE_ENDPOINT": "http://minio:9000",
        "TINMEM_STORAGE_ALLOW_HTTP": "true",
    }
    settings = load_settings(config, environ=environment)
    assert settings.object_store_options() == {
        "aws_endpoint": "http://minio:9000",
        "aws_region": "eu-west-1",
        "allow_http": "true",
        "aws_secret_access_key": "s3cr3t",
    }
    explicit = settings.model_copy(update={"storage_options": {"aws_region": "us-east-2"}})
    assert explicit.object_store_options()["aws_region"] == "us-east-2"  # the raw option wins


def test_a_misspelt_variable_is_named_with_the_option_it_was_meant_for(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    environment = {
        "TINMEM_RECAL_LIMIT": "4",
        "TINMEM_QWERTY": "1",
        "TINMEM_DB_PATH": "db",
        "TINMEM_TRACE": "1",
        "TINMEM_CONFIG": str(tmp_path / "none.toml"),
        "TINMEM_PACKAGE_INDEX": "https://example.test/simple",
        "HOME_X": "1",
    }
    monkeypatch.setenv("HOME", str(tmp_path))  # no config file of the developer's
    assert unknown_variables(environment) == [
        "TINMEM_QWERTY names no option and is ignored",
        "TINMEM_RECAL_LIMIT names no option and is ignored (did you mean TINMEM_RECALL_LIMIT?)",
    ]
    with caplog.at_level("WARNING", logger="openclaw_tinmem"):
        settings = load_settings(environ={"TINMEM_RECAL_LIMIT": "4"})
    assert settings.recall_limit == Settings().recall_limit  # ignored, as the line says
    assert "did you mean TINMEM_RECALL_LIMIT?" in caplog.text
    monkeypatch.setenv("TINMEM_RECAL_LIMIT", "4")
    monkeypatch.setenv("TINMEM_DB_PATH", str(tmp_path / "db"))
    checks = {check["name"]: check for check in diagnose(None)["checks"]}
    assert (
        not checks["environment"]["ok"] and "TINMEM_RECALL_LIMIT" in checks["environment"]["detail"]
    )
    assert "store" in checks  # said, checked or not: a stray variable does not hide it


@pytest.mark.parametrize(
    ("line", "field", "says"),
    [
        (
            'capture_skip_patterns = ["ok", "("]',
            "capture_skip_patterns",
            "not a regular expression",
        ),
        ('db_path = ""', "db_path", "at least 1 character"),
        ('journal_path = ""', "journal_path", "at least 1 character"),
    ],
)
def test_a_value_that_could_only_fail_later_is_refused_when_read(
    tmp_path: Path, line: str, field: str, says: str
) -> None:
    config = tmp_path / "c.toml"
    config.write_text(line + "\n")
    with pytest.raises(ConfigError, match=says) as caught:
        load_settings(config, environ={})
    assert caught.value.field is not None and caught.value.field.startswith(field)
