"""Read-only facts about a session database, for `flue doctor`."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from flue_tui.store.dbfile import examine
from flue_tui.store.migrations import MIGRATIONS, applied_names


@dataclass(frozen=True, slots=True)
class Health:
    path: str
    exists: bool
    size: int = 0
    schema: str = ""  # the newest applied migration
    current: bool = True  # schema matches this flue
    problem: str | None = None  # corrupt, unreadable, newer version...
    sessions: int = 0
    ours: bool = True  # an SQLite file (so moving it aside is the fix); False: a directory, a user's file


def inspect(path: str | Path) -> Health:
    target = Path(path)
    if not target.exists():
        return Health(str(target), exists=False)
    state = examine(target)
    if not state.usable:
        return Health(str(target), True, problem=state.problem, ours=False)
    size = target.stat().st_size
    try:
        # Read-only: a doctor never changes what it examines.
        conn = sqlite3.connect(f"file:{target}?mode=ro", uri=True, timeout=2)
    except sqlite3.Error as exc:
        return Health(str(target), True, size, problem=f"cannot open: {exc}")
    try:
        verdict = conn.execute("PRAGMA quick_check").fetchone()[0]
        if verdict != "ok":
            return Health(str(target), True, size, problem=f"integrity check failed: {verdict}")
        applied = applied_names(conn)
        known = [fn.__name__ for fn in MIGRATIONS]
        newer = [name for name in applied if name not in known]
        sessions = conn.execute("SELECT count(*) FROM sessions").fetchone()[0] if applied else 0
        return Health(
            str(target),
            True,
            size,
            schema=applied[-1] if applied else "(empty)",
            current=applied == known,
            sessions=sessions,
            problem=f"written by a newer flue (schema {newer[-1]})" if newer else None,
        )
    except sqlite3.Error as exc:
        return Health(str(target), True, size, problem=f"unreadable: {exc}")
    finally:
        conn.close()
