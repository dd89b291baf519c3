"""A run that could not save its session says so in its result (issue 13, item 14), and SIGTERM
keeps the partial answer for the resume, as kill -9 does."""

from __future__ import annotations

import json
import resource
import signal
import subprocess
import sys

from flue_tui.core.messages import AssistantMessage, UserMessage
from flue_tui.store.resume import STREAM_INTERRUPTED
from flue_tui.store.sessions import SessionStore
from tests.fakellm import Turn

FLUE = [sys.executable, "-m", "flue_tui", "-p", "--model", "openai/fake"]
# The -shm index needs 32 KiB; above that, the first big commit to the -wal cannot be written.
FILE_SIZE_LIMIT = 40_000


def _small_files() -> None:
    # A disk that fills up: every file this process writes stops at FILE_SIZE_LIMIT bytes (EFBIG;
    # Python ignores SIGXFSZ). No root, no tmpfs needed.
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_LIMIT, FILE_SIZE_LIMIT))


def test_a_session_that_could_not_be_written_fails_the_run(fakellm, flue_env, tmp_path):
    db = tmp_path / "s.db"
    with SessionStore.open(db):
        pass  # the schema exists; the run only has to write its messages
    fakellm.script([Turn(text="the answer")])
    prompt = "explain this log:\n" + "line of a long log\n" * 6000  # ~110 KB: bigger than any file may grow
    proc = subprocess.run(
        [*FLUE, prompt, "--db", str(db), "--output-format", "json"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=flue_env,
        cwd=tmp_path,
        timeout=180,  # generous, as run_flue: a fresh flue imports litellm
        preexec_fn=_small_files,
    )
    assert proc.returncode == 1, proc.stderr
    obj = json.loads(proc.stdout)
    assert obj["is_error"] is True and obj["subtype"] == "error_during_execution"
    assert "was not saved completely" in obj["result"] and str(db) in obj["result"]
    assert obj["result"].startswith("the answer")  # the answer itself is not lost
    assert "Traceback" not in proc.stderr

    fakellm.script([Turn(text="the answer")])
    text = subprocess.run(
        [*FLUE, prompt, "--db", str(db)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=flue_env,
        cwd=tmp_path,
        timeout=180,
        preexec_fn=_small_files,
    )
    assert text.returncode == 1 and "was not saved completely" in text.stderr, text.stderr
    assert text.stdout == "the answer\n"  # text mode: the answer on stdout, the failure on stderr


def test_sigterm_keeps_the_partial_answer_for_the_resume(fakellm, flue_env, tmp_path):
    db = tmp_path / "s.db"
    fakellm.script([Turn(text="Half of a careful answer", text_tokens=2000, tokens_per_second=20)])
    proc = subprocess.Popen(
        [
            *FLUE,
            "question",
            "--session",
            "cut",
            "--db",
            str(db),
            "--output-format",
            "events",
            "--include-partial-messages",
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=flue_env,
        cwd=tmp_path,
        text=True,
    )
    try:
        assert proc.stdout is not None
        streamed = ""
        for line in proc.stdout:
            event = json.loads(line)
            if event.get("type") == "text_delta":
                streamed += event["text"]
                if len(streamed) > len("Half of a careful answer") + 20:
                    break
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 143
    with SessionStore.open(db) as store:
        info = store.find("cut", str(tmp_path))
        context = store.load_context(info.id)
    assert isinstance(context[0], UserMessage) and context[0].content == "question"
    kept = context[1]
    assert isinstance(kept, AssistantMessage) and kept.stop_reason == "stop"  # it reaches the model
    assert kept.text.startswith(streamed)  # everything printed before the signal, at least
    assert isinstance(context[2], UserMessage) and STREAM_INTERRUPTED in context[2].content
