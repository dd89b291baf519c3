"""`flue sessions checkpoints | rewind` on stored data that misbehaves (in-process, no model):
an imported session whose id cannot name a checkpoint, and a prompt holding terminal escapes."""

from __future__ import annotations

from pathlib import Path

from flue_tui.cli.sessions import main
from flue_tui.store.sessions import SessionStore
from tests.store.conftest import assistant, user


def _session(db: Path, ws: Path, sid: str, name: str, prompts: list[str]) -> None:
    with SessionStore.open(db) as store:
        store.create(sid, cwd=str(ws), name=name)
        for text in prompts:
            store.append(sid, user(text))
            store.append(sid, assistant("ok"))


def test_an_id_that_cannot_name_a_checkpoint_is_one_sentence(tmp_path, capsys):
    ws = tmp_path / "ws"
    ws.mkdir()
    db = tmp_path / "s.db"
    _session(db, ws, "imported id with spaces", "odd", ["hello"])
    assert main(["checkpoints", "odd", "--db", str(db), "--cwd", str(ws)]) == 0  # listed, without files
    assert "  1  " in capsys.readouterr().out
    for args in (["rewind", "odd", "--to", "1", "--code"], ["diff", "odd"]):
        assert main([*args, "--db", str(db), "--cwd", str(ws)]) == 1
        err = capsys.readouterr().err
        assert err.startswith("flue: ") and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    # The conversation can still be rewound: the fork is made, and the text is shown, not obeyed.
    _session(db, ws, "ses_plain", "plain", ["\x1b]0;pwned\x07title", "second"])
    assert main(["rewind", "plain", "--to", "1", "--conversation", "--db", str(db), "--cwd", str(ws)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\\x1b]0;pwned\\x07title" in out
