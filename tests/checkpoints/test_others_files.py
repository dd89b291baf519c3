"""Issue 42: a rewind never removes what another session wrote. Two (or four) sessions run in one
workspace at once; a file another session wrote while this session's turn ran used to land in the
turn's end snapshot and count as "left by this session's turns", so `flue sessions rewind --code`
removed it without a word. A file is the session's only when its own tool calls wrote it."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

from flue_tui.agent.seams import Seams
from tests.fakellm import Call, Turn

MODEL = ("--model", "openai/fake", "--permission-mode", "yolo")  # the calls must run unasked
WAIT_S = 180  # a loaded 2-core machine: a fresh interpreter imports litellm in tens of seconds


def _start(ws: Path, env: dict[str, str], prompt: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "flue_tui", "-p", prompt, *MODEL, "--output-format", "json"],
        cwd=ws, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def _finish(proc: subprocess.Popen[str]) -> str:
    out, err = proc.communicate(timeout=WAIT_S)
    assert proc.returncode == 0, err
    return json.loads(out.splitlines()[-1])["session_id"]


def _until(what, condition) -> None:
    end = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < end, f"never: {what}"
        time.sleep(0.02)


def _write(path: str, text: str) -> Call:
    return Call("write", {"path": path, "content": text})


def _named(stderr: str) -> list[str]:
    """The files a refused rewind names (its sentence: '...did not leave (...): a, b. Run it again...')."""
    assert "Nothing was changed" in stderr, stderr
    listed = stderr.split("(another session's, or edits since): ", 1)[1].split(". Run it again", 1)[0]
    return sorted(listed.split(", "))


def test_a_file_another_session_wrote_during_this_sessions_turn_is_named_not_removed(
    fakellm, flue_env, flue_main, tmp_path
):
    """Session A writes a.txt, then its turn is held open (its last reply stalls); session B writes
    b.txt meanwhile. Before: A's turn-end snapshot held b.txt, so rewinding A removed both."""
    ws = tmp_path / "ws"
    ws.mkdir()
    hold = threading.Event()
    fakellm.script(
        [
            Turn(match="job A", calls=[_write("a.txt", "A's\n")]),
            Turn(match="job A", text="A done", stall_after=0, hold=hold),
            Turn(match="job B", calls=[_write("b.txt", "B's\n")]),
            Turn(match="job B", text="B done"),
        ]
    )
    a = _start(ws, flue_env, "job A")
    try:
        _until("A's second request", lambda: len(fakellm.requests) >= 2)  # a.txt written, A's turn held
        b = flue_main("-p", "job B", *MODEL, "--output-format", "json", cwd=ws)
        assert b.code == 0, b.stderr
        sid_b = json.loads(b.stdout.splitlines()[-1])["session_id"]
    finally:
        hold.set()
    sid_a = _finish(a)
    refused = flue_main("sessions", "rewind", sid_a, "--to", "1", "--code", cwd=ws)
    assert refused.code == 1 and "--force" in refused.stderr, refused.stderr
    assert _named(refused.stderr) == ["b.txt"]  # A's own a.txt is not asked about
    assert (ws / "a.txt").read_text() == "A's\n" and (ws / "b.txt").read_text() == "B's\n"
    # B's rewind is B's own: its checkpoint already held a.txt, and b.txt is B's write.
    done = flue_main("sessions", "rewind", sid_b, "--to", "1", "--code", cwd=ws)
    assert done.code == 0, done.stderr
    assert not (ws / "b.txt").exists() and (ws / "a.txt").read_text() == "A's\n"


def test_a_file_another_session_wrote_while_this_sessions_command_ran_is_named(fakellm, flue_env, flue_main, tmp_path):
    """A's bash command waits for b.txt, which session B writes, then writes a.txt. Both changed
    while A's command ran; b.txt is also B's own write, so it is not provably A's: named. B's rewind
    names a.txt, which only A's command can have written."""
    ws = tmp_path / "ws"
    ws.mkdir()
    wait = "touch started.txt; for i in $(seq 1 3000); do [ -e b.txt ] && break; sleep 0.05; done; echo a > a.txt"
    fakellm.script(
        [
            Turn(match="job A", calls=[Call("bash", {"command": wait})]),
            Turn(match="job A", text="A done"),
            Turn(match="job B", calls=[_write("b.txt", "B's\n")]),
            Turn(match="job B", text="B done"),
        ]
    )
    a = _start(ws, flue_env, "job A")
    try:
        _until("A's command running", (ws / "started.txt").exists)
        b = flue_main("-p", "job B", *MODEL, "--output-format", "json", cwd=ws)
        assert b.code == 0, b.stderr
        sid_b = json.loads(b.stdout.splitlines()[-1])["session_id"]
    finally:
        if a.poll() is None and not (ws / "b.txt").exists():
            (ws / "b.txt").write_text("let A's command end\n")
    sid_a = _finish(a)
    assert (ws / "a.txt").read_text() == "a\n"
    refused = flue_main("sessions", "rewind", sid_a, "--to", "1", "--code", cwd=ws)
    assert refused.code == 1 and _named(refused.stderr) == ["b.txt"], refused.stderr
    refused = flue_main("sessions", "rewind", sid_b, "--to", "1", "--code", cwd=ws)
    assert refused.code == 1 and _named(refused.stderr) == ["a.txt"], refused.stderr
    assert sorted(p.name for p in ws.iterdir()) == ["a.txt", "b.txt", "started.txt"]
    # A's rewind with --force replaces b.txt too (it was asked); --undo puts it back.
    assert flue_main("sessions", "rewind", sid_a, "--to", "1", "--code", "--force", cwd=ws).code == 0
    assert sorted(p.name for p in ws.iterdir()) == []
    assert flue_main("sessions", "rewind", sid_a, "--undo", cwd=ws).code == 0
    assert (ws / "b.txt").read_text() == "B's\n" and (ws / "a.txt").read_text() == "a\n"


def test_four_concurrent_runs_each_rewind_removes_only_its_own_files(fakellm, flue_env, flue_main, tmp_path):
    """Issue 42's scene, modest: four `flue -p` processes in one workspace, two writing with
    `write`, two with `bash`; every run's turn ends only once all four have written (a barrier on
    the replies that follow). Then each session is rewound to message 1: no rewind removes a file
    another session wrote. One whose own file another's command also saw may name it (stopping is
    the safe side); it never removes what it did not write."""
    ws = tmp_path / "ws"
    ws.mkdir()
    turns = []
    for k in range(4):
        call = _write(f"f{k}.txt", f"{k}\n") if k < 2 else Call("bash", {"command": f"printf '{k}\\n' > f{k}.txt"})
        turns += [Turn(match=f"job {k}", calls=[call]), Turn(match=f"job {k}", text="done", barrier="ends")]
    fakellm.script(turns)
    procs = [_start(ws, flue_env, f"job {k}") for k in range(4)]
    sids = [_finish(p) for p in procs]
    assert sorted(p.name for p in ws.iterdir()) == [f"f{k}.txt" for k in range(4)]
    gone: set[str] = set()  # removed by their own session's rewind
    for k, sid in enumerate(sids):
        mine = f"f{k}.txt"
        out = flue_main("sessions", "rewind", sid, "--to", "1", "--code", cwd=ws)
        left = {p.name for p in ws.iterdir()}
        if out.code == 0:
            gone |= {mine} - left
        else:
            named = set(_named(out.stderr))
            assert named <= {f"f{j}.txt" for j in range(4)} - gone, (k, out.stderr)
            if k < 2:  # written by its own `write`: never its own doubt, however many commands saw it
                assert mine not in named, (k, out.stderr)
        assert left >= {f"f{j}.txt" for j in range(4)} - gone - {mine}, (k, out.stdout, out.stderr)
        for name in left:
            assert (ws / name).read_text() == name[1:2] + "\n"


def test_what_a_task_child_writes_is_its_root_sessions_own(fakellm, flue_main, tmp_path):
    """A task child's calls are watched for its root session (the child takes its watch), so the
    root's rewind removes the child's files without asking, and still names anyone else's."""
    ws = tmp_path / "ws"
    ws.mkdir()
    fakellm.script(
        [
            Turn(match="parent job", calls=[Call("task", {"prompt": "kid job", "agent": "flue-general"})]),
            Turn(match="kid job", calls=[_write("kid.txt", "kid\n"), Call("bash", {"command": "echo k > kid.sh.out"})]),
            Turn(match="kid job", text="made them"),
            Turn(match="parent job", text="The child made them."),
        ]
    )
    out = flue_main("-p", "parent job", *MODEL, "--output-format", "json", cwd=ws)
    assert out.code == 0, out.stderr
    sid = json.loads(out.stdout.splitlines()[-1])["session_id"]
    assert (ws / "kid.txt").exists() and (ws / "kid.sh.out").exists()
    (ws / "mine.txt").write_text("the user's, since\n")
    refused = flue_main("sessions", "rewind", sid, "--to", "1", "--code", cwd=ws)
    assert refused.code == 1 and _named(refused.stderr) == ["mine.txt"], refused.stderr
    (ws / "mine.txt").unlink()
    done = flue_main("sessions", "rewind", sid, "--to", "1", "--code", cwd=ws)
    assert done.code == 0, done.stderr
    assert sorted(p.name for p in ws.iterdir()) == []


def test_what_a_bang_command_writes_is_the_sessions_own(fakellm, tmp_path):
    """A `!` command runs inside the same watch as the model's bash: its files are the session's."""
    import asyncio

    from flue_tui.agent.session import Session
    from flue_tui.checkpoints import stack
    from flue_tui.model.litellm_client import LiteLLMClient
    from flue_tui.runtime.checkpointing import TurnCheckpoints, files_for
    from flue_tui.sandbox.local import LocalSandbox
    from flue_tui.tools import builtin_tools

    ws = tmp_path / "ws"
    ws.mkdir()
    hook = TurnCheckpoints(str(ws))
    s = Session(
        model=LiteLLMClient("openai/fake", api_base=fakellm.base_url, api_key="sk-test"),
        tools=builtin_tools(LocalSandbox(str(ws))), cwd=str(ws), retry_base_ms=5,seams=Seams(before_prompt=hook, after_prompt=hook.end, watch_tool=hook.watch))  # fmt: skip
    ran = asyncio.run(s.shell("printf x > bang.txt"))
    assert ran.exit_code == 0 and ran.checkpoint == f"{s.id}/1"
    (ws / "other.txt").write_text("not the session's\n")
    files = files_for(str(ws))
    refused = stack.rewind(files, s.id, 1)
    assert refused is not None and not refused.applied and refused.foreign == ("other.txt",)
    (ws / "other.txt").unlink()
    done = stack.rewind(files, s.id, 1)
    assert done is not None and done.applied and done.removed == ("bang.txt",)
