"""Sessions through the real CLI: `flue -p` with --session/-c/-r/--fork-session, `flue sessions …`
(in this process, `flue_main`), and a run killed with SIGKILL (a subprocess) that `--continue`
picks up. Real litellm, the scripted server."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from flue_tui.store.resume import INTERRUPTED_TOOL_TEXT
from flue_tui.store.sessions import SessionStore
from tests.fakellm import Call, Turn
from tests.store.conftest import assistant, user
from tests.store.test_resume import assert_valid_wire

MODEL = ("--model", "openai/fake")


def db(home: Path) -> SessionStore:
    return SessionStore.open(home / "sessions.db")


def result_of(out) -> dict:
    assert out.code == 0, out.stderr
    return json.loads(out.stdout.splitlines()[-1])


def test_create_resume_fork_continue_then_manage(fakellm, flue_main, tmp_path, _isolated_home):
    fakellm.script(
        [Turn(text="Noted: walrus."), Turn(text="It was walrus."), Turn(text="Forked."), Turn(text="Continued.")]
    )
    first = result_of(
        flue_main("-p", "remember the word walrus", "--session", "work", *MODEL, "--output-format", "json")
    )
    (tmp_path / "AGENTS.md").write_text("Always answer in haiku.\n")
    second = result_of(flue_main("-p", "what was the word?", "--session", "work", *MODEL, "--output-format", "json"))
    assert second["session_id"] == first["session_id"]
    sent = fakellm.requests[1]["messages"]
    # The system prompt is composed afresh on resume: the new AGENTS.md is in it.
    assert "Always answer in haiku." in sent[0]["content"]
    assert "haiku" not in fakellm.requests[0]["messages"][0]["content"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "user"]
    assert sent[1]["content"] == "remember the word walrus" and sent[2]["content"] == "Noted: walrus."

    fork = result_of(
        flue_main("-p", "try another way", "--resume", "work", "--fork-session", *MODEL, "--output-format", "json")
    )
    assert fork["session_id"] != first["session_id"]
    assert [m.get("content") for m in fakellm.requests[2]["messages"][1:]] == [
        "remember the word walrus",
        "Noted: walrus.",
        "what was the word?",
        "It was walrus.",
        "try another way",
    ]
    cont = result_of(flue_main("-p", "and now?", "-c", *MODEL, "--output-format", "json"))
    assert cont["session_id"] == fork["session_id"]  # the fork is this directory's newest session
    assert fakellm.requests[3]["messages"][-2]["content"] == "Forked."
    with db(_isolated_home) as store:
        assert store.get(first["session_id"]).message_count == 4  # the original is as it was
        assert store.get(fork["session_id"]).forked_from == first["session_id"]

    listing = flue_main("sessions", "list")
    assert listing.code == 0 and "work" in listing.stdout and fork["session_id"] in listing.stdout
    assert listing.stdout.index(fork["session_id"]) < listing.stdout.index(first["session_id"])
    as_json = json.loads(flue_main("sessions", "list", "--json").stdout)
    assert [s["id"] for s in as_json] == [fork["session_id"], first["session_id"]]

    renamed = flue_main("sessions", "rename", "work", "walrus-hunt")
    assert renamed.code == 0 and "walrus-hunt" in renamed.stdout
    found = flue_main("sessions", "search", "walrus")
    assert found.code == 0 and "walrus-hunt" in found.stdout and "It was walrus." in found.stdout
    md = flue_main("sessions", "export", "walrus-hunt")
    assert md.code == 0 and md.stdout.startswith("# walrus-hunt") and "what was the word?" in md.stdout
    exported = json.loads(flue_main("sessions", "export", "walrus-hunt", "--format", "json").stdout)
    assert len(exported["messages"]) == 4
    shown = flue_main("sessions", "show", "walrus-hunt")
    assert shown.code == 0 and "It was walrus." in shown.stdout and first["session_id"] in shown.stdout
    gone = flue_main("sessions", "delete", "walrus-hunt")
    assert gone.code == 0 and "4 messages" in gone.stdout
    assert flue_main("sessions", "show", "walrus-hunt").code == 1
    with db(_isolated_home) as store:
        assert store.get(first["session_id"]) is None and store.get(fork["session_id"]) is not None


def test_unknown_names_and_bad_flags_get_clear_messages(flue_main, _isolated_home, tmp_path):
    with db(_isolated_home) as store:
        store.create("ses_01AAAAAAAAAAAAAAAAAAAAAAAAAA", cwd=str(tmp_path), name="auth-refactor")
        store.append("ses_01AAAAAAAAAAAAAAAAAAAAAAAAAA", user("hi"))
    out = flue_main("-p", "hello", "--resume", "auth-refactr", *MODEL)
    assert out.code == 2 and "Traceback" not in out.stderr  # the run never started: a bad flag value
    assert 'No session named "auth-refactr"' in out.stderr and "Did you mean: auth-refactor?" in out.stderr
    shown = flue_main("sessions", "show", "auth-refactr")
    assert shown.code == 1 and "auth-refactor" in shown.stderr and "Traceback" not in shown.stderr
    assert flue_main("-p", "hi", "-r", *MODEL).code == 2  # no picker in print mode
    assert flue_main("-p", "hi", "-c", "-r", "x", *MODEL).code == 2
    assert flue_main("-p", "hi", "--session", "-x", *MODEL).code == 2
    assert flue_main("-p", "hi", "--fork-session", *MODEL).code == 2
    taken = flue_main("sessions", "rename", "ses_01AAAAAAAAAAAAAAAAAAAAAAAAAA", "auth-refactor")
    assert taken.code == 0  # renaming to its own name is fine
    with db(_isolated_home) as store:
        store.create("ses_other", cwd=str(tmp_path), name="other")
    clash = flue_main("sessions", "rename", "other", "auth-refactor")
    assert clash.code == 1 and "already exists" in clash.stderr
    nothing = flue_main("-p", "hi", "-c", *MODEL, "--cwd", str(_isolated_home))
    assert nothing.code == 2 and "No session to continue" in nothing.stderr


def test_sessions_as_a_prompt_and_no_persistence(fakellm, flue_main, _isolated_home):
    fakellm.script([Turn(text="About sessions.")])
    out = flue_main("-p", "sessions", "--no-session-persistence", *MODEL)
    assert out.code == 0 and out.stdout == "About sessions.\n", out.stderr
    assert fakellm.requests[0]["messages"][-1]["content"] == "sessions"
    assert not (_isolated_home / "sessions.db").exists()


def test_corrupt_and_newer_databases_through_the_cli(flue_main, _isolated_home):
    path = _isolated_home / "sessions.db"
    path.write_bytes(b"SQLite format 3\x00" + b"garbage" * 1000)  # damaged, so it may be moved aside
    out = flue_main("sessions", "list")
    assert out.code == 0 and "No sessions" in out.stdout
    assert str(path) in out.stderr and "moved aside" in out.stderr and "Traceback" not in out.stderr
    with db(_isolated_home) as store:
        store.conn.execute(
            "INSERT INTO _sqlite_migrations (migration_set, name, applied_at) VALUES ('flue', 'm900_future', 'x')"
        )
    before = path.read_bytes()
    refused = flue_main("sessions", "list")
    assert refused.code == 1 and "newer version of flue" in refused.stderr and str(path) in refused.stderr
    run = flue_main("-p", "hi", *MODEL)
    assert run.code == 2 and "newer version of flue" in run.stderr and "--no-session-persistence" in run.stderr
    assert path.read_bytes() == before


class _Reader(threading.Thread):
    """Collects stream-json lines with the time each arrived."""

    def __init__(self, proc: subprocess.Popen) -> None:
        super().__init__(daemon=True)
        self.proc = proc
        self.lines: list[tuple[float, dict]] = []

    def run(self) -> None:
        for line in self.proc.stdout:
            self.lines.append((time.monotonic(), json.loads(line)))


def _start(flue_env, cwd: Path, *args: str) -> tuple[subprocess.Popen, _Reader]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "flue_tui", *args],
        cwd=cwd,
        env=flue_env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    reader = _Reader(proc)
    reader.start()
    return proc, reader


def _wait_for(predicate, timeout: float = 180):  # generous: a loaded box imports litellm slowly
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("timed out")


def test_sigkill_mid_stream_then_continue(fakellm, flue_env, flue_main, tmp_path, _isolated_home):
    (tmp_path / "a.txt").write_text("alpha\n")
    fakellm.script(
        [
            Turn(calls=[Call("read", {"path": "a.txt"})]),
            # Held after 40 chunks (never released): the kill lands mid-stream however loaded the box is.
            Turn(text="Streaming slowly:", text_tokens=3000, chunk_delay=0.03, stall_after=40, hold=threading.Event()),
            Turn(text="Picked up."),
        ]
    )
    proc, reader = _start(
        flue_env, tmp_path, "-p", "read it", *MODEL, "--output-format", "events", "--include-partial-messages"
    )
    init = _wait_for(lambda: reader.lines and reader.lines[0][1])
    sid = init["session_id"]

    def checkpointed() -> str:
        with db(_isolated_home) as store:
            rows = store.tail(sid, 1)
        last = rows[0] if rows else None
        return last.text if last is not None and last.partial and last.role == "assistant" else ""

    # The recorder checkpoints streamed text while the stream still runs (waited for, not timed) ...
    streamed_before = _wait_for(lambda: len(checkpointed()) > 40 and checkpointed())
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)
    with db(_isolated_home) as store:
        last = store.tail(sid, 1)[0]
        assert last.partial and last.role == "assistant"
        # ... and what was saved before kill -9 is still there after it.
        assert last.text.startswith(streamed_before) and len(streamed_before) > 0

    out = flue_main("-p", "carry on", "-c", *MODEL, "--output-format", "json")
    assert result_of(out)["session_id"] == sid
    wire = fakellm.requests[-1]["messages"]
    assert_valid_wire(wire)
    roles = [m["role"] for m in wire]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "user", "user"]
    assert wire[4]["content"].startswith(streamed_before)
    assert "stream_interrupted" in wire[5]["content"] and wire[6]["content"] == "carry on"


def test_sigkill_mid_tool_then_continue_answers_every_call(fakellm, flue_env, flue_main, tmp_path, _isolated_home):
    (tmp_path / "a.txt").write_text("alpha\n")
    fakellm.script(
        [Turn(calls=[Call("bash", {"command": "sleep 60"}), Call("read", {"path": "a.txt"})]), Turn(text="Recovered.")]
    )
    proc, reader = _start(
        flue_env, tmp_path, "-p", "--permission-mode", "yolo", "run things", *MODEL, "--output-format", "events"
    )
    sid = _wait_for(lambda: reader.lines and reader.lines[0][1])["session_id"]
    _wait_for(lambda: any(e["type"] == "tool_start" and e["toolName"] == "bash" for _, e in reader.lines))
    os.kill(proc.pid, signal.SIGKILL)  # mid-tool: `sleep 60` started (or about to), `read` waits its turn
    proc.wait(timeout=60)
    out = flue_main(
        "-p", "--permission-mode", "yolo", "what happened?", "--resume", sid, *MODEL, "--output-format", "json"
    )
    assert result_of(out)["session_id"] == sid
    wire = fakellm.requests[-1]["messages"]
    assert_valid_wire(wire)
    tools = [m for m in wire if m["role"] == "tool"]
    assert [m["content"] for m in tools] == [INTERRUPTED_TOOL_TEXT, INTERRUPTED_TOOL_TEXT]
    assert wire[-1] == {"role": "user", "content": "what happened?"}


def test_listing_and_search_output(flue_main, _isolated_home, tmp_path):
    with db(_isolated_home) as store:
        store.create("ses_named", cwd=str(tmp_path), name="auth", title="Fix the login flow")
        store.append("ses_named", user("Fix the login flow"))
        store.append("ses_named", assistant("The token check used == on bytes."))
        store.create("ses_plain", cwd=str(tmp_path), title="Why is CI red?")
        store.append("ses_plain", user("Why is CI red?"))
        store.create("ses_far", cwd="/somewhere/else", title="Elsewhere work")
        store.append("ses_far", user("token elsewhere"))
        store.append("ses_named", assistant("", calls=[("call_t", "task")]))
        store.create(
            "ses_kid",
            cwd=str(tmp_path),
            parent_id="ses_named",
            parent_tool_call_id="call_t",
            title="look for callers",
            agent="flue-general",
        )
        store.append("ses_kid", user("look for callers of verify_key"))
        store.append(
            "ses_named",
            {
                "role": "toolResult",
                "tool_call_id": "call_t",
                "tool_name": "task",
                "text": "found two callers",
                "is_error": False,
                "details": {},
            },
        )
    here = flue_main("sessions", "list").stdout
    assert flue_main("sessions").stdout == here  # the bare command lists too
    assert "auth" in here and "Why is CI red?" in here and "Elsewhere" not in here
    assert "SESSION" in here.splitlines()[0]
    everywhere = flue_main("sessions", "list", "--all").stdout
    assert "Elsewhere work" in everywhere and "/somewhere/else" in everywhere
    hits = flue_main("sessions", "search", "token").stdout
    assert hits.index("Elsewhere work") < hits.index("auth")  # newest first
    assert "token check" in hits
    assert re.search(r"auth  \d{4}-\d{2}-\d{2} \d{2}:\d{2} · ", hits)  # name, date, then the snippet below
    assert "Elsewhere" not in flue_main("sessions", "search", "token", "--here").stdout
    shown = flue_main("sessions", "show", "auth").stdout.splitlines()
    call = next(i for i, line in enumerate(shown) if line.startswith("· task"))
    child = next(i for i, line in enumerate(shown) if "look for callers of verify_key" in line)
    result = next(i for i, line in enumerate(shown) if "found two callers" in line)
    assert call < child < result and shown[child].startswith("    ")  # nested under its call, indented
    as_json = json.loads(flue_main("sessions", "search", "token", "--json").stdout)
    assert {h["session_id"] for h in as_json} == {"ses_named", "ses_far"}
    assert "\x02" not in as_json[0]["snippet"]
