"""Issue 23: a rewind removes only what its checkpoint vouches did not exist, and says what it
did not restore; and with many sessions in one workspace it names every file it would remove or
overwrite that the session's own turns did not leave, and needs --force.

Before: `.env`, ignored at the checkpoint, was deleted as "created since" once the turn removed its
`.gitignore` line; a file over the size cap that the turn truncated was deleted; a file the turn
made mode 000 was reported restored and was not; rewinding one of 20 sessions removed the other
19 sessions' files without naming one. Now each checkpoint records what it saw but did not
capture (checkpoints/record.py), each turn's end is kept, and a rewind compares the two.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tests.fakellm import Call, Turn

MODEL = ("--model", "openai/fake")


def _turn(fakellm, flue_main, ws: Path, command: str, session: str = "work") -> None:
    fakellm.script([Turn(calls=[Call("bash", {"command": command}, id="b1")]), Turn(text="Done.")])
    out = flue_main("-p", "--permission-mode", "yolo", "do it", "--session", session, *MODEL, cwd=ws)
    assert out.code == 0, out.stderr


def test_an_ignored_file_whose_ignore_line_the_turn_removed_is_kept(fakellm, flue_main, tmp_path):
    ws = tmp_path / "proj"
    ws.mkdir()
    (ws / ".gitignore").write_text(".env\n")
    (ws / ".env").write_text("API_TOKEN=only-copy\n")
    _turn(fakellm, flue_main, ws, "printf '' > .gitignore && echo made > made.txt")
    out = flue_main("sessions", "rewind", "work", "--to", "1", "--code", cwd=ws)
    assert out.code == 0, out.stderr
    assert (ws / ".env").read_text() == "API_TOKEN=only-copy\n"
    assert (ws / ".gitignore").read_text() == ".env\n" and not (ws / "made.txt").exists()
    assert "Not restored: .env (not in the checkpoint (ignored then)" in out.stdout


def test_a_file_over_the_size_cap_the_turn_truncated_is_kept_and_named(fakellm, flue_main, tmp_path):
    ws = tmp_path / "proj"
    ws.mkdir()
    with open(ws / "big.bin", "wb") as fh:
        fh.truncate(11 * 1024 * 1024)  # over the 10 MB cap: never captured
    _turn(fakellm, flue_main, ws, ": > big.bin && echo made > made.txt")
    out = flue_main("sessions", "rewind", "work", "--to", "1", "--code", cwd=ws)
    assert out.code == 0, out.stderr
    assert (ws / "big.bin").exists() and not (ws / "made.txt").exists()
    assert "big.bin (not in the checkpoint (over the size cap" in out.stdout


def test_a_file_the_turn_made_mode_000_is_restored_or_named(fakellm, flue_main, tmp_path):
    ws = tmp_path / "proj"
    ws.mkdir()
    (ws / "m.txt").write_text("old\n")
    _turn(fakellm, flue_main, ws, "printf 'new\\n' > m.txt && chmod 000 m.txt")
    out = flue_main("sessions", "rewind", "work", "--to", "1", "--code", cwd=ws)
    assert out.code == 0, out.stderr
    mode = stat.S_IMODE((ws / "m.txt").stat().st_mode)
    if os.geteuid() == 0:  # root reads it: restored, content and a mode its owner can read
        assert (ws / "m.txt").read_text() == "old\n" and mode & 0o600 == 0o600, oct(mode)
        assert "m.txt" not in out.stdout
    else:  # unreadable, so not in the snapshot before the restore: never overwritten, and said
        assert mode == 0 and "Not restored: m.txt" in out.stdout


def test_rewinding_one_of_twenty_sessions_names_the_others_files_and_needs_force(fakellm, flue_main, tmp_path):
    ws = tmp_path / "proj"
    ws.mkdir()
    for i in range(20):
        fakellm.script(
            [
                Turn(calls=[Call("write", {"path": f"s{i}.txt", "content": f"session {i}\n"}, id=f"w{i}")]),
                Turn(text="Ok."),
            ]
        )
        out = flue_main("-p", "--permission-mode", "yolo", f"write s{i}", "--session", f"s{i}", *MODEL, cwd=ws)
        assert out.code == 0, out.stderr
    wanted = {f"s{i}.txt" for i in range(20)}
    assert {p.name for p in ws.iterdir()} == wanted

    out = flue_main("sessions", "rewind", "s0", "--to", "1", "--code", cwd=ws)
    assert out.code == 1 and "19 files that session s0's own turns did not leave" in out.stderr, out.stderr
    assert "s1.txt" in out.stderr and "--force" in out.stderr and "s0.txt" not in out.stderr
    assert {p.name for p in ws.iterdir()} == wanted  # nothing was changed

    # The last session's own file goes without a question: nobody else's is touched.
    out = flue_main("sessions", "rewind", "s19", "--to", "1", "--code", cwd=ws)
    assert out.code == 0, out.stderr
    assert {p.name for p in ws.iterdir()} == wanted - {"s19.txt"} and "Also replaced" not in out.stdout

    out = flue_main("sessions", "rewind", "s0", "--to", "1", "--code", "--force", cwd=ws)
    assert out.code == 0, out.stderr
    assert "Also replaced (not left by this session's turns): " in out.stdout and "and 8 more" in out.stdout
    assert list(ws.iterdir()) == []
    assert flue_main("sessions", "rewind", "s0", "--undo", cwd=ws).code == 0
    assert {p.name for p in ws.iterdir()} == wanted - {"s19.txt"}
