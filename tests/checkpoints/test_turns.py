"""Checkpoints taken through Session.prompt (the one path every front end uses): one per user
message, numbered from 1; no git, a home directory or a too-big file is one notice, never an error."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

from flue_tui.agent.seams import Seams
from flue_tui.agent.session import Session
from flue_tui.checkpoints import FileCheckpoints
from flue_tui.config.paths import checkpoints_home
from flue_tui.core.events import Log, TextDelta
from flue_tui.core.traits import ToolTraits
from flue_tui.model.litellm_client import LiteLLMClient
from flue_tui.runtime.checkpointing import TurnCheckpoints
from flue_tui.tools.base import ToolContext, ToolResult, prop, schema
from tests.fakellm import Call, Turn


def session(fakellm, ws: Path, done: int = 0) -> tuple[Session, list[str]]:
    """A session built with its checkpoints (as runtime/wiring.py builds every one); `done` user
    messages already ran."""
    client = LiteLLMClient("openai/fake", api_base=fakellm.base_url, api_key="sk-test")
    hook = TurnCheckpoints(str(ws), done)
    s = Session(
        model=client,
        tools=[],
        system_prompt="test",
        cwd=str(ws),
        retry_base_ms=5,
        seams=Seams(before_prompt=hook, after_prompt=hook.end),
    )
    notices: list[str] = []
    s.subscribe(lambda e: notices.append(e.message) if isinstance(e, Log) and e.level == "warn" else None)
    return s, notices


def test_one_checkpoint_per_user_message_numbered_after_the_stored_ones(fakellm, tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("v1")
    fakellm.script([Turn(text="one"), Turn(text="two")])
    s, notices = session(fakellm, ws, done=2)  # a resumed session: two user messages already ran

    async def run() -> list[str | None]:
        first = await s.prompt("first")
        (ws / "a.txt").write_text("v2")
        second = await s.prompt("second")
        return [first.checkpoint, second.checkpoint]

    assert asyncio.run(run()) == [f"{s.id}/3", f"{s.id}/4"]
    assert notices == []
    files = FileCheckpoints(ws, checkpoints_home())
    found = files.numbered(s.id)
    assert sorted(found) == [3, 4]
    files.restore(found[3])
    assert (ws / "a.txt").read_text() == "v1"


def test_no_git_is_one_notice_and_the_turns_still_run(fakellm, tmp_path, monkeypatch):
    ws = tmp_path / "ws"
    ws.mkdir()
    empty = tmp_path / "nobin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.delenv("FLUE_GIT", raising=False)
    fakellm.script([Turn(text="one"), Turn(text="two")])
    s, notices = session(fakellm, ws)

    async def run() -> list:
        return [await s.prompt("first"), await s.prompt("second")]

    results = asyncio.run(run())
    assert [r.is_error for r in results] == [False, False] and [r.checkpoint for r in results] == [None, None]
    assert notices == [
        "[flue:checkpoints] git is not installed, so file checkpoints are off (conversation checkpoints still work)."
    ]


def test_home_directory_and_big_files_are_named_once(fakellm, tmp_path, monkeypatch):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "huge.bin").write_bytes(b"\0" * (10 * 1024 * 1024 + 1))
    fakellm.script([Turn(text="one"), Turn(text="two"), Turn(text="three")])
    s, notices = session(fakellm, ws)

    async def twice(sess: Session) -> None:
        await sess.prompt("first")
        await sess.prompt("second")

    asyncio.run(twice(s))
    assert len(notices) == 1 and "huge.bin" in notices[0] and "over 10 MB" in notices[0]

    monkeypatch.setenv("HOME", str(ws))
    home_session, home_notices = session(fakellm, ws)
    asyncio.run(home_session.prompt("in home"))
    assert len(home_notices) == 1 and "home or root directory" in home_notices[0]


def test_flues_own_home_inside_the_workspace_is_never_captured_or_restored(tmp_path):
    ws = tmp_path / "ws"
    home = ws / ".flue home"  # a space and a dot: the exclude pattern is escaped
    home.mkdir(parents=True)
    (home / "sessions.db").write_text("v1")
    (ws / "a.txt").write_text("v1")
    files = FileCheckpoints(ws, home)
    first = files.snapshot("s/1")
    (home / "sessions.db").write_text("v2")
    (ws / "a.txt").write_text("v2")
    assert [c.path for c in files.diff(first.commit, files.snapshot().commit)] == ["a.txt"]
    files.restore(first.commit)
    assert (ws / "a.txt").read_text() == "v1" and (home / "sessions.db").read_text() == "v2"


class _WriteA:
    """A real tool that changes the workspace (the reply's call that the checkpoint must precede)."""

    name = "write_a"
    label = "Write A"
    description = "Write a.txt."
    traits = ToolTraits()
    parameters = schema({"text": prop("string", "What to write")}, ["text"])

    def __init__(self, ws: Path) -> None:
        self.ws = ws

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        (self.ws / "a.txt").write_text(args["text"])
        return ToolResult(text="written")


def test_the_checkpoint_is_taken_beside_the_first_request_and_before_any_tool_runs(fakellm, tmp_path):
    """The snapshot no longer delays the request (agent/pending.py); a reply's tool call still
    waits for it. The snapshot is held until the reply with the call has streamed, so a tool run
    early would be inside the checkpoint."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("v1")
    fakellm.script([Turn(text="writing", calls=[Call(name="write_a", arguments={"text": "v2"})]), Turn(text="done")])
    client = LiteLLMClient("openai/fake", api_base=fakellm.base_url, api_key="sk-test")
    hook = TurnCheckpoints(str(ws))
    seen: dict[str, Any] = {}

    async def held(session: Session, text: str) -> str | None:
        for _ in range(3000):  # up to 30 s on a loaded machine: the request goes out meanwhile
            if fakellm.requests and "text" in seen:
                break
            await asyncio.sleep(0.01)
        seen["request_while_held"] = bool(fakellm.requests)
        await asyncio.sleep(0.3)  # the rest of the reply arrives: a tool not held back would run now
        seen["file_at_snapshot"] = (ws / "a.txt").read_text()
        return await hook(session, text)

    s = Session(
        model=client,
        tools=[_WriteA(ws)],
        system_prompt="test",
        cwd=str(ws),
        retry_base_ms=5,
        seams=Seams(before_prompt=held, after_prompt=hook.end),
    )
    s.subscribe(lambda e: seen.setdefault("text", e.text) if isinstance(e, TextDelta) else None)
    result = asyncio.run(s.prompt("change a"))
    assert seen["request_while_held"] and seen["file_at_snapshot"] == "v1"
    assert result.checkpoint == f"{s.id}/1" and (ws / "a.txt").read_text() == "v2"
    files = FileCheckpoints(ws, checkpoints_home())
    files.restore(files.numbered(s.id)[1])
    assert (ws / "a.txt").read_text() == "v1"


def test_an_abort_while_the_checkpoint_is_taken_beside_the_request_keeps_none(fakellm, tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    hold = threading.Event()
    fakellm.script([Turn(text="never seen", stall_after=0, hold=hold)])
    client = LiteLLMClient("openai/fake", api_base=fakellm.base_url, api_key="sk-test")
    never = asyncio.Event()

    async def stuck(session: Session, text: str) -> str | None:
        await never.wait()  # a snapshot of a huge tree
        return "never"

    s = Session(
        model=client, tools=[], system_prompt="test", cwd=str(ws), retry_base_ms=5, seams=Seams(before_prompt=stuck)
    )

    async def run() -> Any:
        task = asyncio.ensure_future(s.prompt("go"))
        for _ in range(3000):
            if fakellm.requests:
                break
            await asyncio.sleep(0.01)
        s.abort()
        try:
            return await task
        finally:
            hold.set()

    result = asyncio.run(run())
    assert result.aborted and result.checkpoint is None and not s.running
