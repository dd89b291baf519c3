"""One writer per session (issue 13, item 9): a second process on a session is refused with a
sentence naming the first; a lock never outlives its process (kill -9 included)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from flue_tui.config.settings import Settings
from flue_tui.runtime.start import SessionOptions, SessionStartError, start_session
from flue_tui.store.sessions import SessionStore
from tests.fakellm import Turn
from tests.store.conftest import assistant, result, user

ROOT = Path(__file__).resolve().parents[2]

# Another process taking the lock the way flue does, then waiting to be killed.
_HOLDER = textwrap.dedent("""
    import sys, time
    from flue_tui.store.lock import acquire
    acquire(sys.argv[1], sys.argv[2], label="x", ref="x", owner="flue -p")
    print("locked", flush=True)
    time.sleep(600)  # killed by the test; long enough for a loaded box
""")


@pytest.fixture
def settings(fakellm, tmp_path: Path, monkeypatch) -> Settings:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    (tmp_path / "proj").mkdir()
    return Settings(model="openai/fake", cwd=str(tmp_path / "proj"), api_base=fakellm.base_url, retry_base_ms=5)


def seed(db: Path, cwd: str) -> None:
    with SessionStore.open(db) as store:
        store.create("ses_same1", cwd=cwd, name="same")
        store.append("ses_same1", user("list files"))
        store.append("ses_same1", assistant(calls=[("call_1", "bash")]))
        store.append("ses_same1", result("call_1", "a.txt b.txt", name="bash"))
        store.append("ses_same1", assistant("two files"))


def holder(db: Path, key: str) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", _HOLDER, str(db), key], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
    return proc


def test_a_second_writer_in_another_process_is_refused_by_name(settings, tmp_path):
    db = tmp_path / "s.db"
    seed(db, settings.cwd)
    proc = holder(db, "ses_same1")
    try:
        with pytest.raises(SessionStartError) as err:
            start_session(settings, SessionOptions(name="same", db=str(db), owner="flue -p"))
        text = str(err.value)
        assert f"pid {proc.pid}" in text and "flue -p" in text and 'Session "same"' in text
        assert "--resume same --fork-session" in text and "\n" not in text
        # Reading without saving, and a fork, never need the lock.
        reader = start_session(settings, SessionOptions(resume="same", persist=False, db=str(db)))
        assert len(reader.session.messages) == 4
        fork = start_session(settings, SessionOptions(resume="same", fork=True, db=str(db)))
        assert fork.session.id != "ses_same1"
        fork.recorder.close()
    finally:
        proc.kill()
        proc.wait()


def test_a_session_being_written_cannot_be_deleted_from_under_its_writer(settings, tmp_path, capsys):
    from flue_tui.cli import sessions as sessions_cli

    db = tmp_path / "s.db"
    seed(db, settings.cwd)
    proc = holder(db, "ses_same1")
    try:
        code = sessions_cli.main(["delete", "same", "--db", str(db), "--cwd", settings.cwd])
    finally:
        proc.kill()
        proc.wait()
    assert code == 1 and f"pid {proc.pid}" in capsys.readouterr().err
    with SessionStore.open(db) as store:
        assert store.get("ses_same1") is not None


def test_kill_9_leaves_no_lock_behind(settings, tmp_path):
    db = tmp_path / "s.db"
    seed(db, settings.cwd)
    proc = holder(db, "ses_same1")
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    started = start_session(settings, SessionOptions(name="same", db=str(db)))  # not blocked by the dead one
    assert started.session.id == "ses_same1"
    started.recorder.close()


def test_the_same_session_twice_in_one_process_and_release_on_close(settings, tmp_path):
    db = tmp_path / "s.db"
    seed(db, settings.cwd)
    first = start_session(settings, SessionOptions(name="same", db=str(db)))
    with pytest.raises(SessionStartError, match="already open in this flue"):
        start_session(settings, SessionOptions(resume="ses_same1", db=str(db)))
    first.recorder.close()
    first.store.close()
    again = start_session(settings, SessionOptions(resume="ses_same1", db=str(db)))
    assert again.session.id == "ses_same1"
    again.recorder.close()
    assert not any(Path(str(db) + ".locks").iterdir())  # a closed writer tidies its file


def test_a_new_named_session_is_locked_by_its_name_before_it_has_a_row(settings, tmp_path):
    db = tmp_path / "s.db"
    first = start_session(settings, SessionOptions(name="fresh", db=str(db), owner="interactive flue"))
    assert first.store.by_name("fresh", settings.cwd) is None  # nothing saved yet
    with pytest.raises(SessionStartError, match=f"pid {os.getpid()}"):
        start_session(settings, SessionOptions(name="fresh", db=str(db)))
    first.recorder.close()


def test_two_print_runs_on_one_session_never_interleave(fakellm, flue_env, tmp_path):
    """The attack: two `flue -p --session same` at once. The second is refused while the first runs;
    the stored conversation stays one well-formed sequence and resumes with the real tool result."""
    db = tmp_path / "s.db"
    # The first run's answer is held mid-stream until the second has been refused: it is still running
    # then however slowly the second starts on a loaded box.
    second_done = threading.Event()
    fakellm.script(
        [Turn(text="first run answering slowly", text_tokens=40, stall_after=3, hold=second_done), Turn(text="second")]
    )
    args = [
        sys.executable,
        "-m",
        "flue_tui",
        "-p",
        "--session",
        "same",
        "--db",
        str(db),
        "--model",
        "openai/fake",
        "--output-format",
        "events",
        "--include-partial-messages",
    ]
    first = subprocess.Popen(
        [*args, "one"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=flue_env,
        cwd=tmp_path,
        text=True,
    )
    try:
        assert first.stdout is not None
        for line in first.stdout:  # wait until the first is streaming its answer
            if json.loads(line).get("type") == "text_delta":
                break
        second = subprocess.run(
            [*args, "two"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            env=flue_env,
            cwd=tmp_path,
            timeout=180,
        )
        second_done.set()
        _rest, _ = first.communicate(timeout=180)
    finally:
        first.kill()
    assert second.returncode == 2, second.stderr  # the run never started: exit 2, as for every start-up error
    assert f"pid {first.pid} (flue -p" in second.stderr and "Traceback" not in second.stderr
    assert json.loads(second.stdout.splitlines()[-1])["is_error"] is True
    assert first.returncode == 0
    with SessionStore.open(db) as store:
        info = store.find("same", str(tmp_path))
        roles = [(m.role, m.text[:5]) for m in store.iter_messages(info.id)]
    assert roles == [("user", "one"), ("assistant", "first")]
