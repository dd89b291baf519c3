"""A reply's first text, as early as it can be drawn: before the app's Markdown stack is imported
it is drawn plain (tui/widgets/reply.py) and then as Markdown; its frame is not paced; and with a
prompt to answer, the app's background loads wait for that frame (tui/app.py)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from textual.widgets import Static

from flue_tui.tui import rendering
from flue_tui.ui.transcript import ReplyEntry
from tests.fakellm.script import Turn
from tests.tui.conftest import idle, loaded, screen_text, submit, wait_for

ROOT = Path(__file__).resolve().parents[2]

# A fresh interpreter, as `flue "…"` is: nothing has imported the Markdown stack yet.
APP = r"""
from flue_tui.config.settings import Settings
from flue_tui.runtime.start import SessionOptions
from flue_tui.tui.app import FlueApp
from flue_tui.ui.transcript import ReplyEntry

def screen(app):
    return "\n".join(s.text.rstrip() for s in app.screen._compositor.render_strips())

def launched():  # the app as `flue "say it"` starts it
    return FlueApp(Settings.from_env(model="openai/fake", cwd=sys.argv[1]), prompt="say it",
                   sessions=SessionOptions(persist=False))
"""

LAUNCH = (
    "import asyncio, json, sys\n"
    + APP
    + r"""
from flue_tui.tui import app as app_module
from flue_tui.tui.widgets.reply import markdown_ready

# The loads wait for the answer's frame however long it takes on a loaded machine (the bound of
# that wait is test_the_background_loads_wait_for_the_answer_only_so_long's).
app_module.HOLD_LOADS_S = 600.0

async def main():
    app = launched()
    async with app.run_test(size=(80, 24)) as pilot:
        # Woken with the app's own waiter for this event, before anything it starts has run.
        await app.answer_drawn.wait()
        reply = next(e for e in app.transcript.entries if isinstance(e, ReplyEntry))
        first = {"plain": reply.view.plain is not None, "ready": markdown_ready(), "screen": screen(app)}
        print(json.dumps(first), flush=True)
        # The stream is held: only the loads' end can redraw it (bounded, so a failure shows the screen).
        for _ in range(6000):
            if reply.view.md is not None and "**Bold**" not in screen(app) and "Bold" in screen(app):
                break
            await pilot.pause(0.01)
        print(json.dumps({"done": reply.done, "md": reply.view.md is not None, "screen": screen(app)}), flush=True)
        sys.stdin.readline()  # the test lets the stream go on
        while not reply.done or app.busy or app._flush_timer is not None:
            await pilot.pause(0.01)
        await pilot.pause()
        view = reply.view
        print(json.dumps({"plain": view.plain is not None, "source": view.md.source, "screen": screen(app)}))
        app.exit()

asyncio.run(main())
"""
)


def _child(script: str, work: Path, fakellm) -> subprocess.Popen[str]:
    env = dict(
        os.environ,
        OPENAI_BASE_URL=fakellm.base_url,
        OPENAI_API_KEY="sk-test",
        FLUE_HOME=str(work.parent / "home"),
        FLUE_RELAY="off",  # the app object alone, without the `flue` entry that starts the relay
    )
    return subprocess.Popen(
        [sys.executable, "-c", script, str(work)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )


def _line(proc: subprocess.Popen[str]) -> dict:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line:
        proc.wait(timeout=60)
        raise AssertionError(proc.stderr.read() if proc.stderr else "the child ended")
    return json.loads(line)


def test_a_launch_prompts_answer_is_drawn_plain_then_as_markdown(fakellm, work: Path):
    text = "**Bold** words, then `code` and the rest of the answer."
    rest = threading.Event()
    fakellm.script(Turn(text=text, stall_after=2, hold=rest))  # its role, "**Bold**", then held
    proc = _child(LAUNCH, work, fakellm)
    try:
        first = _line(proc)
        # Its first frame (drawn with the first piece that came, at once) came before the Markdown
        # stack was imported, as the loads waited for it: the text as it is, nothing interpreted yet.
        assert first["plain"] is True and first["ready"] is False
        assert "**Bold**" in first["screen"]
        upgraded = _line(proc)
        # Still streaming (held), it is drawn as Markdown once the stack has loaded.
        assert upgraded["done"] is False and upgraded["md"] is True
        assert "Bold" in upgraded["screen"] and "**Bold**" not in upgraded["screen"]
        rest.set()
        assert proc.stdin is not None
        proc.stdin.write("\n")
        proc.stdin.flush()
        last = _line(proc)
        assert last["plain"] is False and last["source"] == text
        assert "Bold words, then code and the rest of the answer." in last["screen"]
        assert proc.wait(timeout=60) == 0
    finally:
        rest.set()
        if proc.poll() is None:
            proc.kill()
        proc.wait()


WIDGETS = r"""
import asyncio, json, sys
from textual.app import App
from flue_tui.tui.widgets.reply import PLAIN_MAX, ReplyView, drawn_plain, markdown_ready
from flue_tui.ui.transcript import ReplyEntry

async def main():
    async with App().run_test() as pilot:
        streamed = ReplyView(ReplyEntry(text="**one**", streamed=True, done=True))
        await pilot.app.mount(streamed)
        out = {"streamed_plain": streamed.plain is not None, "redraw": [e.text for e in drawn_plain()]}
        stored = ReplyView(ReplyEntry(text="**two**", done=True))
        await pilot.app.mount(stored)
        out.update(stored_plain=stored.plain is not None, ready=markdown_ready())
        await streamed.sync()
        out.update(after_sync=streamed.plain is not None, redraw_after=[e.text for e in drawn_plain()])
        out["sources"] = [streamed.md.source, stored.md.source]
        print(json.dumps(out))

async def long():
    # A fresh interpreter again: a streamed reply past PLAIN_MAX is Markdown at once (wrapping it
    # whole at every flush would cost more than the import).
    async with App().run_test() as pilot:
        view = ReplyView(ReplyEntry(text="word " * (PLAIN_MAX // 5 + 1), streamed=True))
        await pilot.app.mount(view)
        print(json.dumps({"long_plain": view.plain is not None, "ready": markdown_ready()}))

asyncio.run(long() if sys.argv[1:] == ["long"] else main())
"""


def test_only_a_reply_of_this_runs_stream_is_ever_drawn_plain(tmp_path: Path):
    """A reply read back from the store (a resumed conversation) is Markdown from its first frame,
    even before the warm-up: a whole conversation must not change its look under the user's eyes.
    Drawing it imports the stack, so the streamed reply drawn plain before it is Markdown at its
    next sync."""
    out = subprocess.run([sys.executable, "-c", WIDGETS], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result == {
        "streamed_plain": True,
        "stored_plain": False,
        "redraw": ["**one**"],
        "ready": True,
        "after_sync": False,
        "redraw_after": [],
        "sources": ["**one**", "**two**"],
    }
    out = subprocess.run([sys.executable, "-c", WIDGETS, "long"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {"long_plain": False, "ready": True}


# The warm-up fails after the Markdown stack came in (the task view's module cannot be imported).
BROKEN_WARM = (
    "import asyncio, json, sys\n"
    'sys.modules["flue_tui.tui.widgets.task"] = None  # any import of it raises ImportError\n'
    + APP
    + r"""
async def main():
    app = launched()
    async with app.run_test(size=(80, 24)) as pilot:
        await app.answer_drawn.wait()
        reply = next(e for e in app.transcript.entries if isinstance(e, ReplyEntry))
        first = reply.view.plain is not None
        for _ in range(6000):  # bounded: a failure prints the screen
            if not app.busy and reply.view.md is not None and "Old answer" in screen(app):
                break
            await pilot.pause(0.01)
        print(json.dumps({"first_plain": first, "md": reply.view.md is not None, "screen": screen(app)}))
        app.exit()

asyncio.run(main())
"""
)


def test_a_plain_reply_is_drawn_as_markdown_even_if_the_warm_up_fails_later(fakellm, work: Path):
    """The reply is whole, so no more text would redraw it: the end of the warm-up does, however
    it ended (here the task view's import fails after the Markdown stack's succeeded)."""
    fakellm.script(Turn(text="Old **answer**"))
    proc = _child(BROKEN_WARM, work, fakellm)
    try:
        result = _line(proc)
        assert result["first_plain"] is True and result["md"] is True, result["screen"]
        assert "Old answer" in result["screen"] and "**answer**" not in result["screen"]
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


async def test_the_background_loads_wait_for_the_answer_only_so_long(make_app, fakellm):
    """A launch prompt whose model says nothing yet: the loads start after the hold, not after it."""
    rest = threading.Event()
    fakellm.script(Turn(text="Late.", stall_after=0, hold=rest))
    app = make_app("say it")
    async with app.run_test(size=(80, 24)) as pilot:
        try:
            await loaded(pilot)  # the history, the path index and the Markdown stack, all done
            assert not app.answer_drawn.is_set() and app.busy
        finally:
            rest.set()
        await idle(pilot)
        assert app.answer_drawn.is_set() and "Late." in screen_text(app)


async def test_a_replys_first_text_is_not_paced(make_app, fakellm, monkeypatch: pytest.MonkeyPatch):
    """The pace bounds how often a stream redraws, not how soon its answer shows: with a minute's
    pace the first text is on screen at once, the rest of the stream waiting its turn."""
    monkeypatch.setattr(rendering, "FLUSH_S", 60.0)
    rest = threading.Event()
    fakellm.script(Turn(text="First words here, then the rest.", stall_after=2, hold=rest))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        try:
            await loaded(pilot)
            await submit(pilot, "hello")
            await wait_for(pilot, lambda: "First wo" in screen_text(app), timeout=30)  # its first piece
            reply = next(e for e in app.transcript.entries if isinstance(e, ReplyEntry))
            assert not reply.done
        finally:
            rest.set()


async def test_the_answer_counts_as_painted_once_it_is_laid_out(make_app):
    """Textual runs an after-refresh callback once its screen has nothing dirty, which can come
    before a widget the flush mounted has asked for its layout (each widget asks from its own task:
    on a loaded machine the screen can be idle first). The answer's frame waits for the layout."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        view = Static("First words.")
        with app.batch_update():  # mounted, its layout held until the batch ends
            await app.conversation.mount(view)
            assert view.is_attached and view not in app.screen._compositor
            app._frame_painted(time.process_time(), view)
            assert not app.answer_drawn.is_set()
        await asyncio.wait_for(app.answer_drawn.wait(), 60)
        assert view in app.screen._compositor and "First words." in screen_text(app)


# Textual paints on a timer (TEXTUAL_FPS a second): at 1 a second, a stock screen's first frame and
# every paint after a change wait up to a second for its tick. The main screen paints the first
# frame and a reply's first text as soon as it is idle (tui/screens/main.py): the timer has not
# ticked for them (its ticks are counted here, Textual's Timer observed, not replaced).
URGENT = (
    "import asyncio, json, os, sys\n"
    'os.environ["TEXTUAL_FPS"] = "1"\n'
    + APP
    + r"""
from textual.timer import Timer
ticks = []
_tick = Timer._tick
async def counted(self, **kw):
    if self.name == "screen_update":
        ticks.append(self.name)
    return await _tick(self, **kw)
Timer._tick = counted

async def main():
    app = launched()
    at_frame = []
    first = app._after_first_frame
    def frame():
        at_frame.append((len(ticks), "Welcome to flue" in screen(app)))
        first()
    app._after_first_frame = frame
    flushes = []
    render = app._render_changes
    async def rendered():
        flushes.append(len(ticks))
        await render()
    app._render_changes = rendered
    async with app.run_test(size=(80, 24)) as pilot:
        await app.answer_drawn.wait()
        print(json.dumps({"at_frame": at_frame, "ticks_at_answer": len(ticks), "ticks_at_last_flush": flushes[-1],
                          "answer": "Right away." in screen(app)}), flush=True)
        app.exit()

asyncio.run(main())
"""
)


def test_the_first_frame_and_an_answers_first_text_do_not_wait_for_textuals_timer(fakellm, work: Path):
    fakellm.script(Turn(text="Right away."))
    proc = _child(URGENT, work, fakellm)
    try:
        out = _line(proc)
        assert out["at_frame"] == [[0, True]]  # painted, the welcome on screen, before any tick
        assert out["answer"] is True
        # The flush that drew the answer was painted with no tick of the timer since.
        assert out["ticks_at_answer"] == out["ticks_at_last_flush"]
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
