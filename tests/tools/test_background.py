"""bash_background / bash_output / bash_kill (issue 26) through the real `flue -p`: a dev-server-like
command is read while it runs, killed, and leaves no process after the run or after kill -9 of
flue; its permissions are bash's."""

from __future__ import annotations

import subprocess
import sys
import threading

from flue_tui.permissions.policy import PermissionPolicy, no_ask_text
from flue_tui.permissions.rules import parse_rules
from flue_tui.sandbox.local import LocalSandbox
from flue_tui.tools.background import BashBackgroundTool, Jobs
from tests.fakellm import Call, Turn
from tests.security.test_orphans import START_TIMEOUT_S, _kill_and_check, _tagged, _wait_for, linux_only, tag  # noqa: F401

SERVER = "echo listening; touch started; while [ ! -e never ]; do sleep 0.2; done"


def _when(path, event: threading.Event) -> threading.Thread:
    """Set `event` once `path` exists (the held turn goes on only when the command has started)."""

    def watch() -> None:
        _wait_for(path.exists, START_TIMEOUT_S)
        event.set()

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


@linux_only
def test_a_dev_server_is_read_while_it_runs_then_killed(fakellm, flue_main, tmp_path, tag):  # noqa: F811
    started = threading.Event()
    command = f"(exec -a {tag}-srv sh -c '{SERVER}')"
    fakellm.script(
        [
            Turn(calls=[Call("bash_background", {"command": command, "description": "dev server"}, id="s")]),
            Turn(text="checking", stall_after=1, hold=started, calls=[Call("bash_output", {"id": "bg1"}, id="o")]),
            Turn(calls=[Call("bash_output", {"id": "bg1"}, id="o2"), Call("bash_kill", {"id": "bg1"}, id="k")]),
            Turn(calls=[Call("bash_output", {"id": "bg1"}, id="o3"), Call("bash_output", {"id": "nope"}, id="bad")]),
            Turn(text="done"),
        ]
    )
    _when(tmp_path / "started", started)
    out = flue_main(
        "-p", "--permission-mode", "yolo", "serve", "--model", "openai/fake", "--output-format", "json", cwd=tmp_path
    )
    assert out.code == 0, out.stderr
    texts = {m["tool_call_id"]: m["content"] for r in fakellm.requests for m in r["messages"] if m["role"] == "tool"}
    assert texts["s"] == "Started in the background. id: bg1\nRead its output with bash_output, stop it with bash_kill."
    assert texts["o"] == "listening\n\n[bg1 running]"
    assert texts["o2"] == "(no new output)\n\n[bg1 running]"
    assert texts["k"] == "Stopped bg1 (exited with code 143)."
    assert texts["o3"] == "(no new output)\n\n[bg1 exited with code 143]"
    assert texts["bad"] == "No background command with id 'nope' (known: bg1)."
    assert _wait_for(lambda: not _tagged(tag), 60), f"still running: {_tagged(tag)}"


@linux_only
def test_the_model_is_told_when_one_ends_and_flue_p_leaves_nothing_running(fakellm, flue_main, tmp_path, tag):  # noqa: F811
    ended = threading.Event()
    fakellm.script(
        [
            Turn(calls=[Call("bash_background", {"command": "echo built; touch ended"}, id="a")]),
            Turn(
                stall_after=0,
                hold=ended,
                calls=[Call("bash_background", {"command": f"(exec -a {tag}-x sleep 600)"}, id="b")],
            ),
            Turn(text="done"),
        ]
    )
    _when(tmp_path / "ended", ended)
    out = flue_main("-p", "--permission-mode", "yolo", "build", "--model", "openai/fake", cwd=tmp_path)
    assert out.code == 0, out.stderr
    texts = {m["tool_call_id"]: m["content"] for r in fakellm.requests for m in r["messages"] if m["role"] == "tool"}
    assert texts["b"].startswith("Started in the background. id: bg2")
    assert texts["b"].endswith("\n\nBackground command bg1 (echo built; touch ended) exited with code 0.")
    assert _wait_for(lambda: not _tagged(tag), 90), f"still running after flue -p ended: {_tagged(tag)}"


@linux_only
def test_kill_9_of_flue_takes_background_commands_along(fakellm, flue_env, tmp_path, tag):  # noqa: F811
    command = f"(exec -a {tag}-bg sleep 600) & (exec -a {tag}-fg sleep 600); wait"
    fakellm.script(
        [
            Turn(calls=[Call("bash_background", {"command": command}, id="b1")]),
            Turn(text="waiting", stall_after=1, hold=threading.Event()),  # never set: flue stays up
        ]
    )
    flue = subprocess.Popen(
        [sys.executable, "-m", "flue_tui", "-p", "--permission-mode", "yolo", "serve", "--model", "openai/fake"],
        cwd=tmp_path,
        env=flue_env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    _kill_and_check(flue, tag)


async def test_permissions_are_bashs(tmp_path):
    tool = BashBackgroundTool(LocalSandbox(str(tmp_path)), Jobs())
    policy = PermissionPolicy(mode="ask", root=str(tmp_path), allow=parse_rules(["bash(npm run dev)"]))

    async def decide(p, command, call_id):
        return await p("bash_background", {"command": command}, tool, call_id)

    assert (await decide(policy, "npm run dev", "c1")).verdict == "allow"
    assert (await decide(policy, "ls -la", "c2")).verdict == "allow"  # read-only
    refused = await decide(policy, "rm -rf x", "c3")
    assert (refused.verdict, refused.reason) == ("deny", no_ask_text("bash", "ask", ["bash(rm *)"]))
    assert [d.tool_name for d in policy.denials] == ["bash_background"]
    deny = PermissionPolicy(mode="yolo", root=str(tmp_path), deny=parse_rules(["bash(rm *)"]))
    assert (await decide(deny, "eval 'rm x'", "c4")).reason == (
        'Permission denied: bash is blocked by the rule "bash(rm *)".'
    )
    plan = PermissionPolicy(mode="plan", root=str(tmp_path))
    assert ((await decide(plan, "npm run dev", "c5")).reason or "").startswith(
        "Permission denied: plan mode is read-only"
    )


async def test_output_stays_bounded(tmp_path):
    jobs = Jobs()
    job = jobs.start(LocalSandbox(str(tmp_path)), "yes line | head -n 300000", "")
    assert job.task is not None
    await job.task
    text = job.take()
    assert text.startswith("[earlier output dropped]\n") and len(text) <= 60 * 1024
    assert job.exit_code == 0 and job.take() == ""
