"""The model's text and tool arguments never reach the terminal as escapes it obeys: no window
title (OSC 0), no clipboard write (OSC 52), no screen wipe (ESC [2J), in print mode's text and
--verbose lines, in plain mode, and in inline mode's rich output. JSON formats escape them anyway."""

from __future__ import annotations

import io
import json

from rich.console import Console
from rich.markdown import Markdown
from rich.text import Text

from flue_tui.inline.safe import Safe
from flue_tui.ui.termsafe import terminal_safe
from tests.fakellm import Call, Turn

HOSTILE = "Done.\x1b]0;owned\x07\x1b]52;c;cm0gLXJmIH4=\x1b\\\x1b[2J\x1b[H\rfake\x08\x9b31m\x00 end\n\tok"
CONTROLS = {chr(c) for c in range(0x20) if chr(c) not in "\n\t"} | {chr(c) for c in range(0x7F, 0xA0)}


def test_terminal_safe_leaves_no_control_but_newline_and_tab():
    safe = terminal_safe(HOSTILE)
    assert not CONTROLS & set(safe), repr(safe)
    assert safe.startswith("Done.") and "\n\tok" in safe and "owned" not in safe and "cm0gLXJmIH4" not in safe
    assert terminal_safe("plain words\n\tand é€ ✓") == "plain words\n\tand é€ ✓"


def test_inline_rich_output_shows_no_escape_from_the_text():
    for renderable in (Text(HOSTILE), Markdown(HOSTILE)):
        out = io.StringIO()
        Console(file=out, force_terminal=True, color_system=None).print(Safe(renderable))
        assert "\x1b" not in out.getvalue() and "\x9b" not in out.getvalue(), repr(out.getvalue())


def _script(fakellm, tmp_path):
    (tmp_path / "a.txt").write_text("one\n")
    fakellm.script(
        [Turn(calls=[Call("read", {"path": "a.txt\x1b]0;tool-owned\x07\x1b[2J"}, id="r1")]), Turn(text=HOSTILE)]
    )


def test_print_mode_text_and_verbose_lines_carry_no_escapes(fakellm, flue_env, tmp_path):
    import subprocess
    import sys

    _script(fakellm, tmp_path)
    proc = subprocess.run(
        [sys.executable, "-m", "flue_tui", "-p", "go", "--model", "openai/fake", "--verbose"],
        cwd=tmp_path,
        env=flue_env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr
    assert b"Done." in proc.stdout and b"tool read" in proc.stderr
    for stream in (proc.stdout, proc.stderr):
        assert b"\x1b" not in stream and b"\x07" not in stream and b"\xc2\x9b" not in stream, stream


def test_json_output_still_carries_the_exact_text_escaped(fakellm, flue_main, tmp_path):
    _script(fakellm, tmp_path)
    out = flue_main("-p", "go", "--model", "openai/fake", "--output-format", "json")
    assert out.code == 0, out.stderr
    assert "\x1b" not in out.stdout and json.loads(out.stdout)["result"] == HOSTILE


def test_plain_mode_carries_no_escapes(fakellm, flue_env, tmp_path):
    import subprocess
    import sys

    _script(fakellm, tmp_path)
    proc = subprocess.run(
        [sys.executable, "-m", "flue_tui", "--plain", "--model", "openai/fake", "--permission-mode", "yolo", "go"],
        cwd=tmp_path,
        env=flue_env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=180,
    )
    assert b"Done." in proc.stdout, (proc.stdout, proc.stderr)
    for stream in (proc.stdout, proc.stderr):
        assert b"\x1b" not in stream and b"\x07" not in stream and b"\xc2\x9b" not in stream, stream


def test_the_apps_transcript_never_holds_an_escape():
    """The app and inline mode draw from the router's transcript: model text, a command's live
    output and a tool's result arrive there with escapes shown, never obeyed."""
    from flue_tui.core import events as ev
    from flue_tui.ui.router import EventRouter
    from flue_tui.ui.transcript import Transcript

    transcript = Transcript(session_id="ses_x")
    router = EventRouter(transcript, lambda: None, cwd="/tmp")
    base = {"session": "ses_x"}
    router.handle(ev.TextDelta(**base, text="hi \x1b]52;c;aGk=\x07 and \x1b[2J done"))
    router.handle(ev.ToolStart(**base, tool_name="bash", tool_call_id="c1", args={"command": "x"}, kind="execute"))
    router.handle(ev.ToolOutput(**base, tool_call_id="c1", stream="stdout", chunk="out \x1b]0;title\x07\n"))
    router.handle(
        ev.ToolEnd(
            **base,
            tool_name="bash",
            tool_call_id="c1",
            is_error=False,
            result={"content": [{"type": "text", "text": "res \x1b[31mred"}]},
            duration_ms=1,
            outcome="ok",
        )
    )
    router.take()
    shown = repr([vars(e) if hasattr(e, "__dict__") else e for e in transcript.entries])
    assert "\\x1b" not in shown.replace("\\\\x1b", "")
