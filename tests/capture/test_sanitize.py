import pytest

from openclaw_tinmem.capture.sanitize import (
    clean,
    has_content,
    is_noise,
    strip_channel_metadata,
    strip_injected_block,
)
from openclaw_tinmem.redaction import REDACTED, redact_secrets


def test_our_block_is_stripped_but_an_unclosed_tag_keeps_the_message() -> None:
    assert strip_injected_block("a <agent-experience>old</agent-experience> b") == "a  b"
    # a user message that opens the tag and never closes it loses only the tag
    assert strip_injected_block("a <agent-experience>I live in Oslo") == "a I live in Oslo"


def test_channel_envelopes_are_stripped() -> None:
    assert (
        strip_channel_metadata("[Telegram Ana (@ana) id:42 +2m 2026-01-01 10:00 UTC] I like tea")
        == "I like tea"
    )
    assert strip_channel_metadata('<channel name="x">meta</channel>I like tea') == "I like tea"


@pytest.mark.parametrize(
    "secret",
    [
        "sk-proj-abcdefghijklmnopqrstuvwxyz123456",
        "AKIAIOSFODNN7EXAMPLE",
        "ghp_" + "a" * 36,
        "xoxb-123456789012-abcdefghij",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ],
)
def test_secrets_never_survive(secret: str) -> None:
    assert secret not in redact_secrets(f"my key is {secret} ok")


def test_assigned_passwords_are_redacted_but_words_kept() -> None:
    text = redact_secrets("The staging password is hunter2x and the api_key: abcd1234")
    assert "hunter2x" not in text and "abcd1234" not in text and text.count(REDACTED) == 2
    assert (
        clean("[Slack #dev] my password=s3cretvalue please remember")
        == f"my password={REDACTED} please remember"
    )


def test_noise() -> None:
    assert (
        is_noise("thanks!") and is_noise("ok cool") and not is_noise("I moved to Berlin last week")
    )


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \n\t ",
        "<agent-experience>old</agent-experience>",
        "[Telegram Ana (@ana) id:42 +2m 2026-01-01 10:00 UTC]   ",
        "sk-proj-abcdefghijklmnopqrstuvwxyz123456",
        "password: hunter22",
        " 4111 1111 1111 1111 ",
        "I like tea",
    ],
)
def test_has_content_answers_as_clean_does_without_redacting(text: str) -> None:
    assert has_content(text) == bool(clean(text))
