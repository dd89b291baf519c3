"""A corrupt or unusable database never stops flue and never loses the old file."""

from __future__ import annotations

import pytest

from flue_tui.store.db import MEMORY
from flue_tui.store.sessions import SessionStore
from tests.store.conftest import user


def test_a_corrupt_file_is_moved_aside_and_a_fresh_one_started(db_path):
    # SQLite's header, then garbage: a damaged database (a file without the header is not ours to move).
    garbage = b"SQLite format 3\x00" + b"this is not an SQLite database, just some bytes " * 200
    db_path.write_bytes(garbage)
    with SessionStore.open(db_path) as store:
        assert store.path == str(db_path)
        assert len(store.notices) == 1
        notice = store.notices[0]
        moved = [p for p in db_path.parent.iterdir() if ".corrupt-" in p.name]
        assert len(moved) == 1 and moved[0].read_bytes() == garbage  # nothing lost
        assert str(db_path) in notice and str(moved[0]) in notice and "fresh database" in notice
        store.create("ses_1", cwd="/x")
        store.append("ses_1", user("hello"))
    with SessionStore.open(db_path) as again:  # the fresh file is a good one
        assert again.notices == () and again.get("ses_1") is not None


def test_a_damaged_page_is_treated_like_a_corrupt_file(db_path):
    with SessionStore.open(db_path) as store:
        store.create("ses_1", cwd="/x")
    data = bytearray(db_path.read_bytes())
    data[4096:] = b"\xff" * (len(data) - 4096)  # the header survives; every table's pages do not
    db_path.write_bytes(bytes(data))
    with SessionStore.open(db_path) as store:
        assert store.notices and "moved aside" in store.notices[0]
        assert store.list_sessions("/x") == []


def test_damage_found_later_becomes_one_sentence(db_path):
    from flue_tui.store.db import StoreError, friendly_errors

    with SessionStore.open(db_path) as store:
        store.create("ses_1", cwd="/x")
        for n in range(400):
            store.append("ses_1", user(f"message {n} " + "words " * 100))
    data = bytearray(db_path.read_bytes())
    middle = len(data) // 2 // 4096 * 4096
    data[middle : middle + 4096 * 4] = b"\xff" * (4096 * 4)  # damage deep inside the messages table
    db_path.write_bytes(bytes(data))
    with SessionStore.open(db_path) as store:
        with pytest.raises(StoreError) as err, friendly_errors(store.path):
            list(store.iter_messages("ses_1"))
        assert str(db_path) in str(err.value) and "Move it aside" in str(err.value)


def test_an_unopenable_path_is_left_alone_and_the_run_uses_memory(db_path):
    db_path.mkdir()  # something that is not a database file sits where the file should be
    (db_path / "keep").write_text("mine")
    with SessionStore.open(db_path) as store:
        assert store.path == MEMORY
        assert str(db_path) in store.notices[0] and "is a directory" in store.notices[0]
        assert "mv " not in store.notices[0]  # never advise moving a directory that is not ours
        store.create("ses_1", cwd="/x")  # still works, in memory
    assert (db_path / "keep").read_text() == "mine"


def test_a_directory_in_the_way_is_reported_not_fatal(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with SessionStore.open(blocker / "sessions.db") as store:
        assert store.path == MEMORY and "cannot be reached" in store.notices[0]
