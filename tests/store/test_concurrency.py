"""Two processes writing one database at once: both succeed, nothing is lost."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from flue_tui.store.sessions import SessionStore

ROOT = Path(__file__).resolve().parents[2]


def test_two_writers_for_several_seconds_lose_nothing(db_path):
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.store.appender", str(db_path), who, other, "30"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for who, other in (("a", "b"), ("b", "a"))
    ]
    outputs = [p.communicate(timeout=600) for p in procs]  # generous: each stops once it saw the other
    for p, (_, err) in zip(procs, outputs, strict=True):
        assert p.returncode == 0, err
        assert "locked" not in err and "Could not save" not in err
    (own_a, shared_a), (own_b, shared_b) = [tuple(map(int, out.split())) for out, _ in outputs]
    # Both wrote their 30 rounds (4 messages each), and each went on until the other's were in.
    assert own_a >= 60 and own_b >= 60
    with SessionStore.open(db_path) as store:
        for who, own in (("a", own_a), ("b", own_b)):
            rows = list(store.iter_messages(f"ses_{who}"))
            assert len(rows) == own and store.get(f"ses_{who}").message_count == own
            assert [r.seq for r in rows] == list(range(1, own + 1))
            assert not any(r.partial for r in rows)
        shared = list(store.iter_messages("ses_shared"))
        assert len(shared) == shared_a + shared_b  # interleaved, every one kept
        assert [r.seq for r in shared] == list(range(1, len(shared) + 1))
        texts = {r.text for r in shared}
        for who, count in (("a", shared_a), ("b", shared_b)):
            for n in range(1, count // 2 + 1):
                assert f"{who} question {n}" in texts and f"streamed answer {who}-{n}" in texts
        assert len(store.search("streamed", limit=100000)) == own_a // 2 + own_b // 2 + len(shared) // 2


def test_opening_waits_out_a_lock_held_longer_than_one_busy_timeout(db_path, monkeypatch):
    """Another process holding a fresh file (say, a second flue creating it) for longer than one
    busy timeout delays the open; it does not fail it. Held by a plain SQLite connection in rollback
    mode, which is what a brand-new file is before the first open switches it to WAL."""
    import sqlite3
    import threading

    from flue_tui.store import conn

    monkeypatch.setattr(conn, "BUSY_TIMEOUT_S", 0.2)
    holder = sqlite3.connect(db_path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("CREATE TABLE held (x)")
    released = threading.Event()

    def release() -> None:
        released.wait(30)
        holder.execute("COMMIT")
        holder.close()

    t = threading.Thread(target=release)
    t.start()
    try:
        threading.Timer(1.0, released.set).start()  # held for five busy timeouts
        with SessionStore.open(db_path) as store:
            assert store.path == str(db_path)
            assert store.list_sessions() == []
    finally:
        released.set()
        t.join(30)
