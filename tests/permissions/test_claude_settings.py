"""Claude Code's `permissions` in `.claude/settings.json`, `.claude/settings.local.json` and
`~/.claude/settings.json` (issue 42): read as Claude Code reads them, through the real `flue -p`,
asserted on the tool results the model gets. A project's deny and ask rules always apply; its
allow rules, directories and a looser defaultMode only once the project is trusted."""

from __future__ import annotations

import json
import os
from pathlib import Path

from flue_tui.config import trust
from flue_tui.permissions.policy import ASK_RULE_TEXT, RULE_TEXT, no_ask_text
from tests.fakellm import Call, Turn

PROJECT = {
    "permissions": {
        "deny": ["Read(./src/secret.py)", "Bash(git diff:*)"],
        "allow": ["Bash(rm:*)"],
        "defaultMode": "acceptEdits",
    }
}
CALLS = [
    Call("read", {"path": "src/secret.py"}, id="r1"),
    Call("bash", {"command": "git diff --stat"}, id="b1"),
    Call("bash", {"command": "rm junk.txt"}, id="b2"),
    Call("write", {"path": "new.txt", "content": "x"}, id="w1"),
]


def _repo(tmp_path: Path, settings: dict, name: str = "settings.json") -> Path:
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True, exist_ok=True)
    (repo / "src" / "secret.py").write_text("TOKEN = 'hunter2'\n")
    (repo / "junk.txt").write_text("junk\n")
    (repo / ".claude").mkdir(exist_ok=True)
    (repo / ".claude" / name).write_text(json.dumps(settings))
    return repo


def _user_mode(mode: str) -> None:
    """The user's own floor, so the tests hold whatever `flue -p`'s default mode is."""
    config = Path(os.environ["FLUE_HOME"]) / "config.toml"
    config.write_text(f'[permissions]\nmode = "{mode}"\n')


def _user_claude(settings: dict | bytes) -> Path:
    path = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(settings if isinstance(settings, bytes) else json.dumps(settings).encode())
    return path


def _run(fakellm, flue_main, cwd: Path, calls: list[Call], *flags: str):
    fakellm.script([Turn(calls=calls), Turn(text="done")])
    out = flue_main("-p", "go", "--model", "openai/fake", *flags, cwd=cwd)
    assert out.code == 0, out.stderr
    results = {m["tool_call_id"]: m["content"] for m in fakellm.requests[1]["messages"] if m["role"] == "tool"}
    return out, results


def test_a_cloned_repositorys_denies_apply_its_allow_and_mode_wait_for_trust(fakellm, flue_main, tmp_path):
    _user_mode("ask")
    repo = _repo(tmp_path, PROJECT)
    out, results = _run(fakellm, flue_main, repo, CALLS)
    assert results["r1"] == RULE_TEXT.format(tool="read", rule="Read(./src/secret.py)")
    assert results["b1"] == RULE_TEXT.format(tool="bash", rule="Bash(git diff:*)")
    assert results["b2"] == no_ask_text("bash", "ask", ["bash(rm *)"])  # its allow rule is held
    assert results["w1"] == no_ask_text("write", "ask", ["write", "edit"])  # and its acceptEdits
    assert (repo / "junk.txt").exists() and not (repo / "new.txt").exists()
    assert (
        "Ignored from .claude/settings.json because you have not trusted this project: "
        "permissions.defaultMode, permissions.allow (trust it by answering yes when flue asks, "
        "with flue trust, or with --trust-project)."
    ) in out.stderr.splitlines(), out.stderr

    trust.grant(repo, {".claude/settings.json": None})  # what answering yes stores
    out, results = _run(fakellm, flue_main, repo, CALLS)
    assert results["r1"] == RULE_TEXT.format(tool="read", rule="Read(./src/secret.py)")
    assert results["b1"] == RULE_TEXT.format(tool="bash", rule="Bash(git diff:*)")
    assert not (repo / "junk.txt").exists()  # Bash(rm:*) now allows it
    assert (repo / "new.txt").read_text() == "x"  # acceptEdits now applies
    assert "Ignored from .claude/settings.json" not in out.stderr


def test_trust_lapses_when_the_settings_file_changes(fakellm, flue_main, tmp_path):
    _user_mode("ask")
    repo = _repo(tmp_path, PROJECT)
    trust.grant(repo, {".claude/settings.json": None})
    (repo / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"allow": ["Bash"]}}))
    out, results = _run(fakellm, flue_main, repo, [Call("bash", {"command": "rm junk.txt"}, id="b2")])
    assert results["b2"] == no_ask_text("bash", "ask", ["bash(rm *)"])
    assert "Ignored from .claude/settings.json because it changed since you trusted this project" in out.stderr


def test_the_trust_question_names_the_held_settings_and_trusting_grants_that_file(tmp_path):
    from flue_tui.config.settings import Settings
    from flue_tui.permissions.project import pending

    _user_mode("ask")
    repo = _repo(tmp_path, PROJECT, "settings.local.json")
    asked = pending(Settings.from_env(cwd=str(repo), model="openai/fake"))
    assert asked is not None
    assert dict(asked.files).keys() == {".claude/settings.local.json"}
    assert [h.detail for h in asked.held] == [
        '.claude/settings.local.json: permissions.defaultMode "acceptEdits" (instead of "ask")',
        '.claude/settings.local.json: permissions.allow ["Bash(rm:*)"]',
    ]


def test_a_project_never_switches_approvals_off_trusted_or_not(fakellm, flue_main, tmp_path):
    _user_mode("ask")
    repo = _repo(tmp_path, {"permissions": {"defaultMode": "bypassPermissions"}})
    out, results = _run(fakellm, flue_main, repo, [CALLS[3]], "--trust-project")
    assert results["w1"] == no_ask_text("write", "ask", ["write", "edit"])
    assert 'Ignored from .claude/settings.json: permissions.defaultMode "bypassPermissions"' in out.stderr


def test_the_users_claude_settings_apply_and_edit_covers_write(fakellm, flue_main, tmp_path):
    _user_claude({"permissions": {"deny": ["Edit(src/**)"], "allow": ["Bash(touch:*)"], "ask": ["Read(~/notes.txt)"]}})
    repo = _repo(tmp_path, {})
    home = Path(os.environ["HOME"])
    calls = [
        Call("write", {"path": "src/new.py", "content": "x"}, id="w1"),
        Call("bash", {"command": "touch made"}, id="b1"),
        Call("read", {"path": str(home / "notes.txt")}, id="r1"),
    ]
    _out, results = _run(fakellm, flue_main, repo, calls, "--permission-mode", "ask")
    assert results["w1"] == RULE_TEXT.format(tool="write", rule="Edit(src/**)")
    assert (repo / "made").exists() and not (repo / "src" / "new.py").exists()
    # An ask rule asks in every mode, yolo too: in print mode nobody answers, so it is refused.
    _out, results = _run(fakellm, flue_main, repo, calls[2:], "--permission-mode", "yolo")
    assert results["r1"] == ASK_RULE_TEXT.format(tool="read", rule="Read(~/notes.txt)")


def test_a_rule_flue_cannot_map_is_one_sentence_never_an_allow(fakellm, flue_main, tmp_path):
    settings = {"permissions": {"deny": ["WebFetch(domain:example.com)"], "allow": ["Skill(deploy *)", "Bash(rm:*)"]}}
    repo = _repo(tmp_path, settings)
    out, _results = _run(fakellm, flue_main, repo, [CALLS[2]], "--permission-mode", "ask", "--trust-project")
    path = repo / ".claude" / "settings.json"
    lines = out.stderr.splitlines()
    assert (
        lines.count(
            f'{path}: The permission rule "WebFetch(domain:example.com)" names WebFetch, a tool flue does not '
            "have; it is not applied."
        )
        == 1
    ), out.stderr
    assert (
        lines.count(
            f'{path}: The permission rule "Skill(deploy *)" gives Skill a pattern, which flue cannot match for '
            "that tool; it is not applied."
        )
        == 1
    ), out.stderr
    assert not (repo / "junk.txt").exists()  # the rules it could map still apply


def test_settings_flag_maps_claude_paths_too(fakellm, flue_main, tmp_path):
    repo = _repo(tmp_path, {})
    flag = json.dumps({"permissions": {"deny": ["Read(./src/secret.py)"]}})
    _out, results = _run(fakellm, flue_main, repo, [CALLS[0]], "--permission-mode", "yolo", "--settings", flag)
    assert results["r1"] == RULE_TEXT.format(tool="read", rule="Read(./src/secret.py)")


def test_permissions_shows_each_rule_with_its_file(tmp_path):
    from flue_tui.config.settings import Settings
    from flue_tui.permissions.config import build_policy, load_for
    from flue_tui.ui.permissions_text import describe

    user = _user_claude({"permissions": {"ask": ["Bash(git push:*)"]}})
    repo = _repo(tmp_path, PROJECT)
    settings = Settings.from_env(cwd=str(repo), model="openai/fake", permission_mode="ask")
    text = describe(build_policy(settings, load_for(settings)), settings)
    project = repo / ".claude" / "settings.json"
    assert f"  Read(./src/secret.py)  — {project}" in text.splitlines()  # once, though it is three rules
    assert f"  Bash(git diff:*)  — {project}" in text.splitlines()
    assert f"  Bash(git push:*)  — {user}" in text.splitlines()
    assert '.claude/settings.json: permissions.allow ["Bash(rm:*)"]' in text  # held back, listed


def test_path_anchors_follow_claude_code(tmp_path):
    from flue_tui.permissions.claude import map_rule

    root, cwd, home = "/r[1]", "/w", os.path.expanduser("~")
    assert [r.pattern for r in map_rule("Read(//etc/passwd)", root, cwd)] == ["/etc/passwd"] * 3  # type: ignore[union-attr]
    assert {r.pattern for r in map_rule("Edit(/src/**)", root, cwd)} == {"/r[[]1]/src/**"}  # type: ignore[union-attr]
    assert {r.pattern for r in map_rule("Edit(~/.bashrc)", root, cwd)} == {f"{home}/.bashrc"}  # type: ignore[union-attr]
    assert {r.pattern for r in map_rule("Read(.env)", root, cwd)} == {"/w/.env", "/w/*/.env"}  # type: ignore[union-attr]
    assert {r.tool for r in map_rule("Read(x)", root, cwd)} == {"read", "grep", "glob"}  # type: ignore[union-attr]
    assert {(r.tool, r.pattern) for r in map_rule("mcp__github__create_issue", root, cwd)} == {  # type: ignore[union-attr]
        ("mcp__github__create_issue", None)
    }
