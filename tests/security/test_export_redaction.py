"""Exports never carry a secret (issue 13, item 8): a value with `"`, `\\`, non-ASCII characters or
a newline is redacted in every form an export writes it (raw, JSON-escaped with and without
ensure_ascii, inside a tool call's raw JSON arguments, in Markdown's quoted thinking)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flue_tui.cli import sessions as sessions_cli
from flue_tui.permissions.secrets import redact
from flue_tui.store.sessions import SessionStore
from tests.store.conftest import result, user

SECRETS = {
    "QUOTE_API_KEY": 'sk-"quoted"-Zq9Xw1',
    "SLASH_TOKEN": "tok\\back\\slash-Yv8Uu2",
    "ACCENT_SECRET": "pässwörd-ключ-秘密-Tt7Ss3",
    "LINES_KEY": "-----BEGIN KEY-----\nMIIBRr6Qq4\n-----END KEY-----",
}
MARKERS = ("Zq9Xw1", "Yv8Uu2", "Tt7Ss3", "MIIBRr6Qq4")  # a piece of each value that must not survive


def every_form(value: str) -> set[str]:
    forms = {value, json.dumps(value)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1]}
    return forms | {json.dumps(f)[1:-1] for f in forms}


@pytest.fixture
def leaked_session(tmp_path: Path, monkeypatch) -> tuple[Path, str]:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    db = tmp_path / "s.db"
    cwd = str(tmp_path)
    with SessionStore.open(db) as store:
        store.create("ses_leak1", cwd=cwd, name="leak", title=f"about {SECRETS['ACCENT_SECRET']}")
        store.append("ses_leak1", user("my keys: " + " ".join(SECRETS.values())))
        raw_args = json.dumps({"command": f"echo {SECRETS['QUOTE_API_KEY']} {SECRETS['SLASH_TOKEN']}"})
        store.append(
            "ses_leak1",
            {
                "role": "assistant",
                "text": "using " + SECRETS["ACCENT_SECRET"],
                "thinking": "the key is\n" + SECRETS["LINES_KEY"],
                "tool_calls": [
                    {"id": "c1", "name": "bash", "arguments": json.loads(raw_args), "raw_arguments": raw_args}
                ],
                "stop_reason": "tool_calls",
                "error": None,
                "model": "openai/fake",
                "usage": None,
            },
        )
        store.append("ses_leak1", result("c1", SECRETS["QUOTE_API_KEY"] + "\n" + SECRETS["LINES_KEY"], name="bash"))
    return db, cwd


@pytest.mark.parametrize("fmt", ["json", "md"])
def test_no_form_of_a_secret_survives_an_export(leaked_session, fmt, capsys):
    db, cwd = leaked_session
    assert sessions_cli.main(["export", "leak", "--format", fmt, "--db", str(db), "--cwd", cwd]) == 0
    out = capsys.readouterr().out
    for marker in MARKERS:
        assert marker not in out
    for value in SECRETS.values():
        for form in every_form(value):
            assert form not in out
    for name in SECRETS:
        assert f"[redacted {name}]" in out
    if fmt == "json":
        json.loads(out)  # still valid JSON after redaction


def test_the_text_filter_also_catches_escaped_forms():
    env = {"X_KEY": 'a"b\\cé-123'}
    for form in every_form(env["X_KEY"]):
        assert redact(f"<{form}>", env) == "<[redacted X_KEY]>"


def test_the_apps_export_command_redacts_too(tmp_path, monkeypatch):
    """/export in the app and inline mode (SessionHandle.export) of a session the store does not hold
    (--no-session-persistence) writes the same Markdown through the same redaction."""
    from flue_tui.core.messages import AssistantMessage, ToolCall, ToolResultMessage, UserMessage, message_to_dict
    from flue_tui.store.export import unsaved_markdown, write_markdown

    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    messages = [
        UserMessage(content="keys: " + " ".join(SECRETS.values())),
        AssistantMessage(
            text=SECRETS["ACCENT_SECRET"],
            stop_reason="tool_calls",
            tool_calls=[
                ToolCall(
                    id="c1",
                    name="bash",
                    arguments={"command": f"echo {SECRETS['QUOTE_API_KEY']} {SECRETS['SLASH_TOKEN']}"},
                )
            ],
        ),
        ToolResultMessage(tool_call_id="c1", tool_name="bash", text=SECRETS["LINES_KEY"]),
    ]
    path = str(tmp_path / "out.md")
    write_markdown(
        path,
        lambda clean: unsaved_markdown(
            "ses_x",
            str(tmp_path),
            "openai/fake",
            "leak " + SECRETS["ACCENT_SECRET"],
            [message_to_dict(m) for m in messages],
            (0, 0, 0, 0, 0.0),
            clean,
        ),
    )
    out = Path(path).read_text(encoding="utf-8")
    for marker in MARKERS:
        assert marker not in out
    for value in SECRETS.values():
        for form in every_form(value):
            assert form not in out
    for name in SECRETS:
        assert f"[redacted {name}]" in out
