"""Rule syntax (`bash`, `Bash(git diff:*)`, `edit(src/*)`) and how commands are split for matching."""

from __future__ import annotations

import pytest

from flue_tui.core.traits import OTHER
from flue_tui.permissions.rules import (
    FILE_PATH,
    Rule,
    RuleError,
    command_prefix,
    matches,
    parse_rule,
    parse_rules,
    session_rules_for,
    split_rule_list,
)
from flue_tui.permissions.shell import SimpleCommand, read_command
from flue_tui.tools.bash import BashTool
from flue_tui.tools.write import WriteTool


def test_parse_rule_forms():
    assert parse_rule("bash") == Rule("bash", None, "bash")
    assert parse_rule("Bash(git diff:*)") == Rule("bash", "git diff:*", "Bash(git diff:*)")
    assert parse_rule(" edit( src/* ) ") == Rule("edit", "src/*", "edit( src/* )")
    assert parse_rule("bash(*)").pattern is None


@pytest.mark.parametrize("bad", ["", "bash(", "bash()", "(git *)", "ba sh", "bash(git *) x"])
def test_malformed_rules_are_refused_by_name(bad):
    with pytest.raises(RuleError, match="Invalid permission rule"):
        parse_rule(bad)


def test_rule_lists_split_on_commas_and_spaces_outside_parentheses():
    assert split_rule_list("read,bash(git *)  Edit, bash(npm run test:*)") == [
        "read",
        "bash(git *)",
        "Edit",
        "bash(npm run test:*)",
    ]
    assert [r.tool for r in parse_rules(["read grep", "glob"])] == ["read", "grep", "glob"]


# The shell parser lists every simple command with its words after quote removal (an expansion
# keeps its text); the order is the parse tree's, outer command first.
@pytest.mark.parametrize(
    ("command", "segments"),
    [
        ("git status", ["git status"]),
        ("git add . && git commit -m 'a; b' || echo failed", ["git add .", "git commit -m a; b", "echo failed"]),
        ('echo "$(rm -rf a; ls)" done', ["echo $(rm -rf a; ls) done", "rm -rf a", "ls"]),
        ("git log `whoami`", ["git log `whoami`", "whoami"]),
        ("(cd sub && make) | tee log", ["cd sub", "make", "tee log"]),
        ("echo 'literal $(not run)'", ["echo literal $(not run)"]),
        ("a\\;b", ["a;b"]),
        ("ls\npwd", ["ls", "pwd"]),
    ],
)
def test_simple_commands(command, segments):
    assert [c.text for c in read_command(command).commands] == segments


BASH = BashTool.traits


def _allowed(rules, command):
    return matches(parse_rules(rules), "bash", {"command": command}, traits=BASH, base="/w", root="/w", deny=False)


def _denied(rules, command):
    return matches(parse_rules(rules), "bash", {"command": command}, traits=BASH, base="/w", root="/w", deny=True)


def test_bash_patterns():
    assert _allowed(["bash(git *)"], "git") and _allowed(["bash(git *)"], "git push -f")
    assert not _allowed(["bash(git *)"], "gitk")
    assert _allowed(["Bash(git diff:*)"], "git diff HEAD") and _allowed(["Bash(git diff:*)"], "git diff")
    assert not _allowed(["Bash(git diff:*)"], "git status")
    assert _allowed(["bash(npm test)"], "npm test") and not _allowed(["bash(npm test)"], "npm test x")
    assert _allowed(["bash(git *)", "bash(ls *)"], "git status && ls -la")  # each part by some rule
    assert not _allowed(["bash(git *)"], "git status | sh")


def test_deny_patterns_see_through_assignments_and_wrappers():
    assert _denied(["bash(rm *)"], "FOO=1 sudo rm -rf x")
    assert _denied(["bash(rm *)"], "echo $(rm x)")
    assert _denied(["bash(rm *)"], "ls; nohup rm -f y")
    assert not _denied(["bash(rm *)"], "echo rm")
    assert _allowed(["bash(rm *)"], "FOO=1 rm x")  # a harmless variable changes nothing
    assert not _allowed(["bash(rm *)"], "LD_PRELOAD=./x.so rm x")  # one that loads code is asked


def test_path_patterns_are_relative_to_the_workspace():
    rules = parse_rules(["edit(src/*)"])
    for path in ("src/a.py", "/w/src/b.py", "./src/c.py"):
        assert matches(rules, "edit", {"path": path}, traits=FILE_PATH, base="/w", root="/w", deny=False)
    assert not matches(rules, "edit", {"path": "src/../../etc/x"}, traits=FILE_PATH, base="/w", root="/w", deny=False)
    assert matches(rules, "edit", {"path": "src/../../etc/x"}, traits=FILE_PATH, base="/w", root="/w", deny=True)
    assert matches(
        parse_rules(["read(/etc/*)"]),
        "read",
        {"path": "/etc/passwd"},
        traits=FILE_PATH,
        base="/w",
        root="/w",
        deny=True,
    )


def test_session_prefixes():
    def prefix(text):
        return command_prefix(SimpleCommand(tuple(text.split())))

    assert prefix("git status --short") == "git status"
    assert prefix("npm run test") == "npm run test"  # was "npm run", which allowed every script
    assert prefix("ls -la /tmp") == "ls"
    assert prefix("echo hello") == "echo"
    assert prefix("git --no-pager log") == "git"
    assert session_rules_for("bash", BASH, {"command": "git add . && git commit -m x && git add y"}) == [
        "bash(git add *)",
        "bash(git commit *)",
    ]
    assert session_rules_for("write", WriteTool.traits, {"path": "x"}) == ["write", "edit"]
    assert session_rules_for("mystery", OTHER, {}) == ["mystery"]
