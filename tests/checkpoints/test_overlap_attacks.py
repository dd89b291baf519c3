"""Attacks on the checkpoint taken beside the first model request (agent/pending.py): nothing that
can touch a file runs before it is whole, an abort never waits for it and leaves the session
usable, and checkpoint N stays the moment before the Nth user message the history holds."""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from flue_tui.agent.seams import Seams
from flue_tui.agent.session import Session
from flue_tui.checkpoints import FileCheckpoints
from flue_tui.config.paths import checkpoints_home
from flue_tui.core.events import Log
from flue_tui.core.images import from_bytes
from flue_tui.hooks.config import HookSetup, parse
from flue_tui.hooks.lifecycle import SessionHooks
from flue_tui.model.clients import client_for
from flue_tui.model.litellm_client import LiteLLMClient
from flue_tui.permissions.policy import PermissionPolicy
from flue_tui.runtime.checkpointing import TurnCheckpoints
from flue_tui.sandbox.local import LocalSandbox
from flue_tui.tools import builtin_tools
from flue_tui.ui import rewind as rewind_ui
from tests.fakellm import Call, Turn
from tests.images.pictures import png


def _hooks(ws: Path, event: str, body: str) -> SessionHooks:
    """A real hook command for `event` (a Python script), as a user's settings would name it."""
    script = ws.parent / f"{event}.py"
    script.write_text(body)
    table = {event: [{"matcher": "*", "hooks": [{"command": f"{sys.executable} {script}"}]}]}
    return SessionHooks(HookSetup(tuple(parse(json.loads(json.dumps(table)), "test"))), str(ws))


def _marks(ws: Path, name: str) -> str:
    """A hook body that leaves a file in the workspace (what the checkpoint must precede)."""
    return f"open({str(ws / name)!r}, 'w').write('hook')\n"


async def _stream_consumed() -> None:
    """Until the loop's model stream (agent/loop._stream_turn's consume task) has run to its end:
    the reply is whole and only the checkpoint's settle stands between it and its tool calls."""
    for _ in range(3000):  # up to 30 s on a loaded machine
        found = [t for t in asyncio.all_tasks() if t.get_coro().__qualname__.endswith("_stream_turn.<locals>.consume")]  # type: ignore[union-attr]
        if found:
            await asyncio.wait(found)
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the model stream never started")


def test_an_abort_while_the_checkpoint_settles_after_a_whole_reply_runs_none_of_its_calls(fakellm, tmp_path):
    """The reply with a tool call has fully streamed; the snapshot is still running when Esc comes.
    Before: the settle gave up and the batch went on, consulting the policy (a PreToolUse hook ran
    and changed a file with no checkpoint). Now the turn ends as aborted."""
    ws = tmp_path / "ws"
    ws.mkdir()
    write = Turn(text="writing", calls=[Call(name="write", arguments={"path": "a.txt", "content": "v2"})])
    fakellm.script([write, write, Turn(text="ok")])
    client = LiteLLMClient("openai/fake", api_base=fakellm.base_url, api_key="sk-test")
    hook = TurnCheckpoints(str(ws))
    policy = PermissionPolicy(mode="yolo", root=str(ws), hooks=_hooks(ws, "PreToolUse", _marks(ws, "pretool.txt")))
    first = True

    async def slow(session: Session, text: str) -> str | None:
        nonlocal first
        if first:  # a big tree's snapshot: Esc arrives once the reply is whole
            first = False
            await _stream_consumed()
            session.abort()
        return await hook(session, text)

    tools = builtin_tools(LocalSandbox(str(ws)))
    s = Session(
        model=client, tools=tools, cwd=str(ws), retry_base_ms=5,seams=Seams(before_tool=policy, before_prompt=slow, after_prompt=hook.end))  # fmt: skip

    async def run() -> tuple[Any, bool, Any]:
        aborted = await s.prompt("change a")
        touched = (ws / "pretool.txt").exists() or (ws / "a.txt").exists()
        return aborted, touched, await s.prompt("again")  # the session is idle and usable

    aborted, touched, again = asyncio.run(run())
    assert aborted.aborted and not touched
    assert not again.is_error and again.checkpoint == f"{s.id}/2" and not s.running
    assert (ws / "pretool.txt").exists() and (ws / "a.txt").read_text() == "v2"  # the second prompt's call ran
    assert [m.role for m in s.messages if m.role == "user"] == ["user", "user"]


def test_an_abort_while_the_checkpoint_settles_before_the_prompt_hooks_runs_no_hook(fakellm, tmp_path):
    """With hooks configured the checkpoint is settled before UserPromptSubmit runs; an abort
    there gave the checkpoint up and then ran the hook anyway (it changed a file, no checkpoint)."""
    ws = tmp_path / "ws"
    ws.mkdir()
    fakellm.script([Turn(text="ok")])
    client = LiteLLMClient("openai/fake", api_base=fakellm.base_url, api_key="sk-test")
    hook = TurnCheckpoints(str(ws))
    first = True

    async def stuck(session: Session, text: str) -> str | None:
        nonlocal first
        if first:
            first = False
            session.abort()  # Esc while a huge tree is snapshotted: this prompt's number is taken all the same
            await hook(session, text)
            await asyncio.Event().wait()
        return await hook(session, text)

    s = Session(
        model=client, tools=[], cwd=str(ws), retry_base_ms=5,seams=Seams(before_prompt=stuck, after_prompt=hook.end, prompt_hooks=_hooks(ws, "UserPromptSubmit", _marks(ws, "submit.txt"))))  # fmt: skip

    async def run() -> tuple[Any, bool, Any]:
        aborted = await s.prompt("go")
        return aborted, (ws / "submit.txt").exists(), await s.prompt("again")

    aborted, hook_ran, again = asyncio.run(run())
    assert aborted.aborted and aborted.checkpoint is None and not hook_ran
    assert len(fakellm.requests) == 1 and not again.is_error and again.text == "ok" and not s.running
    files = FileCheckpoints(ws, checkpoints_home())
    files.restore(files.numbered(s.id)[2])  # before the second prompt's hook: its file is not there
    assert not (ws / "submit.txt").exists()


def _write(content: str) -> Turn:
    return Turn(text=f"writing {content}", calls=[Call(name="write", arguments={"path": "a.txt", "content": content})])


def test_blocked_and_refused_prompts_take_no_checkpoint_number(fakellm, tmp_path):
    """Checkpoint N is the moment before the Nth user message the history (and the store) holds,
    which `/rewind N` and `flue sessions rewind --to N` name. A prompt a UserPromptSubmit hook
    blocks, or one a model without vision refuses, never joins the history: before, each took a
    number all the same, so in one app session every later rewind went one prompt too far back."""
    ws = tmp_path / "ws"
    ws.mkdir()
    block = "import json, sys\nif 'secret' in json.load(sys.stdin)['prompt']:\n    sys.exit(2)\n"
    fakellm.script([_write("v1"), Turn(text="ok"), _write("v3"), Turn(text="ok"), _write("v4"), Turn(text="ok")])
    client = LiteLLMClient("openai/gpt-3.5-turbo", api_base=fakellm.base_url, api_key="sk-test")  # no vision
    hook = TurnCheckpoints(str(ws))
    s = Session(
        model=client, tools=builtin_tools(LocalSandbox(str(ws))), cwd=str(ws), retry_base_ms=5,seams=Seams(before_prompt=hook, after_prompt=hook.end, drop_prompt=hook.drop, prompt_hooks=_hooks(ws, "UserPromptSubmit", block)))  # fmt: skip

    files = FileCheckpoints(ws, checkpoints_home())
    kept: list[set[int]] = []

    async def run() -> list[Any]:
        done = [await s.prompt("one"), await s.prompt("tell the secret")]  # the second one blocked
        kept.append(set(files.numbered(s.id)))  # a rewind now finds no checkpoint 2
        done.append(await s.prompt("look", images=(from_bytes(png(), "a.png"),)))  # refused
        kept.append(set(files.numbered(s.id)))
        return [*done, await s.prompt("three"), await s.prompt("four")]

    results = asyncio.run(run())
    assert kept == [{1}, {1}]
    assert [r.is_error for r in results] == [False, True, True, False, False]
    assert [r.checkpoint for r in results] == [f"{s.id}/1", None, None, f"{s.id}/2", f"{s.id}/3"]
    assert [m.content for m in s.messages if m.role == "user"] == ["one", "three", "four"]
    found = files.numbered(s.id)
    files.restore(found[3])  # just before "four": "three" had written v3
    assert (ws / "a.txt").read_text() == "v3"
    files.restore(found[2])  # just before "three"
    assert (ws / "a.txt").read_text() == "v1"
    assert hook.next == 4  # the next prompt is the fourth user message


def test_a_blocked_prompt_among_stream_json_messages_keeps_rewind_numbers_right(fakellm, flue_main, tmp_path):
    """The same through the real wiring (runtime/wiring.py): one `flue -p` process reading four
    stream-json user messages, the second blocked, then `flue sessions rewind --to 3`."""
    ws = tmp_path / "ws"
    ws.mkdir()
    hook = ws.parent / "block.py"
    hook.write_text("import json, sys\nif 'secret' in json.load(sys.stdin)['prompt']:\n    sys.exit(2)\n")
    settings = {
        "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": f"{sys.executable} {hook}"}]}]}
    }
    fakellm.script([_write("v1"), Turn(text="ok"), _write("v3"), Turn(text="ok"), _write("v4"), Turn(text="ok")])
    lines = [
        {"type": "user", "message": {"role": "user", "content": t}} for t in ("one", "tell the secret", "three", "four")
    ]
    out = flue_main(
        "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
        "--model", "openai/fake", "--settings", json.dumps(settings), "--permission-mode", "bypassPermissions",
        stdin="".join(json.dumps(line) + "\n" for line in lines), cwd=ws,
    )  # fmt: skip
    assert out.code == 0, out.stderr
    messages = [json.loads(line) for line in out.stdout.splitlines()]
    sid = next(m["session_id"] for m in messages if m.get("subtype") == "init")
    assert (ws / "a.txt").read_text() == "v4"
    back = flue_main("sessions", "rewind", sid, "--to", "3", "--code", cwd=ws)
    assert back.code == 0, back.stderr
    assert (ws / "a.txt").read_text() == "v3"  # just before "four", the third user message


def _git_locks(home: Path) -> list[Path]:
    return [p for p in (home / "checkpoints").rglob("*.lock") if p.name != "flue.lock"]


def test_kill_9_during_the_overlapped_snapshot_leaves_the_store_usable(
    fakellm, flue_env, flue_main, tmp_path, _isolated_home
):
    """`flue -p` and its git children killed (the process group, SIGKILL) while the snapshot runs
    beside the first request: git's lock files are left behind; the next run takes its checkpoint
    and a rewind to it works."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("v0")
    for i in range(4000):  # a snapshot slow enough to be caught in the act (most runs)
        (ws / f"f{i}.txt").write_text(str(i))
    fakellm.script([Turn(text="never ends", stall_after=0, hold=threading.Event()), _write("v2"), Turn(text="ok")])
    proc = subprocess.Popen(
        [sys.executable, "-m", "flue_tui", "-p", "first", "--model", "openai/fake", "--output-format", "stream-json",
         "--verbose"],
        cwd=ws, env=flue_env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        start_new_session=True, text=True,
    )  # fmt: skip
    assert proc.stdout is not None
    sid = json.loads(proc.stdout.readline())["session_id"]  # init: the run has started
    end = time.monotonic() + 180
    while time.monotonic() < end and not fakellm.requests:  # the user message is stored, the request out
        time.sleep(0.01)
    while time.monotonic() < end and not _git_locks(_isolated_home):
        if FileCheckpoints(ws, checkpoints_home()).numbered(sid):
            break  # the snapshot ended before a lock was seen: the kill is mid-request, still a kill -9
        time.sleep(0.002)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)
    proc.stdout.close()
    out = flue_main(
        "-p", "second", "--resume", sid, "--model", "openai/fake", "--output-format", "json",
        "--permission-mode", "bypassPermissions", cwd=ws,
    )  # fmt: skip
    assert out.code == 0, out.stderr
    result = json.loads(out.stdout.splitlines()[-1])
    assert result["checkpoint"] == f"{sid}/2" and (ws / "a.txt").read_text() == "v2"
    assert "checkpoint" not in out.stderr.lower(), out.stderr  # no notice: the store works
    back = flue_main("sessions", "rewind", sid, "--to", "2", "--code", cwd=ws)
    assert back.code == 0, back.stderr
    assert (ws / "a.txt").read_text() == "v0" and (ws / "f3999.txt").read_text() == "3999"


def test_a_prompt_cancelled_while_its_checkpoint_runs_beside_the_request_leaves_the_session_usable(fakellm, tmp_path):
    """A front end's worker cancelled (the app quitting, /new mid-turn) while the stream is held and
    the snapshot still runs: the session is idle, nothing is left unretrieved, the next prompt works."""
    ws = tmp_path / "ws"
    ws.mkdir()
    hold = threading.Event()
    fakellm.script([Turn(text="never", stall_after=0, hold=hold), Turn(text="ok")])
    client = LiteLLMClient("openai/fake", api_base=fakellm.base_url, api_key="sk-test")
    hook = TurnCheckpoints(str(ws))
    first = True

    async def slow(session: Session, text: str) -> str | None:
        nonlocal first
        ref = await hook(session, text)
        if first:
            first = False
            await asyncio.Event().wait()  # a huge tree's snapshot
        return ref

    s = Session(
        model=client, tools=[], cwd=str(ws), retry_base_ms=5, seams=Seams(before_prompt=slow, after_prompt=hook.end)
    )
    unretrieved: list[Any] = []

    async def run() -> Any:
        asyncio.get_running_loop().set_exception_handler(lambda _loop, ctx: unretrieved.append(ctx))
        task = asyncio.ensure_future(s.prompt("go"))
        for _ in range(3000):
            if fakellm.requests:
                break
            await asyncio.sleep(0.01)
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass
        hold.set()
        assert not s.running
        return await asyncio.wait_for(s.prompt("again"), 120)

    again = asyncio.run(run())
    assert not again.is_error and again.text == "ok" and again.checkpoint == f"{s.id}/2"
    assert unretrieved == []


def _lock_held(files: FileCheckpoints) -> bool:
    """Whether a snapshot holds the store's lock now (a probe that takes it for an instant if free)."""
    path = files.git.store / "flue.lock"
    if not path.exists():
        return False
    with open(path, "a+b") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(fh, fcntl.LOCK_UN)
        return False


def test_an_undo_right_after_an_abort_waits_for_the_checkpoint_still_being_written(fakellm, tmp_path):
    """Esc during the first request gives up waiting for a big tree's snapshot; its thread goes on
    and writes checkpoint 1. An /undo at once (the session is idle) found no checkpoint 1 and said
    none was taken; the store's lock is held by that snapshot, so the step waits for it."""
    ws = tmp_path / "ws"
    ws.mkdir()
    for i in range(8000):  # a snapshot that outlasts the request's start (the direct path's: no litellm)
        (ws / f"f{i}.txt").write_text(str(i))
    hold = threading.Event()
    fakellm.script([Turn(text="never", stall_after=0, hold=hold)])
    client = client_for("openai/fake", api_base=fakellm.base_url, api_key="sk-test")
    hook = TurnCheckpoints(str(ws))
    s = Session(
        model=client, tools=[], cwd=str(ws), retry_base_ms=5, seams=Seams(before_prompt=hook, after_prompt=hook.end)
    )
    files = FileCheckpoints(ws, checkpoints_home())

    async def run() -> Any:
        task = asyncio.ensure_future(s.prompt("go"))
        for _ in range(30000):  # the request is out and the snapshot under way (or already done)
            if fakellm.requests and (_lock_held(files) or files.numbered(s.id)):
                break
            await asyncio.sleep(0.001)
        s.abort()
        result = await task
        hold.set()
        assert result.aborted and not s.running
        return await asyncio.to_thread(rewind_ui.undo, s, str(ws))

    done = asyncio.run(run())
    assert not done.error and done.message.startswith("Files are back to just before message 1:"), done.message


def test_a_snapshot_that_fails_beside_the_request_is_one_notice_and_the_turn_goes_on(fakellm, tmp_path):
    """The store cannot be made (its directory is a file): the failure arrives while the reply
    streams; the reply's call still runs, the turn succeeds, and the next prompt says nothing more."""
    ws = tmp_path / "ws"
    ws.mkdir()
    home = checkpoints_home()
    home.mkdir(parents=True, exist_ok=True)
    (home / "checkpoints").write_text("not a directory")
    fakellm.script([_write("v1"), Turn(text="done"), Turn(text="again")])
    client = LiteLLMClient("openai/fake", api_base=fakellm.base_url, api_key="sk-test")
    hook = TurnCheckpoints(str(ws))
    s = Session(
        model=client, tools=builtin_tools(LocalSandbox(str(ws))), cwd=str(ws), retry_base_ms=5,seams=Seams(before_prompt=hook, after_prompt=hook.end))  # fmt: skip
    notices: list[str] = []
    s.subscribe(lambda e: notices.append(e.message) if isinstance(e, Log) and e.level == "warn" else None)

    async def run() -> list[Any]:
        return [await s.prompt("write"), await s.prompt("more")]

    first, second = asyncio.run(run())
    assert not first.is_error and first.text == "done" and first.checkpoint is None
    assert not second.is_error and second.checkpoint is None and (ws / "a.txt").read_text() == "v1"
    assert len(notices) == 1 and notices[0].startswith(
        "[flue:checkpoints] File checkpoint before message 1 was not taken ("
    ), notices
    assert notices[0].endswith("; the conversation is still saved.")


def test_a_structured_result_runs_its_calls_only_once_the_checkpoint_is_whole(fakellm, tmp_path):
    """`result_schema` (print mode's --json-schema, an SDK's output_format): the first reply writes
    and finishes in one batch; the snapshot is held until that reply has fully streamed."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("v0")
    write = Call(name="write", arguments={"path": "a.txt", "content": "v1"})
    fakellm.script([Turn(calls=[write, Call("finish", {"result": 7})]), Turn(text="done")])
    client = client_for("openai/fake", api_base=fakellm.base_url, api_key="sk-test")
    hook = TurnCheckpoints(str(ws))
    seen: dict[str, str] = {}

    async def held(session: Session, text: str) -> str | None:
        await _stream_consumed()
        await asyncio.sleep(0.2)  # a batch not held back would run now (the assertion holds either way)
        seen["at_snapshot"] = (ws / "a.txt").read_text()
        return await hook(session, text)

    s = Session(
        model=client, tools=builtin_tools(LocalSandbox(str(ws))), cwd=str(ws), retry_base_ms=5,seams=Seams(before_prompt=held, after_prompt=hook.end))  # fmt: skip
    result = asyncio.run(s.prompt("compute", result_schema={"type": "integer"}))
    assert not result.is_error and result.structured_output == 7 and result.checkpoint == f"{s.id}/1"
    assert seen["at_snapshot"] == "v0" and (ws / "a.txt").read_text() == "v1"
