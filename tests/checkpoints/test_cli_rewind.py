"""Issue 18's "done when", through the real CLI: a scripted session changes files with `edit`,
`write` and `bash` (sed -i, rm, mv, a new file) over several `flue -p --session` runs; then
`flue sessions rewind NAME --to N` puts the tree back byte for byte for every N, ignored files
untouched, `--undo` puts back what a rewind replaced, and a conversation rewind forks the session
so the next `flue -p --resume <fork>` continues from the chosen point."""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

from flue_tui.checkpoints import FileCheckpoints
from flue_tui.store.sessions import SessionStore
from tests.fakellm import Call, Turn

MODEL = ("--model", "openai/fake")
PROMPTS = ["fix the greeting", "rewrite b", "shuffle files with the shell", "say done"]


def tree(root: Path) -> dict[str, str]:
    """Every file but the ignored ones and .git, by content hash (and the executable bit)."""
    out: dict[str, str] = {}
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in files:
            path = Path(dirpath) / name
            rel = path.relative_to(root).as_posix()
            if rel.endswith(".log"):
                continue
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest() + ("x" if os.access(path, os.X_OK) else "")
    return out


def script(fakellm) -> None:
    fakellm.script(
        [
            Turn(calls=[Call("edit", {"path": "a.txt", "oldText": "hello", "newText": "goodbye"}, id="e1")]),
            Turn(text="Edited."),
            Turn(calls=[Call("write", {"path": "b.txt", "content": "all new\n"}, id="w1")]),
            Turn(text="Rewritten."),
            Turn(
                calls=[
                    Call(
                        "bash",
                        {
                            "command": "sed -i s/three/THREE/ c.txt && rm d.txt && mv e.txt sub/f.txt && "
                            "printf 'brand new\\n' > g.txt && echo more >> run.log"
                        },
                        id="b1",
                    )
                ]
            ),
            Turn(text="Shuffled."),
            Turn(text="Done."),
            Turn(text="Back at two."),
        ]
    )


def test_rewind_every_turn_byte_for_byte_then_fork_the_conversation(fakellm, flue_main, tmp_path, _isolated_home):
    ws = tmp_path / "proj"
    (ws / "sub").mkdir(parents=True)
    (ws / "a.txt").write_text("hello world\n")
    (ws / "b.txt").write_text("old b\n")
    (ws / "c.txt").write_text("one\ntwo\nthree\n")
    (ws / "d.txt").write_text("to be removed\n")
    (ws / "e.txt").write_text("to be moved\n")
    (ws / "bin.dat").write_bytes(bytes(range(256)) * 4)
    (ws / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (ws / "run.sh").chmod(0o755)
    (ws / ".gitignore").write_text("*.log\n")
    (ws / "run.log").write_text("log line 1\n")
    script(fakellm)

    before: dict[int, dict[str, str]] = {}
    results = []
    for n, prompt in enumerate(PROMPTS, 1):
        before[n] = tree(ws)
        out = flue_main(
            "-p", "--permission-mode", "yolo", prompt, "--session", "work", *MODEL, "--output-format", "json", cwd=ws
        )
        assert out.code == 0, out.stderr
        results.append(json.loads(out.stdout.splitlines()[-1]))
    sid = results[0]["session_id"]
    # -p's result names the checkpoint its run started from, for CI to roll back to.
    assert [r["checkpoint"] for r in results] == [f"{sid}/{n}" for n in range(1, 5)]
    assert (ws / "a.txt").read_text() == "goodbye world\n" and not (ws / "d.txt").exists()
    assert (ws / "sub" / "f.txt").exists() and (ws / "g.txt").exists()
    log_now = (ws / "run.log").read_text()
    assert log_now == "log line 1\nmore\n"
    after = tree(ws)

    listed = flue_main("sessions", "checkpoints", "work", "--json", cwd=ws)
    assert listed.code == 0, listed.stderr
    rows = json.loads(listed.stdout)["checkpoints"]
    assert [r["prompt"] for r in rows] == PROMPTS
    changed = [sorted((c["status"], c["path"]) for c in r["files_changed"]) for r in rows]
    assert changed == [
        [("modified", "a.txt")],
        [("modified", "b.txt")],
        [("added", "g.txt"), ("added", "sub/f.txt"), ("deleted", "d.txt"), ("deleted", "e.txt"), ("modified", "c.txt")],
        [],
    ]
    patch = flue_main("sessions", "diff", "work", "--turn", "1", cwd=ws)
    assert patch.code == 0 and "-hello world" in patch.stdout and "+goodbye world" in patch.stdout

    for n in (3, 1, 2, 4):
        out = flue_main("sessions", "rewind", "work", "--to", str(n), "--code", cwd=ws)
        assert out.code == 0, out.stderr
        assert "flue sessions rewind work --undo" in out.stdout
        assert tree(ws) == before[n], n
        assert (ws / "run.log").read_text() == log_now  # ignored: never touched
    out = flue_main("sessions", "rewind", "work", "--to", "1", "--code", cwd=ws)
    assert tree(ws) == before[1]
    out = flue_main("sessions", "rewind", "work", "--undo", cwd=ws)  # back to before that rewind
    assert out.code == 0, out.stderr
    assert tree(ws) == before[4]
    (ws / "a.txt").write_text("a dirty edit nobody saved\n")
    dirty = tree(ws)
    # An edit no turn of the session made is named, and replaced only with --force.
    refused = flue_main("sessions", "rewind", "work", "--to", "2", "--code", cwd=ws)
    assert refused.code == 1 and "a.txt" in refused.stderr and "--force" in refused.stderr, refused.stderr
    assert tree(ws) == dirty
    assert flue_main("sessions", "rewind", "work", "--to", "2", "--code", "--force", cwd=ws).code == 0
    assert tree(ws) == before[2]
    assert flue_main("sessions", "rewind", "work", "--undo", cwd=ws).code == 0
    assert tree(ws) == dirty  # a rewind never loses uncommitted work

    # Both (the default): the files of before message 3, and a fork holding messages 1 and 2 only.
    out = flue_main("sessions", "rewind", "work", "--to", "3", "--force", cwd=ws)
    assert out.code == 0, out.stderr
    assert tree(ws) == before[3]
    fork_id = re.search(r"flue --resume (\S+)", out.stdout).group(1)
    assert out.stdout.rstrip().endswith("Message 3 was:\nshuffle files with the shell")
    with SessionStore.open(_isolated_home / "sessions.db") as store:
        assert store.get(fork_id).forked_from == sid
        assert store.get(sid).message_count == len(list(store.iter_messages(sid)))  # the original is intact
        assert [p.text for p in store.user_prompts(sid)] == PROMPTS
    requests_before = len(fakellm.requests)
    out = flue_main(
        "-p",
        "--permission-mode",
        "yolo",
        "do it differently",
        "--resume",
        fork_id,
        *MODEL,
        "--output-format",
        "json",
        cwd=ws,
    )
    assert out.code == 0, out.stderr
    assert json.loads(out.stdout.splitlines()[-1])["checkpoint"] == f"{fork_id}/3"
    sent = fakellm.requests[requests_before]["messages"]
    users = [m["content"] for m in sent if m["role"] == "user"]
    assert users == ["fix the greeting", "rewrite b", "do it differently"]
    # The fork carries the checkpoints before its branch point, so it rewinds as far back too.
    assert flue_main("sessions", "rewind", fork_id, "--to", "1", "--code", cwd=ws).code == 0
    assert tree(ws) == before[1]
    assert after != before[1]

    # Exports carry checkpoint metadata (never file contents); deleting a session deletes its checkpoints.
    export = flue_main("sessions", "export", "work", "--format", "json", cwd=ws)
    assert export.code == 0, export.stderr
    marks = json.loads(export.stdout)["checkpoints"]
    assert [m["message"] for m in marks] == [1, 2, 3, 4] and all(len(m["checkpoint"]) == 40 for m in marks)
    assert all(set(m) == {"message", "time", "checkpoint"} for m in marks)
    files = FileCheckpoints(ws, _isolated_home)
    assert sorted(files.numbered(sid)) == [1, 2, 3, 4]
    assert flue_main("sessions", "delete", sid, cwd=ws).code == 0
    assert files.numbered(sid) == {} and files.resolve(f"{sid}/undo") is None
    assert sorted(files.numbered(fork_id)) == [1, 2, 3]  # the fork keeps its own


def test_bad_input_is_one_sentence(fakellm, flue_main, tmp_path):
    ws = tmp_path / "proj"
    ws.mkdir()
    fakellm.script([Turn(text="Hi.")])
    assert flue_main("-p", "hello", "--session", "s", *MODEL, cwd=ws).code == 0
    cases = {
        ("rewind", "nope", "--to", "1"): 'No session named "nope"',
        ("rewind", "s", "--to", "5"): "Session s has 1 user message; choose N from 1 to 1.",
        ("rewind", "s", "--undo"): "Session s has no code rewind to undo.",
        ("diff", "s", "--turn", "2"): "choose N from 1 to 1",
    }
    for args, expected in cases.items():
        out = flue_main("sessions", *args, cwd=ws)
        assert out.code == 1 and expected in out.stderr and "Traceback" not in out.stderr, (args, out.stderr)
    out = flue_main("sessions", "rewind", "s", "--to", "0", cwd=ws)
    assert out.code == 2 and "message numbers start at 1" in out.stderr
