"""`flue sessions import` of hostile files (issue 13, item 13): one true sentence each, never a
traceback, nothing half-imported, and the count it reports is what was imported."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from flue_tui.cli import sessions as sessions_cli
from flue_tui.store.sessions import SessionStore

GOOD = {
    "session": {
        "id": "ses_imp1",
        "name": "imported",
        "cwd": "/w",
        "model": "openai/fake",
        "message_count": 0,
        "cost_usd": 0.5,
        "input_tokens": 3,
        "created_at": "2026-01-01T00:00:00.000Z",
    },
    "messages": [
        {"seq": 1, "role": "user", "content": "hello"},
        {
            "seq": 2,
            "role": "assistant",
            "text": "",
            "tool_calls": [{"id": "c1", "name": "read", "arguments": {}}],
            "stop_reason": "tool_calls",
            "usage": {"input": 3, "output": 1, "cost": 0.5},
        },
        {"seq": 3, "role": "toolResult", "tool_call_id": "c1", "tool_name": "read", "text": "x", "is_error": False},
    ],
    "tasks": [{"session": {"id": "ses_imp2", "cwd": "/w"}, "messages": [{"seq": 1, "role": "user", "content": "t"}]}],
}


def run_import(capsys, db: Path, tmp_path: Path, payload: bytes) -> tuple[int, str, str]:
    src = tmp_path / "in.json"
    src.write_bytes(payload)
    code = sessions_cli.main(["import", str(src), "--db", str(db), "--cwd", str(tmp_path)])
    out = capsys.readouterr()
    return code, out.out, out.err


def nothing_written(db: Path) -> bool:
    with SessionStore.open(db) as store:
        return (
            store.conn.execute("SELECT count(*) FROM sessions").fetchone()[0] == 0
            and store.conn.execute("SELECT count(*) FROM messages").fetchone()[0] == 0
        )


def broken(change) -> bytes:
    data = copy.deepcopy(GOOD)
    change(data)
    return json.dumps(data).encode()


CASES = {
    "not utf-8": (b'{"session": {"id": "ses_x\xff\xfe"}}', "is not UTF-8 text"),
    "message without seq": (broken(lambda d: d["messages"][1].pop("seq")), 'message 2 has no "seq"'),
    "message not an object": (broken(lambda d: d["messages"].append("hello")), "message 4 is not an object"),
    "cost is words": (
        broken(lambda d: d["session"].update(cost_usd="lots")),
        "session ses_imp1: \"cost_usd\" must be a number of 0 or more, not 'lots'; nothing was imported.",
    ),
    "duplicate seq": (broken(lambda d: d["messages"][2].update(seq=2)), "repeats seq 2"),
    "bad usage": (broken(lambda d: d["messages"][1]["usage"].update(cost="lots")), '"cost" must be a number'),
    "bad call": (broken(lambda d: d["messages"][1]["tool_calls"][0].pop("name")), 'call 1 has no "name"'),
    "bad task, good parent": (
        broken(lambda d: d["tasks"][0]["messages"][0].update(seq=True)),
        'task session ses_imp2 of ses_imp1: message 1 "seq" must be a whole number',
    ),
    "unknown role": (broken(lambda d: d["messages"][0].update(role="system")), "unknown role 'system'"),
    "not an export": (b"[1, 2]", 'has no "session" object'),
    "too deep": (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_bad_import_is_one_sentence_and_writes_nothing(capsys, tmp_path, case):
    payload, words = CASES[case]
    db = tmp_path / "s.db"
    code, out, err = run_import(capsys, db, tmp_path, payload)
    assert code == 1 and out == "", err
    assert words in err and err.count("\n") == 1 and "Traceback" not in err, err
    assert "damaged" not in err and "nothing was imported" in err
    assert nothing_written(db)


def test_a_good_import_reports_what_it_imported_and_shows_and_exports(capsys, tmp_path):
    db = tmp_path / "s.db"
    code, out, err = run_import(capsys, db, tmp_path, json.dumps(GOOD).encode())
    assert code == 0, err
    assert out == "Imported imported (ses_imp1): 3 messages, 1 task sessions.\n"  # not the file's "0"
    for argv in (["show", "ses_imp1"], ["export", "ses_imp1", "--format", "json"], ["export", "ses_imp1"]):
        assert sessions_cli.main([*argv, "--db", str(db), "--cwd", str(tmp_path)]) == 0
    exported = capsys.readouterr().out
    assert "hello" in exported


def test_words_stored_as_numbers_by_an_older_import_still_show_and_export(capsys, tmp_path):
    db = tmp_path / "s.db"
    with SessionStore.open(db) as store:
        store.create("ses_old1", cwd=str(tmp_path), name="old")
        store.conn.execute("UPDATE sessions SET cost_usd = 'lots', input_tokens = 'many' WHERE id = 'ses_old1'")
    for argv in (["show", "old"], ["export", "old"], ["export", "old", "--format", "json"], ["list"]):
        assert sessions_cli.main([*argv, "--db", str(db), "--cwd", str(tmp_path)]) == 0
    assert "Traceback" not in capsys.readouterr().err
