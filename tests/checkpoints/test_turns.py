"""Checkpoints taken through Session.prompt (the one path every front end uses): one per user
message, numbered from 1; no git, a home directory or a too-big file is one notice, never an error."""

from __future__ import annotations

import asyncio
from pathlib import Path

from flue_tui.agent.session import Session
from flue_tui.checkpoints import FileCheckpoints
from flue_tui.config.paths import checkpoints_home
from flue_tui.core.events import Log
from flue_tui.model.litellm_client import LiteLLMClient
from flue_tui.runtime.checkpointing import TurnCheckpoints
from tests.fakellm import Turn


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
        before_prompt=hook,
        after_prompt=hook.end,
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
