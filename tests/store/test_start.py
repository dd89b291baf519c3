"""Starting a session from the flags (in process, real Runtime and litellm against the scripted server)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from flue_tui.cli.flags import add_session_arguments
from flue_tui.config.settings import Settings
from flue_tui.runtime.start import SessionOptions, SessionStartError, options_from_args, start_session
from flue_tui.store.sessions import SessionStore
from tests.fakellm import Turn
from tests.store.conftest import assistant, user


@pytest.fixture
def settings(fakellm, tmp_path: Path, monkeypatch) -> Settings:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    (tmp_path / "proj").mkdir()
    return Settings(model="openai/fake", cwd=str(tmp_path / "proj"), api_base=fakellm.base_url, retry_base_ms=5)


def seed(path: Path, cwd: str, sid: str = "ses_seeded", **kw) -> None:
    with SessionStore.open(path) as store:
        store.create(sid, cwd=cwd, **kw)
        store.append(sid, user("earlier question"))
        store.append(
            sid,
            assistant(
                "earlier answer", usage={"input": 7, "output": 3, "cache_read": 0, "cache_write": 0, "cost": 0.25}
            ),
        )


def parse(*argv: str, print_mode: bool = True) -> SessionOptions:
    parser = argparse.ArgumentParser()
    add_session_arguments(parser)
    return options_from_args(parser.parse_args(argv), print_mode=print_mode)


def test_flag_combinations():
    assert parse("--session", "x") == SessionOptions(name="x", owner="flue -p")
    assert parse("-r", print_mode=False).pick
    assert parse("-r", "x", "--fork-session", "--session", "y").fork
    assert not parse("--no-session-persistence").persist
    for bad in (
        ["-r"],
        ["-r", " "],
        ["-c", "-r", "x"],
        ["--session", "a", "-c"],
        ["--fork-session"],
        ["--session", "ses_x"],
        ["--session", ""],
    ):
        with pytest.raises(ValueError):
            parse(*bad)
    picked = parse("-r", print_mode=False)
    assert picked.pick and picked.resume is None  # a bare --resume: the picker, no name
    assert not parse("-r", "x").pick


async def test_resume_without_persistence_reads_but_never_writes(settings, fakellm, tmp_path):
    db = tmp_path / "s.db"
    seed(db, settings.cwd, name="kept")
    before = db.read_bytes()
    fakellm.script([Turn(text="fresh")])
    started = start_session(settings, SessionOptions(resume="kept", persist=False, db=str(db)))
    assert started.recorder is None and started.session.id == "ses_seeded"
    assert started.session.usage.cost == 0.25  # totals carried over for the UI
    await started.session.prompt("new question")
    assert [m["content"] for m in fakellm.requests[0]["messages"][1:]] == [
        "earlier question",
        "earlier answer",
        "new question",
    ]
    started.store.close()
    assert db.read_bytes() == before


def test_no_persistence_creates_no_file(settings, tmp_path):
    db = tmp_path / "none.db"
    started = start_session(settings, SessionOptions(name="scratch", persist=False, db=str(db)))
    assert started.resumed is None and not db.exists()
    with pytest.raises(SessionStartError, match="No session to continue"):
        start_session(settings, SessionOptions(continue_last=True, persist=False, db=str(db)))


def test_picker_hook_and_other_directories(settings, tmp_path):
    db = tmp_path / "s.db"
    seed(db, settings.cwd, sid="ses_here")
    seed(db, "/far/away", sid="ses_far", name="remote")
    picked = start_session(settings, SessionOptions(pick=True, db=str(db)), picker=lambda store, cwd: "ses_here")
    assert picked.session.id == "ses_here" and len(picked.session.messages) == 2
    cancelled = start_session(settings, SessionOptions(pick=True, db=str(db)), picker=lambda store, cwd: None)
    assert cancelled.resumed is None and cancelled.session.id not in ("ses_here", "ses_far")
    with pytest.raises(SessionStartError, match="picker"):
        start_session(settings, SessionOptions(pick=True, db=str(db)))
    with pytest.raises(SessionStartError, match="/far/away") as err:
        start_session(settings, SessionOptions(resume="remote", db=str(db)))
    assert "ses_far" in str(err.value)
    by_id = start_session(settings, SessionOptions(resume="ses_far", db=str(db)))  # ids work from anywhere
    assert by_id.session.id == "ses_far"


def test_a_task_child_is_not_resumed_on_its_own(settings, tmp_path):
    db = tmp_path / "s.db"
    seed(db, settings.cwd, sid="ses_parent")
    seed(db, settings.cwd, sid="ses_child", parent_id="ses_parent")
    with pytest.raises(SessionStartError, match="task inside session ses_parent"):
        start_session(settings, SessionOptions(resume="ses_child", db=str(db)))


def test_fork_named_from_continue(settings, tmp_path):
    db = tmp_path / "s.db"
    seed(db, settings.cwd, name="base")
    started = start_session(settings, SessionOptions(continue_last=True, fork=True, name="branch", db=str(db)))
    info = started.store.get(started.session.id)
    assert info.name == "branch" and info.forked_from == "ses_seeded" and started.resumed.id == "ses_seeded"
    assert len(started.session.messages) == 2
