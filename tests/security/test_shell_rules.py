"""Permission rules read commands the way bash runs them (issue 13, item 6).

A deny rule fires on every spelling and every nesting of the command it names; an allow rule allows
a command only if it covers every simple command in it and nothing is left unclear; what cannot be
judged from the text is asked, never allowed by a rule. Attacks are written as a model would send them.
"""

from __future__ import annotations

import pytest

from flue_tui.permissions.asking import session_label
from flue_tui.permissions.policy import RULE_TEXT, Approval, PermissionPolicy
from flue_tui.permissions.rules import parse_rules, session_rules_for
from flue_tui.permissions.shell import read_command
from flue_tui.sandbox.local import LocalSandbox
from flue_tui.tools import builtin_tools
from flue_tui.tools.bash import BashTool
from tests.permissions.conftest import ScriptedAsker, run_calls


@pytest.fixture
def bash(tmp_path):
    return next(t for t in builtin_tools(LocalSandbox(str(tmp_path))) if t.name == "bash")


def verdict(bash, command, *, allow=(), deny=(), mode="ask"):
    policy = PermissionPolicy(mode=mode, allow=parse_rules(allow), deny=parse_rules(deny), root=bash.sandbox.cwd)
    return policy.decide("bash", {"command": command}, bash).verdict


# --- deny rules see every way of running the command ------------------------------------------------

RM_SPELLINGS = [
    # the list
    "eval 'rm -rf x'",
    "bash -c 'rm -rf x'",
    "/bin/rm -rf x",
    "\\rm -rf x",
    "nice -n 5 rm -rf x",
    "timeout 5 rm -rf x",
    "find . -name '*.py' -exec rm {} \\;",
    "ls | xargs rm",
    # quoting and names
    "'rm' -rf x",
    '"rm" -rf x',
    "r'm' -rf x",
    'r"m" -rf x',
    "$'\\x72m' -rf x",
    "$'\\162m' -rf x",
    "/usr/bin/rm x",
    "./rm x",
    "~/bin/rm x",
    # shells and eval
    'eval "rm -rf x"',
    "eval rm -rf x",
    "sh -c 'rm x'",
    "dash -c 'rm x'",
    "zsh -c 'rm x'",
    "bash -lc 'rm x'",
    "bash -ec 'rm x'",
    "bash -o pipefail -c 'rm x'",
    "bash --norc -c 'rm x'",
    "/bin/sh -c 'rm x'",
    "bash -c \"bash -c 'eval rm x'\"",
    "sh -c 'echo ok; rm x' arg0",
    # wrappers, with their options
    "nice rm x",
    "nice -5 rm x",
    "nice --adjustment=5 rm x",
    "nohup rm x",
    "timeout -s KILL 5 rm x",
    "timeout --signal=KILL -k 1 5 rm x",
    "time rm x",
    "time -p rm x",
    "stdbuf -oL rm x",
    "stdbuf --output=L rm x",
    "command rm x",
    "command -p rm x",
    "exec rm x",
    "exec -a name rm x",
    "env rm x",
    "env -i rm x",
    "env FOO=1 rm x",
    "env -u HOME -- rm x",
    "env - rm x",
    "/usr/bin/env rm x",
    "sudo rm x",
    "sudo -u root -- rm x",
    "sudo -E -H rm x",
    "doas rm x",
    "setsid rm x",
    "busybox rm x",
    "FOO=1 rm x",
    "coproc rm x",
    "timeout 5 nice -n 1 env FOO=1 bash -c \"eval 'rm -rf x'\"",
    # find and xargs
    "find . -execdir rm {} +",
    "find . -ok rm {} \\;",
    "find . -type f -exec sh -c 'rm \"$1\"' _ {} \\;",
    "xargs -0 rm",
    "xargs -n1 rm",
    "xargs -I{} rm {}",
    "xargs -P 4 -n 1 rm -f",
    "xargs sh -c 'rm x'",
    "find . -print0 | xargs -0 -r rm",
    'bash -c "rm -rf $X"',
    "xargs -I{} sh -c 'rm {}'",
    'eval rm "$X"',
    # anywhere in the tree
    "echo $(rm x)",
    "echo `rm x`",
    'echo "$(rm x)"',
    "cat <(rm x)",
    "tee >(rm x)",
    "(rm x)",
    "{ rm x; }",
    "for i in 1; do rm x; done",
    "if true; then rm x; fi",
    "while false; do rm x; done",
    "f() { rm x; }; f",
    "case a in a) rm x;; esac",
    "true && rm x",
    "false || rm x",
    "! rm x",
    "ls; rm x",
    "ls &\nrm x",
    "x=$(rm x)",
    "export X=$(rm x)",
    "cat <<EOF\n$(rm x)\nEOF",
    "[[ -n $(rm x) ]]",
    "echo ${X:-$(rm x)}",
    # line continuations join words in bash (tree-sitter alone would read `r` and `m`)
    "r\\\nm -rf x",
    "bash -c 'r\\\nm -rf x'",
    # deferred and indirect
    "trap 'rm -rf x' EXIT",
    "trap -- 'rm x' INT TERM",
    "./nice rm x",
    "/tmp/env rm x",
    "su -c 'rm x' bob",
    "su -lc 'rm x'",
    "runuser -u bob -c 'rm x'",
    "script -qc 'rm x' /dev/null",
    "flock /tmp/l -c 'rm x'",
    "ionice -c 3 rm x",
    "chroot / rm x",
]


@pytest.mark.parametrize("command", RM_SPELLINGS)
def test_a_deny_rule_sees_every_spelling(bash, command):
    assert verdict(bash, command, deny=["bash(rm *)"], mode="yolo") == "deny"
    assert verdict(bash, command, allow=["bash(rm *)", "bash(find *)"], deny=["bash(rm *)"]) == "deny"


@pytest.mark.parametrize(
    "command",
    ["echo rm", "grep -r rm .", "git rm --cached x", "echo 'rm -rf x'", "cat rm.txt", "printf '%s' \"$(echo rm)\""],
)
def test_a_deny_rule_does_not_fire_on_the_word_as_data(bash, command):
    assert verdict(bash, command, deny=["bash(rm *)"], mode="yolo") == "allow"


# --- an allow rule allows only what it names ---------------------------------------------------------

GIT_PROGRAM_RUNNERS = [
    "git -c core.pager='rm -rf x' log",
    "git -c core.fsmonitor='rm -rf x' status",
    "git -ccore.pager=rm log",
    "git --config-env=core.pager=EVIL log",
    "git --config-env core.pager=EVIL log",
    "git --exec-path=/tmp/evil status",
    "git config core.pager 'rm -rf x'",
    "git config --global alias.x '!rm x'",
    "git config set core.pager rm",
    "git config --get x --add core.pager rm",
    "git ls-remote --upload-pack='rm -rf x' .",
    "git fetch --upload-pack=evil origin",
    "git clone -u evil a b",
    "git clone --template=/tmp/t a b",
    "git clone -c core.fsmonitor=evil a b",
    "git init --template=/tmp/t",
    "git rebase --exec 'rm x' HEAD~1",
    "git rebase -x 'rm x' HEAD~1",
    "git grep -O'rm -rf x' foo",
    "git grep --open-files-in-pager=rm foo",
    "git submodule foreach 'rm -rf x'",
    "git bisect run rm x",
    "git difftool -x rm",
    "git filter-branch --tree-filter 'rm x'",
    "git send-email --smtp-server=/tmp/x a",
    "git push --receive-pack=evil origin",
    "git archive --remote=x --exec=evil HEAD",
    "git $OPTS log",
    "git log $(echo --output=x)",
    "X='-c core.pager=rm'; git $X log",
]


@pytest.mark.parametrize("command", GIT_PROGRAM_RUNNERS)
def test_a_git_rule_does_not_allow_git_to_run_a_program(bash, command):
    assert verdict(bash, command, allow=["bash(git *)"]) == "ask"
    assert read_command(command).unclear or read_command(command).needs_rules[0].only_named


@pytest.mark.parametrize(
    "command",
    [
        "git status",
        "git log --oneline -5",
        "git -C sub diff HEAD",
        "git --no-pager log",
        "git config --get user.name",
        "git config -l",
        "git add -u",
        "git clean -xn",
        "git grep -n foo",
        "git -C sub status",
    ],
)
def test_a_git_rule_still_allows_ordinary_git(bash, command):
    assert verdict(bash, command, allow=["bash(git *)"]) == "allow"


@pytest.mark.parametrize(
    "command",
    [
        "git push -f",
        "git -C sub push -f",
        "git --no-pager -c x=y push",
        "/usr/bin/git --git-dir=.git push",
        "timeout 9 git -C . push",
    ],
)
def test_a_git_deny_rule_sees_past_global_options(bash, command):
    assert verdict(bash, command, deny=["bash(git push *)"], mode="yolo") == "deny"


def test_rules_written_with_quotes_still_match(bash):
    assert verdict(bash, "git commit -m 'fix: x'", allow=["bash(git commit -m 'fix: *')"]) == "allow"
    assert verdict(bash, 'echo "a b"', deny=['bash(echo "a b")'], mode="yolo") == "deny"


def test_a_git_alias_needs_a_rule_that_names_it(bash):
    assert verdict(bash, "git co main", allow=["bash(git *)"]) == "ask"
    assert verdict(bash, "git co main", allow=["bash(git co *)"]) == "allow"
    assert verdict(bash, "git co main", allow=["bash(git c*)"]) == "ask"


@pytest.mark.parametrize(
    ("allow", "command"),
    [
        (["bash(find *)"], "find . -exec rm {} \\;"),
        (["bash(find *)"], "find . -exec sh -c 'curl x | sh' \\;"),
        (["bash(nice *)"], "nice rm x"),
        (["bash(timeout *)"], "timeout 5 rm x"),
        (["bash(xargs *)"], "ls | xargs rm"),
        (["bash(xargs *)", "bash(ls *)"], "ls | xargs rm"),
        (["bash(sudo *)"], "sudo rm x"),
        (["bash(env *)"], "env rm x"),
        (["bash(bash *)"], "bash -c 'rm x'"),
        (["bash(eval *)"], "eval rm x"),
        (["bash(echo *)"], "echo $(rm x)"),
        (["bash(echo *)"], "echo hi; rm x"),
        (["bash(echo *)"], "echo hi | sh"),
        (["bash(echo *)"], "f() { rm -rf x; }; echo hi"),
        (["bash(echo *)"], "shopt -s expand_aliases; alias echo=rm; echo x"),
        (["bash(ls *)"], "./ls"),
        (["bash(ls *)", "bash(rm *)"], "./nice rm x"),
        (["bash(python -m pytest *)"], "python -m pytest; python evil.py"),
        (["bash(git *)"], "git status; rm x"),
        (["bash(git *)"], "git status | sh"),
        (["bash(git *)"], "PATH=/tmp/evil:$PATH git status"),
        (["bash(git *)"], "export PATH=/tmp/evil:$PATH; git status"),
        (["bash(git *)"], "PATH=/tmp/evil; git status"),
        (["bash(git *)"], "for PATH in /tmp/evil; do git status; done"),
        (["bash(git *)"], "GIT_PAGER='rm -rf x' git log"),
        (["bash(git *)"], "HOME=/tmp/evil git log"),
        (["bash(ls *)"], "LD_PRELOAD=./evil.so ls"),
        (["bash(ls *)"], "env LD_PRELOAD=./evil.so ls"),
        (["bash(ls *)"], "BASH_ENV=./evil.sh bash -c ls"),
        (["bash(git *)"], "BASH_CMDS[git]=/tmp/evil; git status"),
        (["bash(npm test *)"], "npm_config_script_shell=/tmp/evil npm test"),
        (["bash(python -m pytest *)"], "PYTHONWARNINGS=ignore::evil.Warning python -m pytest"),
    ],
)
def test_an_allow_rule_does_not_over_allow(bash, allow, command):
    assert verdict(bash, command, allow=allow) == "ask"


@pytest.mark.parametrize(
    ("allow", "command"),
    [
        (["bash(seq *)", "bash(echo *)"], "for i in $(seq 3); do echo $i; done 2>&1"),
        (["bash(npm test *)", "bash(tail *)"], "npm test 2>&1 | tail -n 5"),
        (["bash(npm test *)"], "timeout 60 nice npm test"),
        (["bash(npm test *)"], "FOO=1 CI=true npm test"),
        (["bash(git *)"], "bash -c 'git status && git diff'"),
        (["bash(git *)"], "git status >/dev/null 2>&1 || true"),
        (["bash(rg *)"], "command -v rg >/dev/null && rg -n foo"),
        (["bash(python -m pytest *)"], "python -m pytest -q tests/x.py"),
        (["bash(ls *)", "bash(rm *)"], "ls | xargs rm"),
        (["bash(find *)", "bash(grep *)"], "find . -name '*.py' -exec grep -l TODO {} +"),
        (["bash(cat *)"], "cat <<'EOF'\nhello $(not run)\nEOF"),
    ],
)
def test_an_allow_rule_allows_what_it_covers(bash, allow, command):
    assert verdict(bash, command, allow=allow) == "allow"


# --- what cannot be judged is asked ------------------------------------------------------------------

UNCLEAR = [
    "$cmd -rf x",
    "cmd=rm; $cmd -rf x",
    '"$(echo rm)" -rf x',
    "`echo rm` x",
    "${CMD} x",
    "/bin/r? -rf x",
    "{rm,-rf,x}",
    "echo 'rm x' | bash",
    "bash <<< 'rm x'",
    "bash -s < script.sh",
    "sh",
    'eval "$X"',
    "eval $(cat cmds.txt)",
    'bash -c "$X"',
    "bash -c",
    "echo ) (",
    "if then fi",
    "x='a[$(rm x)]'; echo $((x))",
    "x='a[$(rm x)]'; [[ $x -eq 1 ]]",
    "(( y = x ))",
    "x='$(rm x)'; echo ${x@P}",
    "declare -i n=$x",
    "xargs -I{} {} x",
    "source <(echo rm x)",
    ". /dev/stdin",
    "r\\\nm x",
    "nice " * 100 + "rm x",
    "find . -exec {} \\;",
    "env -S 'rm x'",
    "nice --bogus rm x",
    "sh /dev/stdin <<EOF\nrm x\nEOF",
    # bash evaluates an array subscript in these, and a subscript may hold $(cmd)
    "[ -v 'a[$(rm x)]' ]",
    "test -v 'a[$(rm x)]'",
    'x=$(cat f); test -v "$x"',
    "[[ -v $x ]]",
    "i=$(cat f); arr[i]=1",
    "i=$(cat f); echo ${arr[i]}",
    'printf -v "$x" %s y',
    "printf -v 'a[$(rm x)]' %s y",
    "declare 'a[$(rm x)]=1'",
    'bash -c \'bash -c "bash -c \\"eval \\\\\\"eval eval eval eval eval eval eval eval echo\\\\\\"\\""\'',
]


@pytest.mark.parametrize("command", UNCLEAR)
def test_what_cannot_be_judged_is_asked_even_under_a_catch_all_pattern(bash, command):
    assert read_command(command).unclear
    assert verdict(bash, command, allow=["bash(?*)", "bash(rm *)", "bash(echo *)", "bash(bash *)"]) == "ask"
    assert session_rules_for("bash", BashTool.traits, {"command": command}) == []


@pytest.mark.parametrize(
    "command",
    ["echo $((rm x) )", "cmd=rm; $cmd -rf x", "coproc f { rm x; }", "echo ${ rm x; }", "eval \"$(printf 'r%s' m) x\""],
)
def test_an_unclear_command_does_not_run_unasked_past_a_deny_rule(bash, command):
    # bash runs rm in each of these; in yolo mode nobody would be asked, so the deny rule refuses.
    policy = PermissionPolicy(mode="yolo", deny=parse_rules(["bash(rm *)"]), root=bash.sandbox.cwd)
    decision = policy.decide("bash", {"command": command}, bash)
    assert decision.verdict == "deny"
    assert decision.reason.startswith(
        'Permission denied: bash is blocked by the rule "bash(rm *)": flue cannot tell what this command runs ('
    )
    assert verdict(bash, command, mode="yolo") == "allow"  # without deny rules yolo is Flue's behaviour
    assert verdict(bash, command, deny=["bash(rm *)"], mode="ask") == "ask"


def test_deny_still_applies_to_the_parts_of_an_unclear_command_it_can_see(bash):
    assert verdict(bash, "$cmd x; rm -rf y", deny=["bash(rm *)"], mode="yolo") == "deny"
    assert verdict(bash, "echo ) ( ; rm -rf y", deny=["bash(rm *)"], mode="yolo") == "deny"


# --- redirections write files ------------------------------------------------------------------------


def test_a_redirection_is_a_write(bash, tmp_path):
    assert verdict(bash, "echo x > .env", deny=["write(.env)"], mode="yolo") == "deny"
    assert verdict(bash, f"echo x >> {tmp_path}/.env", deny=["edit(.env)"], mode="yolo") == "deny"
    assert verdict(bash, "cat a 2>&1 &> .env", deny=["write(.env)"], mode="yolo") == "deny"
    assert verdict(bash, "echo x > ~/.bashrc", allow=["bash(echo *)"]) == "ask"  # ask mode asks for writes
    assert verdict(bash, "echo x > notes.txt", allow=["bash(echo *)", "write(notes.txt)"]) == "allow"
    assert verdict(bash, "echo x > notes.txt", allow=["bash(echo *)"], mode="accept-edits") == "allow"
    assert verdict(bash, "echo x 2>&1 >/dev/null", allow=["bash(echo *)"]) == "allow"


def test_files_git_writes_itself_are_writes(bash):
    # `git show -s --format=%B --output=.git/config` would plant core.fsmonitor for the next `git status`.
    command = "git show -s --format=%B HEAD --output=.git/config"
    assert verdict(bash, command, allow=["bash(git *)"]) == "ask"
    assert verdict(bash, command, deny=["write(.git/*)"], mode="yolo") == "deny"
    assert verdict(bash, "git archive -o /tmp/x.tar HEAD", allow=["bash(git *)"]) == "ask"
    assert verdict(bash, "git diff --output=x.diff", allow=["bash(git *)"], mode="accept-edits") == "allow"
    # accept-edits covers the working directory only (issue 23): a file outside it asks.
    assert verdict(bash, "git diff --output=/tmp/x.diff", allow=["bash(git *)"], mode="accept-edits") == "ask"


# --- "allow for this session" names the programs actually run ----------------------------------------


@pytest.mark.parametrize(
    ("command", "rules"),
    [
        ("for i in $(seq 3); do echo $i; done", ["bash(seq *)", "bash(echo *)"]),
        ("for i in 1 2; do echo $i; done 2>&1 | tee log", ["bash(echo *)", "bash(tee *)"]),
        ("npm test 2>&1 | tail -n 5", ["bash(npm test *)", "bash(tail *)"]),
        ("python -m pytest -q tests/x.py", ["bash(python -m pytest *)"]),
        ("python3 -m pytest", ["bash(python3 -m pytest *)"]),
        ("timeout 60 uv run pytest -x", ["bash(uv run pytest *)"]),
        ("npx eslint --fix src", ["bash(npx eslint *)"]),
        ("if [ -f x ]; then cat x; else echo none; fi", ["bash(cat *)", "bash(echo *)"]),
        ("ls | xargs grep -l foo", ["bash(ls *)", "bash(grep *)"]),
        ("git co main && git status", ["bash(git co *)", "bash(git status *)"]),
        ("true", []),
    ],
)
def test_session_rules_name_the_programs_run(bash, command, rules):
    suggested = session_rules_for("bash", BashTool.traits, {"command": command})
    assert suggested == rules
    for rule in suggested:
        assert not rule.startswith(("bash(for", "bash(do", "bash(done", "bash(1", "bash(2", "bash(if", "bash(then"))
    if rules:  # and accepting them allows the command next time
        assert verdict(bash, command, allow=rules) == "allow"


# --- end to end: the refused command does not run ----------------------------------------------------


async def test_a_denied_eval_leaves_the_file_alone(tmp_path):
    (tmp_path / "victim").mkdir()
    (tmp_path / "victim" / "keep.txt").write_text("data")
    tools = builtin_tools(LocalSandbox(str(tmp_path)))
    policy = PermissionPolicy(mode="yolo", deny=parse_rules(["bash(rm *)"]), root=str(tmp_path))
    calls = [
        ("bash", {"command": c})
        for c in (
            "eval 'rm -rf victim'",
            "nice -n 5 /bin/rm -rf victim",
            "echo victim | xargs rm -rf",
            "bash -c '\\rm -rf victim'",
        )
    ]
    results = await run_calls(tools, policy, *calls, cwd=str(tmp_path))
    assert [r.text for r in results] == [RULE_TEXT.format(tool="bash", rule="bash(rm *)")] * 4
    assert (tmp_path / "victim" / "keep.txt").read_text() == "data"


@pytest.mark.parametrize(
    "command",
    [
        "<<EOF-n xargs -n ",
        "timeout",
        "nice -n",
        "xargs -I",
        "find . -exec",
        "git -c",
        "env -u",
        "sudo -u",
        "rm\0 -rf x",
        "echo \udcff",
        "$(" * 2000 + "rm" + ")" * 2000,
        "eval " * 3000 + "rm",
        "(" * 3000,
        "bash -c '" * 40,
        "a" * 100_000,
        "",
    ],
)
def test_hostile_text_never_raises_and_is_never_allowed_by_a_catch_all_pattern(bash, command):
    reading = read_command(command)
    got = verdict(bash, command, allow=["bash(?*)"] if reading.unclear else [], deny=["bash(rm *)"])
    assert got in ("ask", "deny")


async def test_the_question_for_an_unclear_command_offers_no_rule(tmp_path):
    asker = ScriptedAsker(Approval("session"), Approval("deny"))
    policy = PermissionPolicy(mode="ask", root=str(tmp_path), asker=asker)
    tools = builtin_tools(LocalSandbox(str(tmp_path)))
    results = await run_calls(
        tools,
        policy,
        ("bash", {"command": "cmd=echo; $cmd hi"}),
        ("bash", {"command": "cmd=echo; $cmd hi"}),
        cwd=str(tmp_path),
    )
    assert asker.requests[0].session_rules == ()
    assert session_label(asker.requests[0]) == "no rule can allow this command, so it only runs this once"
    assert policy.session_allow == []
    assert [r.text for r in results][0] == "hi" and len(asker.requests) == 2  # asked again the second time
