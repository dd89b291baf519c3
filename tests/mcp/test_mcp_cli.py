"""MCP through the real CLI: `flue -p` with a scripted model calling real servers' tools."""

from __future__ import annotations

import json

from tests.fakellm import Call, Turn
from tests.mcp.conftest import mcp_json, stdio_entry


def _results(request: dict) -> dict[str, str]:
    """tool name -> the tool message's content, for the calls of the previous assistant message."""
    messages = request["messages"]
    names = {}
    for message in messages:
        for call in message.get("tool_calls") or []:
            names[call["id"]] = call["function"]["name"]
    return {names[m["tool_call_id"]]: m["content"] for m in messages if m.get("role") == "tool"}


def test_print_mode_calls_stdio_and_http_servers(fakellm, run_flue, tmp_path, http_server):
    import sys

    from flue_tui.config.files import user_file
    from flue_tui.mcp.cli import main as flue_mcp
    from tests.mcp.conftest import SERVER

    (tmp_path / ".mcp.json").write_text(mcp_json(h={"type": "http", "url": http_server}))
    # The user adds the stdio servers with `flue mcp add`. Only `s` gets a short tool timeout (its
    # table is the file's last), and only its never-ending call meets it: `t`'s tools keep the
    # default 60 s, so a loaded machine cannot push a quick tool past the limit.
    assert flue_mcp(["add", "-e", "FROM_CONFIG=yes", "t", "--", sys.executable, SERVER, "stdio"]) == 0
    assert flue_mcp(["add", "s", "--", sys.executable, SERVER, "stdio"]) == 0
    user_file().write_text(user_file().read_text() + "tool_timeout_sec = 2\n")
    flag = mcp_json(bad=stdio_entry("crash-at-start"))
    fakellm.script(
        [
            Turn(
                calls=[
                    Call("mcp__t__echo", {"text": "hi"}),
                    Call("mcp__h__add", {"a": 2, "b": 40}),
                    Call("mcp__t__env_names"),
                    Call("mcp__t__picture"),
                    Call("mcp__s__slow", {"seconds": 3600}),
                    Call("mcp__t__huge", {"lines": 5000}),
                    Call("mcp__t__weird_name_with_dots"),
                    Call("mcp__t__broken"),
                ]
            ),
            Turn(text="done"),
        ]
    )
    out = run_flue(
        "-p",
        "--permission-mode",
        "yolo",
        "go",
        "--model",
        "openai/fake",
        "--trust-project",
        "--mcp-config",
        flag,
        timeout=180,
    )
    assert out.code == 0, out.stderr
    assert out.stdout == "done\n"
    offered = {t["function"]["name"]: t["function"] for t in fakellm.requests[0]["tools"]}
    assert {"mcp__t__echo", "mcp__h__add", "mcp__t__weird_name_with_dots"} <= set(offered)
    assert offered["mcp__h__add"]["parameters"]["required"] == ["a", "b"]
    assert not any(name.startswith("mcp__bad__") for name in offered)
    results = _results(fakellm.requests[1])
    assert results["mcp__t__echo"] == "echo: hi"
    assert results["mcp__h__add"] == "42"
    names = json.loads(results["mcp__t__env_names"])
    assert "FROM_CONFIG" in names and "PATH" in names
    assert "OPENAI_API_KEY" not in names and "OPENAI_BASE_URL" not in names  # never passed implicitly
    assert results["mcp__t__picture"].startswith("here it is\n[image image/png")
    assert "[resource link readme <file:///readme.md> (text/markdown)]" in results["mcp__t__picture"]
    assert results["mcp__s__slow"] == "MCP tool slow on server s timed out after 2 s"
    huge = results["mcp__t__huge"]
    assert huge.startswith("line 0 ") and len(huge) < 60 * 1024
    assert huge.endswith("[flue] MCP tool output truncated: showed 733 of 5000 lines (limit 2000 lines or 50KB).")
    assert results["mcp__t__weird_name_with_dots"] == "weird ok"
    assert "broken" in results["mcp__t__broken"]
    failed = [line for line in out.stderr.splitlines() if "MCP server bad failed" in line]
    assert len(failed) == 1 and "fatal: cannot open the database /nonexistent" in failed[0]


def test_untrusted_project_servers_do_not_start_and_rules_deny(fakellm, run_flue, tmp_path):
    marker = tmp_path / "started"
    (tmp_path / ".mcp.json").write_text(mcp_json(evil={"command": "sh", "args": ["-c", f"touch {marker}"]}))
    flag = mcp_json(t=stdio_entry())
    fakellm.script(
        [Turn(calls=[Call("mcp__t__echo", {"text": "x"}), Call("mcp__t__add", {"a": 1, "b": 1})]), Turn(text="ok")]
    )
    out = run_flue(
        "-p", "go", "--model", "openai/fake", "--mcp-config", flag, "--disallowed-tools", "mcp__t__*", timeout=180
    )
    assert out.code == 0, out.stderr
    assert not marker.exists()
    assert "Not started from .mcp.json because you have not trusted this project: evil" in out.stderr
    offered = {t["function"]["name"] for t in fakellm.requests[0]["tools"]}
    assert "mcp__t__echo" in offered and not any(n.startswith("mcp__evil") for n in offered)
    results = _results(fakellm.requests[1])
    assert results["mcp__t__echo"] == 'Permission denied: mcp__t__echo is blocked by the rule "mcp__t__*".'
    assert results["mcp__t__add"] == 'Permission denied: mcp__t__add is blocked by the rule "mcp__t__*".'


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended
    except OSError:
        return False


def test_servers_and_their_children_die_with_a_killed_flue(fakellm, flue_env, tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    from tests.mcp.conftest import SERVER

    # The server leaves a child that ignores its closed stdin: only killing the group ends it.
    script = (
        f"sleep 1000 & echo $! > {tmp_path}/child.pid; echo $$ > {tmp_path}/server.pid; "
        f"exec {sys.executable} {SERVER} stdio"
    )
    flag = mcp_json(t={"command": "sh", "args": ["-c", script]})
    fakellm.script([Turn(calls=[Call("mcp__t__slow", {"seconds": 300})]), Turn(text="never")])
    proc = subprocess.Popen(
        [sys.executable, "-m", "flue_tui", "-p", "go", "--model", "openai/fake", "--mcp-config", flag],
        cwd=tmp_path,
        env=flue_env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while not (fakellm.requests and (tmp_path / "child.pid").exists() and (tmp_path / "server.pid").exists()):
            assert time.monotonic() < deadline and proc.poll() is None, "flue never called the tool"
            time.sleep(0.1)
        child, server = (int((tmp_path / f"{n}.pid").read_text()) for n in ("child", "server"))
        assert _alive(child) and _alive(server)
        proc.send_signal(signal.SIGKILL)
        proc.wait(60)
        # Generous, as tests/security/test_orphans.py: the reaper is a fresh interpreter, which starts
        # late on a box running several suites (seen taking longer than 30 s there).
        deadline = time.monotonic() + 90
        while (_alive(child) or _alive(server)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(server) and not _alive(child)
    finally:
        proc.kill()
        for name in ("child", "server"):
            path = tmp_path / f"{name}.pid"
            if path.exists() and _alive(int(path.read_text())):
                os.kill(int(path.read_text()), signal.SIGKILL)
