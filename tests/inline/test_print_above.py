"""A line typed in the moment something prints above the inline prompt (the welcome arriving as the
session starts, a notice) is sent by its Enter. prompt-toolkit's run_in_terminal put the terminal in
its cooked mode meanwhile: the tty echoed the keys into the output and turned Enter into Ctrl+J, a
new line in the prompt, so the message was never sent. Seen as 120 s hangs of the inline pty tests
in CI (`make a` echoed above the welcome, then nothing). Here on a real pseudo-terminal, with the
keys arriving while the print runs."""

from __future__ import annotations

import asyncio
import fcntl
import os
import pty
import struct
import termios
import threading
import time
from pathlib import Path

import pytest
from prompt_toolkit.output import create_output

from flue_tui.inline.prompt import InlinePrompt, keys_from
from flue_tui.ui.history import PromptHistory
from flue_tui.ui.pathindex import PathIndex


def _readable(fd: int) -> int:
    return struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]


async def test_a_line_typed_while_printing_above_the_prompt_is_sent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("PROMPT_TOOLKIT_NO_CPR", "1")  # nobody answers cursor-position reports here
    master, slave = pty.openpty()
    keys_in = os.fdopen(slave, "r", encoding="utf-8", closefd=False)
    screen_out = os.fdopen(os.dup(slave), "w", encoding="utf-8")
    drained = threading.Thread(target=_drain, args=(master,), daemon=True)
    drained.start()
    keys = keys_from(keys_in)
    assert keys is not None
    paths = PathIndex(str(tmp_path))
    prompt = InlinePrompt(
        PromptHistory(str(tmp_path)),
        paths,
        lambda: [],
        lambda: "toolbar",
        lambda: None,
        input=keys,
        output=create_output(stdout=screen_out),
    )
    try:
        task = asyncio.ensure_future(prompt.read())
        deadline = time.monotonic() + 60  # generous: goes on as soon as the prompt reads
        while not prompt.session.app.is_running and time.monotonic() < deadline:
            await asyncio.sleep(0.01)

        def show() -> None:
            os.write(master, b"make a\r")
            # Wait until the tty has taken the keys in, in the mode it is in while this prints.
            until = time.monotonic() + 60
            while _readable(slave) < len("make a\r") and time.monotonic() < until:
                time.sleep(0.005)

        await prompt.print_above(show)
        try:
            sent = await asyncio.wait_for(task, 60)
        except TimeoutError:
            pytest.fail(f"Enter never sent the line; the prompt holds {prompt.session.default_buffer.text!r}")
        assert sent == "make a"
    finally:
        screen_out.close()
        keys_in.close()
        os.close(slave)
        os.close(master)


def _drain(fd: int) -> None:
    """What the prompt draws goes somewhere, so its writes never block."""
    try:
        while os.read(fd, 65536):
            pass
    except OSError:
        pass
