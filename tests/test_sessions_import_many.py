"""`flue sessions import FILE|DIR …` (issue 29): many exports in one process; a session already
present is skipped, a bad file is named and the rest still go in, exit 1 only then."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

from flue_tui.cli import sessions as sessions_cli
from flue_tui.store.sessions import SessionStore
from tests.security.test_store_import import GOOD


def export(n: int, **session: object) -> dict:
    data = copy.deepcopy(GOOD)
    data["session"].update(id=f"ses_many{n}", name=f"run-{n}", **session)
    data["tasks"][0]["session"]["id"] = f"ses_many{n}_task"
    return data


def run(capsys, db: Path, cwd: Path, *paths: object) -> tuple[int, str, str]:
    code = sessions_cli.main(["import", *map(str, paths), "--db", str(db), "--cwd", str(cwd)])
    out = capsys.readouterr()
    return code, out.out, out.err


def ids(db: Path) -> set[str]:
    with SessionStore.open(db) as store:
        return {row[0] for row in store.conn.execute("SELECT id FROM sessions")}


def test_a_directory_of_good_duplicate_and_broken_files(capsys, tmp_path):
    db = tmp_path / "s.db"
    trials = tmp_path / "jobs"
    (trials / "trial-1" / "agent").mkdir(parents=True)
    (trials / "trial-2" / "agent").mkdir(parents=True)
    (trials / "trial-1" / "agent" / "session.json").write_text(json.dumps(export(1)))
    (trials / "trial-2" / "agent" / "session.json").write_text(json.dumps(export(2)))
    (trials / "trial-2" / "again.json").write_text(json.dumps(export(1)))  # the same session twice
    (trials / "trial-2" / "agent" / "cut.json").write_text(json.dumps(export(3))[:-40])  # killed mid-write
    (trials / "latin1.json").write_bytes(b'{"session": "caf\xe9"}')
    (trials / "notes.txt").write_text("not an export, not looked at")
    os.mkfifo(trials / "pipe.json")  # would block a plain open() for ever
    os.symlink(trials, trials / "trial-1" / "loop")  # a symlinked directory is not entered
    loose = tmp_path / "loose.json"
    loose.write_text(json.dumps(export(4)))

    code, out, err = run(capsys, db, tmp_path, trials, loose)
    assert code == 1
    assert ids(db) == {f"ses_many{n}{task}" for n in (1, 2, 4) for task in ("", "_task")}
    lines = out.splitlines()
    assert sorted(line.split(" (")[0] for line in lines[:-1]) == [
        "Imported run-1",
        "Imported run-2",
        "Imported run-4",
        "Skipped run-1",
    ]
    assert lines[-1] == "Imported 3 sessions, skipped 1, 3 files failed."
    problems = err.splitlines()
    assert len(problems) == 3 and "Traceback" not in err
    assert any(f"{trials}/trial-2/agent/cut.json is not JSON" in p for p in problems)
    assert any(f"{trials}/latin1.json is not UTF-8 text (byte 0xe9" in p for p in problems)
    assert any(f"Cannot read {trials}/pipe.json: a FIFO" in p for p in problems)
    assert all(p.startswith("flue: ") and p.endswith("that file was not imported.") for p in problems)

    # The gathering job runs again over the same artifacts: everything good is skipped, exit 0.
    os.remove(trials / "pipe.json")
    (trials / "trial-2" / "agent" / "cut.json").unlink()
    (trials / "latin1.json").unlink()
    code, out, err = run(capsys, db, tmp_path, trials, loose)
    assert (code, err) == (0, "")
    assert out.splitlines()[-1] == "Imported 0 sessions, skipped 4."


def test_a_task_id_taken_by_another_session_is_named_not_skipped(capsys, tmp_path):
    db = tmp_path / "s.db"
    first = tmp_path / "a.json"
    first.write_text(json.dumps(export(1)))
    clash = export(2)
    clash["tasks"][0]["session"]["id"] = "ses_many1_task"
    second = tmp_path / "b.json"
    second.write_text(json.dumps(clash))
    code, out, err = run(capsys, db, tmp_path, first, second)
    assert code == 1 and "Imported 1 sessions, skipped 0, 1 file failed." in out
    assert err.startswith(f"flue: Cannot import {second}: its task session ses_many1_task is already in this database")
    assert ids(db) == {"ses_many1", "ses_many1_task"}


def test_a_missing_path_among_good_ones(capsys, tmp_path):
    db = tmp_path / "s.db"
    good = tmp_path / "good.json"
    good.write_text(json.dumps(export(1)))
    code, out, err = run(capsys, db, tmp_path, tmp_path / "nope.json", good)
    assert code == 1 and out.splitlines()[-1] == "Imported 1 sessions, skipped 0, 1 file failed."
    assert err == f"flue: Cannot read {tmp_path}/nope.json: No such file or directory; that file was not imported.\n"


def test_one_file_already_present_is_skipped_with_exit_0(capsys, tmp_path):
    db = tmp_path / "s.db"
    one = tmp_path / "one.json"
    one.write_text(json.dumps(export(1)))
    assert run(capsys, db, tmp_path, one)[0] == 0
    code, out, err = run(capsys, db, tmp_path, one)
    assert (code, out, err) == (0, "Skipped run-1 (ses_many1): it is already in this database.\n", "")


def test_a_file_name_that_is_not_utf8(capsys, tmp_path):
    db = tmp_path / "s.db"
    trials = tmp_path / "trials"
    trials.mkdir()
    (trials / os.fsdecode(b"good-\xff.json")).write_text(json.dumps(export(1)))
    (trials / os.fsdecode(b"bad-\xfe.json")).write_text("{")
    code, out, err = run(capsys, db, tmp_path, trials)
    assert code == 1 and out.splitlines()[-1] == "Imported 1 sessions, skipped 0, 1 file failed."
    assert "bad-" in err and "is not JSON" in err and "Traceback" not in err


def test_kill_9_half_way_then_run_again(tmp_path):
    """Each file is one transaction: a killed import leaves whole sessions or none, and the next run
    imports the rest and skips what is there."""
    import signal
    import subprocess
    import sys

    db = tmp_path / "s.db"
    trials = tmp_path / "trials"
    trials.mkdir()
    for n in range(300):
        (trials / f"t{n:03d}.json").write_text(json.dumps(export(n)))
    argv = [sys.executable, "-m", "flue_tui", "sessions", "import", str(trials), "--db", str(db)]
    env = dict(os.environ, FLUE_HOME=str(tmp_path / "home"))
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    assert proc.stdout.readline().startswith("Imported run-0 (")  # under way
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=120)
    with SessionStore.open(db) as store:
        before = store.count_sessions(None)
        for (sid,) in store.conn.execute("SELECT id FROM sessions WHERE parent_id IS NULL").fetchall():
            assert len(store.children(sid)) == 1  # never a parent without its task
            info = store.get(sid)
            assert info is not None and info.message_count == 3
    assert 1 <= before < 300
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    last = done.stdout.splitlines()[-1]
    assert last == f"Imported {300 - before} sessions, skipped {before}."
    assert ids(db) == {f"ses_many{n}{task}" for n in range(300) for task in ("", "_task")}
