"""The database path (issue 13, items 10, 13, 14): a user's file is never displaced, a read-only or
unreadable database is reported as such, `--session NAME` never silently starts afresh, and the
file (with its -wal/-shm) is private."""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from flue_tui.cli import sessions as sessions_cli
from flue_tui.config.settings import Settings
from flue_tui.runtime.start import SessionOptions, SessionStartError, start_session
from flue_tui.store.sessions import SessionStore
from tests.store.conftest import assistant, user


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = sessions_cli.main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def seed(db: Path, cwd: str) -> None:
    with SessionStore.open(db) as store:
        store.create("ses_kept1", cwd=cwd, name="kept")
        store.append("ses_kept1", user("remember the plan"))
        store.append("ses_kept1", assistant("the plan is remembered"))


@contextlib.contextmanager
def read_only(path: Path) -> Iterator[None]:
    """Really unwritable: root ignores mode bits, so as root the file is made immutable."""
    if os.geteuid() == 0:
        if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode != 0:
            pytest.skip("running as root where chattr +i is not allowed: no way to make a file unwritable")
        try:
            yield
        finally:
            subprocess.run(["chattr", "-i", str(path)], check=True)
    else:
        path.chmod(0o444)
        try:
            yield
        finally:
            path.chmod(0o600)


@pytest.fixture
def settings(fakellm, tmp_path: Path, monkeypatch) -> Settings:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    (tmp_path / "proj").mkdir()
    return Settings(model="openai/fake", cwd=str(tmp_path / "proj"), api_base=fakellm.base_url, retry_base_ms=5)


def test_a_users_file_given_as_db_is_never_moved_or_overwritten(capsys, tmp_path):
    notes = tmp_path / "notes.md"
    notes.write_text("# my notes\n\nnothing to do with flue\n")
    before = notes.read_bytes()
    code, out, err = cli(capsys, "list", "--db", str(notes), "--cwd", str(tmp_path))
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "not an SQLite database" in err and str(notes) in err
    assert notes.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.md"]  # no .corrupt-, no -wal, nothing


def test_a_directory_as_db_gets_no_advice_to_move_it(capsys, tmp_path):
    code, _, err = cli(capsys, "list", "--db", "/tmp", "--cwd", str(tmp_path))
    assert code == 1 and "is a directory" in err and "mv /tmp" not in err and err.count("\n") == 1


def test_a_damaged_sqlite_file_is_still_moved_aside(capsys, tmp_path):
    db = tmp_path / "s.db"
    db.write_bytes(b"SQLite format 3\x00" + b"\x13" * 8192)
    code, _, err = cli(capsys, "list", "--db", str(db), "--cwd", str(tmp_path))
    assert code == 0 and "moved aside" in err
    assert [p for p in tmp_path.iterdir() if ".corrupt-" in p.name]


def test_a_read_only_database_is_read_and_said_to_be_read_only(capsys, tmp_path, settings):
    db = tmp_path / "s.db"
    seed(db, settings.cwd)
    with read_only(db):
        code, out, err = cli(capsys, "show", "kept", "--db", str(db), "--cwd", settings.cwd)
        assert code == 0 and "the plan is remembered" in out and "read-only" in err
        code, _, err = cli(capsys, "rename", "kept", "other", "--db", str(db), "--cwd", settings.cwd)
        assert code == 1 and "read-only" in err and "damaged" not in err and "Traceback" not in err
        with pytest.raises(SessionStartError) as refused:  # never a fresh conversation in its place
            start_session(settings, SessionOptions(name="kept", db=str(db)))
        assert "read-only" in str(refused.value) and "--no-session-persistence" in str(refused.value)
        reader = start_session(settings, SessionOptions(resume="kept", persist=False, db=str(db)))
        assert len(reader.session.messages) == 2
        reader.store.close()
        fresh = start_session(settings, SessionOptions(db=str(db)))  # no session asked for: runs, unsaved
        assert fresh.store.path == ":memory:" and any("read-only" in n for n in fresh.notices)


def test_an_unusable_database_is_an_error_for_a_named_session(settings, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    for db in (blocker / "sessions.db", tmp_path / "notes.md"):
        if db.name == "notes.md":
            db.write_text("mine")
        for options in (
            SessionOptions(name="kept", db=str(db)),
            SessionOptions(continue_last=True, db=str(db)),
            SessionOptions(resume="kept", persist=False, db=str(db)),
        ):
            with pytest.raises(SessionStartError, match="does not start a fresh conversation"):
                start_session(settings, options)
    assert (tmp_path / "notes.md").read_text() == "mine"


def test_an_unreadable_database_is_reported_not_empty(tmp_path):
    """Root reads a mode-000 file anyway, so as root the command runs as user nobody."""
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="flue-unreadable-"))  # outside root's private tmp_path
    try:
        folder.chmod(0o755)
        db = folder / "s.db"
        seed(db, str(folder))
        db.chmod(0)
        as_nobody: list[str] = []
        if os.geteuid() == 0:
            if shutil.which("setpriv") is None:
                pytest.skip("running as root without setpriv: no ordinary user to be refused the file")
            as_nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
            probe = subprocess.run([*as_nobody, sys.executable, "-c", "pass"], capture_output=True, timeout=60)
            if probe.returncode != 0:  # e.g. a Python whose shared library lives in root's home
                pytest.skip("this Python cannot run as user nobody here")
        code = (
            "import sys; from flue_tui.cli import sessions as sessions_cli; "
            f"sys.exit(sessions_cli.main(['show', 'kept', '--db', {str(db)!r}, '--cwd', {str(folder)!r}]))"
        )
        proc = subprocess.run(
            [*as_nobody, sys.executable, "-c", code],
            cwd=Path(__file__).resolve().parents[2],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "FLUE_HOME": str(folder / "home")},
        )
    finally:
        subprocess.run(["rm", "-rf", str(folder)], check=False)
    assert proc.returncode == 1, proc.stderr
    assert "cannot be read" in proc.stderr and "Permission denied" in proc.stderr
    assert "No session named" not in proc.stderr and "Traceback" not in proc.stderr


def test_an_existing_world_readable_database_becomes_private(tmp_path):
    db = tmp_path / "s.db"
    seed(db, str(tmp_path))
    with SessionStore.open(db) as holder:  # keep -wal and -shm in existence
        holder.create("ses_other", cwd=str(tmp_path))
        for name in ("s.db", "s.db-wal", "s.db-shm"):
            os.chmod(tmp_path / name, 0o644)
        with SessionStore.open(db):
            modes = {name: stat.S_IMODE((tmp_path / name).stat().st_mode) for name in ("s.db", "s.db-wal", "s.db-shm")}
    assert modes == {"s.db": 0o600, "s.db-wal": 0o600, "s.db-shm": 0o600}


def test_cwd_that_is_a_file_is_called_a_file(capsys, tmp_path):
    code, _, err = cli(capsys, "list", "--cwd", "/etc/passwd")
    assert code == 2 and "is not a directory" in err
