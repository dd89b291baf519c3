"""`flue sessions import FILE|DIR …`: many exports in one process (a fleet's artifacts, Harbor's
trials). A session already in the database is skipped, a bad file is named and the rest still go
in; the exit status is 1 only when some file could not be imported."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass

from flue_tui.core.files import open_regular
from flue_tui.store.db import StoreError
from flue_tui.store.importing import AlreadyImported, ImportProblem, import_json
from flue_tui.store.sessions import SessionStore


@dataclass(slots=True)
class Tally:
    imported: int = 0
    skipped: int = 0
    failed: int = 0


def exports(paths: list[str], tally: Tally) -> Iterator[str]:
    """Each named file, and every `*.json` under each named directory (sorted, symlinked
    directories not entered, so a link loop or a link to / cannot make the walk endless)."""
    for path in paths:
        if path == "-" or not os.path.isdir(path):
            yield path
            continue
        for top, dirs, files in os.walk(path, onerror=lambda exc, root=path: _unreadable(exc, root, tally)):
            dirs.sort()
            for name in sorted(files):
                if name.lower().endswith(".json"):
                    yield os.path.join(top, name)


def _unreadable(exc: OSError, root: str, tally: Tally) -> None:
    """A directory the walk cannot list: counted as failed, named, the walk goes on."""
    tally.failed += 1
    where = shown(os.fsdecode(exc.filename)) if exc.filename is not None else shown(root)
    print(f"flue: Cannot read {where}: {exc.strerror or exc}; it was skipped.", file=sys.stderr)


def shown(path: str) -> str:
    """A path as it can be printed: a name's bytes that are not UTF-8 as `\\xff`, never an encode error."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _read(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    with open_regular(path) as fh:  # a FIFO or device among the artifacts must not hang the import
        return fh.read()


def _load(path: str, nothing: str) -> object:
    """The file's JSON, or StoreError: one sentence naming the file and what is wrong."""
    name = shown(path)
    try:
        raw = _read(path)
    except OSError as exc:
        raise StoreError(f"Cannot read {name}: {exc.strerror or exc}; {nothing}.") from None
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise StoreError(
            f"{name} is not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start}), so "
            f"it is not a flue JSON export; {nothing}."
        ) from None
    except json.JSONDecodeError as exc:
        raise StoreError(f"{name} is not JSON ({exc.msg} at line {exc.lineno}); {nothing}.") from None
    except RecursionError:
        raise StoreError(f"{name} is nested too deeply to be a flue session export; {nothing}.") from None
    except ValueError:  # Python's int-size limit: a number of thousands of digits
        raise StoreError(f"{name} holds a number too long to be a flue session export's; {nothing}.") from None


def import_one(store: SessionStore, path: str, tally: Tally, *, alone: bool) -> None:
    nothing = "nothing was imported" if alone else "that file was not imported"
    try:
        data = _load(path, nothing)
        try:
            info, notices = import_json(store, data)
        except AlreadyImported as exc:
            tally.skipped += 1
            print(f"Skipped {exc.label} ({exc.session_id}): it is already in this database.")
            return
        except ImportProblem as exc:
            raise StoreError(f"Cannot import {shown(path)}: {exc}; {nothing}.") from None
    except StoreError as exc:
        if alone:
            raise
        tally.failed += 1
        print(f"flue: {exc}", file=sys.stderr)
        return
    tally.imported += 1
    for notice in notices:
        print(f"flue: {notice}", file=sys.stderr)
    tasks = len(store.children(info.id))
    print(f"Imported {info.label} ({info.id}): {info.message_count} messages, {tasks} task sessions.")


def import_all(store: SessionStore, paths: list[str]) -> int:
    tally = Tally()
    found = list(exports(paths, tally))
    alone = len(found) == 1 and len(paths) == 1 and found == paths and not tally.failed
    for path in found:
        import_one(store, path, tally, alone=alone)
    if not alone:
        failed = f", {tally.failed} {'file' if tally.failed == 1 else 'files'} failed" if tally.failed else ""
        print(f"Imported {tally.imported} sessions, skipped {tally.skipped}{failed}.")
    return 1 if tally.failed else 0
