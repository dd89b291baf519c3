"""redact(): secret environment values never leave in an export."""

from __future__ import annotations

from flue_tui.permissions.secrets import redact, secret_values

ENV = {
    "OPENAI_API_KEY": "sk-live-abcdef123456",
    "GITHUB_TOKEN": "ghp_zzzzzzzzzz",
    "APP_SECRET": "hunter2-long",
    "SHORT_KEY": "abc",
    "HOME": "/home/me",
    "PATH": "/usr/bin",
    "LONG_TOKEN": "ghp_zzzzzzzzzz-extended",
}


def test_values_of_key_token_secret_variables_are_replaced():
    text = "key sk-live-abcdef123456 and ghp_zzzzzzzzzz-extended then ghp_zzzzzzzzzz, pw hunter2-long at /home/me"
    assert redact(text, ENV) == (
        "key [redacted OPENAI_API_KEY] and [redacted LONG_TOKEN] then "
        "[redacted GITHUB_TOKEN], pw [redacted APP_SECRET] at /home/me"
    )


def test_short_values_and_other_names_are_left_alone():
    assert set(secret_values(ENV).values()) == {"OPENAI_API_KEY", "GITHUB_TOKEN", "APP_SECRET", "LONG_TOKEN"}
    assert redact("abc /usr/bin", ENV) == "abc /usr/bin"
    assert redact("nothing here", {}) == "nothing here"
