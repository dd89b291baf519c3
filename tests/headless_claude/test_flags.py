"""Claude Code's flag spellings: parsed in process (no prefix matching, one-line errors, the mode
mapping), --add-dir containment through the real tools, and --session-id through the real CLI."""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

import pytest

from flue_tui.cli.flue import build_parser
from flue_tui.headless.claude.flags import claude_options
from flue_tui.permissions.flags import permission_settings
from flue_tui.permissions.policy import PermissionPolicy
from flue_tui.sandbox.workspace import WorkspaceGuard, WorkspaceSandbox
from flue_tui.tools import builtin_tools
from tests.fakellm import Turn
from tests.permissions.conftest import run_calls


def _parse(*argv: str):
    return build_parser().parse_args(["-p", "x", *argv])


def test_system_prompt_is_not_read_as_system_prompt_file():
    args = _parse("--system-prompt", "You are terse.")
    assert args.system_prompt == "You are terse." and args.system_prompt_file is None
    assert _parse("--system-prompt", "").system_prompt == ""  # the Agent SDK sends this on every call


def test_no_flag_is_matched_by_prefix(capsys):
    with pytest.raises(SystemExit) as exc:
        _parse("--system-prom", "x")
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.count("\n") == 1 and "unrecognized arguments: --system-prom" in err


def test_unknown_flag_is_one_line_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        _parse("--frobnicate")
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err == "flue: error: unrecognized arguments: --frobnicate (see flue --help)\n"


@pytest.mark.parametrize(
    ("argv", "mode"),
    [
        (["--permission-mode", "default"], "ask"),
        (["--permission-mode", "acceptEdits"], "accept-edits"),
        (["--permission-mode", "plan"], "plan"),
        (["--permission-mode", "bypassPermissions"], "yolo"),
        (["--permission-mode", "accept-edits"], "accept-edits"),
        (["--dangerously-skip-permissions"], "yolo"),
        ([], None),
    ],
)
def test_permission_modes_in_either_spelling(argv, mode):
    assert permission_settings(_parse(*argv))["permission_mode"] == mode


def test_the_flags_the_agent_sdk_sends_all_parse(tmp_path):
    args = build_parser().parse_args(
        [
            "--output-format",
            "stream-json",
            "--verbose",
            "--system-prompt",
            "",
            "--tools",
            "Bash,Read",
            "--allowedTools",
            "Bash(git:*),Read",
            "--max-turns",
            "3",
            "--disallowedTools",
            "Write",
            "--model",
            "openai/fake",
            "--fallback-model",
            "openai/other",
            "--permission-prompt-tool",
            "stdio",
            "--permission-mode",
            "acceptEdits",
            f"--session-id={uuid.UUID(int=7)}",
            "--settings",
            '{"model": "x/y"}',
            "--add-dir",
            str(tmp_path),
            "--mcp-config",
            '{"mcpServers": {"docs": {"command": "x"}}}',
            "--include-partial-messages",
            "--strict-mcp-config",
            "--setting-sources=user,project",
            "--max-thinking-tokens",
            "1000",
            "--effort",
            "high",
            "--input-format",
            "stream-json",
        ]
    )
    options, overrides = claude_options(args)
    assert options.tools == {"bash", "read"}
    assert args.mcp_config == ['{"mcpServers": {"docs": {"command": "x"}}}'] and args.strict_mcp_config
    assert options.add_dirs == (str(tmp_path),) and options.setting_sources == ("user", "project")
    assert overrides == {"model": "x/y"} and args.session_id == str(uuid.UUID(int=7))


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--session-id", "not-a-uuid"], "--session-id must be a UUID"),
        (["--tools", "Bash,Teleport"], "--tools: unknown tool 'Teleport'"),
        (["--add-dir", "/no/such/dir"], "--add-dir /no/such/dir: no such directory"),
        (["--settings", "{bad"], "--settings is not valid JSON"),
        (["--permission-prompt-tool", "mcp__x__ask"], "MCP tools are not supported yet"),
        (["--setting-sources", "user,cloud"], "unknown source 'cloud'"),
    ],
)
def test_bad_values_are_one_sentence(argv, message):
    with pytest.raises(ValueError) as exc:
        claude_options(_parse(*argv))
    assert message in str(exc.value)


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path, Path]:
    ws, extra, outside = tmp_path / "ws", tmp_path / "extra", tmp_path / "outside"
    for d in (ws, extra, outside):
        d.mkdir()
    (extra / "lib.txt").write_text("library\n")
    (outside / "secret.txt").write_text("secret\n")
    os.symlink(outside, extra / "out")  # a link from the added directory to outside
    return ws, extra, outside


async def test_add_dir_is_usable_and_contained(dirs):
    ws, extra, outside = dirs
    sandbox = WorkspaceSandbox(str(ws), root=str(ws), extra_roots=(str(extra),))
    policy = PermissionPolicy(mode="yolo", root=str(ws), guard=WorkspaceGuard(str(ws), extra_roots=(str(extra),)))
    escapes = [str(outside / "secret.txt"), str(extra / "out" / "secret.txt"), str(extra / ".." / "outside" / "x")]
    results = await run_calls(
        builtin_tools(sandbox),
        policy,
        ("read", {"path": str(extra / "lib.txt")}),
        ("write", {"path": str(extra / "new.txt"), "content": "n\n"}),
        *(("write", {"path": p, "content": "pwned\n"}) for p in escapes),
    )
    assert results[0].text == "library\n" and not results[1].is_error
    assert (extra / "new.txt").read_text() == "n\n"
    assert [r.text for r in results[2:]] == [f"path escapes workspace boundary: {p}" for p in escapes]
    assert (outside / "secret.txt").read_text() == "secret\n" and not (outside / "x").exists()


async def test_without_add_dir_the_other_directory_is_outside(dirs):
    ws, extra, _ = dirs
    policy = PermissionPolicy(mode="yolo", root=str(ws), guard=WorkspaceGuard(str(ws)))
    [result] = await run_calls(
        builtin_tools(WorkspaceSandbox(str(ws), root=str(ws))), policy, ("read", {"path": str(extra / "lib.txt")})
    )
    assert result.text == f"path escapes workspace boundary: {extra / 'lib.txt'}"


def test_session_id_creates_then_resumes_that_session(fakellm, flue_main):
    sid = str(uuid.uuid4())
    fakellm.script([Turn(text="first"), Turn(text="second")])
    first = json.loads(
        flue_main("-p", "remember 7", "--model", "openai/fake", "--session-id", sid, "--output-format", "json").stdout
    )
    second = json.loads(
        flue_main("-p", "what number?", "--model", "openai/fake", "--session-id", sid, "--output-format", "json").stdout
    )
    assert first["session_id"] == second["session_id"] == sid
    assert [m["content"] for m in fakellm.requests[1]["messages"] if m["role"] == "user"] == [
        "remember 7",
        "what number?",
    ]


def test_setting_sources_choose_which_config_files_are_read(_isolated_home, tmp_path, monkeypatch):
    from flue_tui.config.settings import Settings
    from flue_tui.permissions.config import load_for

    monkeypatch.setenv("OPENAI_API_KEY", "k")
    (_isolated_home / "config.toml").write_text('model = "user/m"\n[permissions]\ndeny = ["bash(rm *)"]\n')
    (tmp_path / ".flue").mkdir()
    (tmp_path / ".flue" / "config.toml").write_text('max_turns = 4\n[permissions]\ndeny = ["bash(curl *)"]\n')

    def read(sources):
        settings = Settings.from_env(cwd=str(tmp_path), setting_sources=sources)
        return settings.model, settings.max_turns, load_for(settings).deny

    assert read(None) == ("user/m", 4, ["bash(rm *)", "bash(curl *)"])
    assert read(("project", "local")) == ("openai/gpt-4.1", 4, ["bash(curl *)"])
    assert read(("user",)) == ("user/m", None, ["bash(rm *)"])


@pytest.mark.parametrize(
    ("tokens", "effort"), [(None, None), (0, "off"), (1024, "low"), (2000, "medium"), (32000, "high")]
)
def test_max_thinking_tokens_maps_to_an_effort(tokens, effort):
    from flue_tui.headless.claude.flags import effort_for_budget

    assert effort_for_budget(tokens) == effort
