"""The input line: a prompt-toolkit PromptSession with multi-line editing, the TUI's history
file, `@` path and `/` command completion, Esc Esc to clear and Ctrl+C twice to quit.

The prompt is only on screen between turns; what it leaves behind (`› your text`) is the user's
side of the conversation in the scrollback. The toolbar under it vanishes once a prompt is sent.
"""

from __future__ import annotations

import contextlib
import re
import sys
import time
from collections.abc import Callable, Iterable
from typing import Any, TextIO

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import Completer, Completion, ThreadedCompleter
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.history import History
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings

from flue_tui.ui.history import PromptHistory
from flue_tui.ui.pathindex import PathIndex, completion_text

QUIT_WINDOW_S = 3.0  # a second Ctrl+C at the prompt within this quits
QUIT = object()  # what read() returns when the user asked to leave
WOKEN = object()  # what read() returns when wake() took the prompt away (what was typed comes back)
AT_RE = re.compile(r'(?:^|\s)@(?:(")([^"]*)|()([^\s"]*))$')  # an open quote takes spaces until it closes


class SharedHistory(History):
    """prompt-toolkit's Up/Down over the TUI's per-directory JSONL file (PromptHistory)."""

    def __init__(self, history: PromptHistory) -> None:
        super().__init__()
        self.history = history

    def load_history_strings(self) -> Iterable[str]:
        self.history.load()
        return list(reversed(self.history.items))  # prompt-toolkit wants newest first

    def append_string(self, string: str) -> None:
        if self._loaded_strings and self._loaded_strings[0] == string:
            return  # as the file does: no run of one repeated prompt
        super().append_string(string)

    def store_string(self, string: str) -> None:
        self.history.add(string)


def keys_from(stdin: TextIO) -> Input | None:
    """A terminal's keys, read raw also while something prints above the prompt.

    prompt-toolkit's run_in_terminal (how print_above clears the prompt, prints and draws it again)
    switches the terminal to its cooked mode meanwhile. A key arriving in that moment is echoed by
    the tty into the output, and Enter arrives translated to Ctrl+J, a new line in this multi-line
    prompt: the line typed as the welcome printed was never sent (a CI hang). Nothing here runs a
    program in the terminal from the prompt (no editor binding), so raw mode is right throughout.
    """
    if sys.platform == "win32" or not stdin.isatty():
        return None  # prompt-toolkit's own choice
    from prompt_toolkit.input.vt100 import Vt100Input

    class RawInput(Vt100Input):
        def cooked_mode(self) -> contextlib.AbstractContextManager[None]:
            return contextlib.nullcontext()

    return RawInput(stdin)


class InlineCompleter(Completer):
    """`/name` at the start of the input, `@path` anywhere (gitignore-aware, from PathIndex)."""

    def __init__(self, paths: PathIndex, commands: Callable[[], list[tuple[str, str]]]) -> None:
        self.paths = paths
        self.commands = commands

    def get_completions(self, document: Any, complete_event: Any) -> Iterable[Completion]:
        before = document.text_before_cursor
        if before.startswith("/") and not any(c.isspace() for c in before):
            typed = before[1:]
            for name, help_text in self.commands():
                if name.startswith(typed):
                    yield Completion(f"/{name}", start_position=-len(before), display_meta=help_text)
            return
        m = AT_RE.search(before)
        if m is None or not self.paths.ready:
            return
        quote, query = (m.group(1), m.group(2)) if m.group(1) is not None else (m.group(3), m.group(4))
        start = -(len(query) + 1 + len(quote))
        for path in self.paths.search(query, 40):
            yield Completion(completion_text(path), start_position=start, display=path)


class InlinePrompt:
    def __init__(
        self,
        history: PromptHistory,
        paths: PathIndex,
        commands: Callable[[], list[tuple[str, str]]],
        toolbar: Callable[[], str],
        cycle_mode: Callable[[], None],
        echo: Callable[[str], None] | None = None,
        **io: Any,
    ) -> None:
        self._toolbar = toolbar
        self._echo = echo
        self._cycle_mode = cycle_mode
        self.hint: str | None = None
        self._ctrl_c_at = 0.0
        self.prefill = ""
        self._woken = False
        if "input" not in io and (keys := keys_from(sys.stdin)) is not None:
            io["input"] = keys
        self.session: PromptSession[Any] = PromptSession(
            message=FormattedText([("bold", "› ")]),
            multiline=True,
            prompt_continuation=lambda width, line, wrap: "  ",
            history=SharedHistory(history),
            completer=ThreadedCompleter(InlineCompleter(paths, commands)),
            complete_while_typing=True,
            reserve_space_for_menu=6,
            key_bindings=self._keys(),
            bottom_toolbar=self._bottom,
            enable_history_search=False,
            # prompt-toolkit wraps the accepted line at any character (`make sur` / `e the whole`):
            # it is taken away and `echo` writes it again, wrapped between words.
            erase_when_done=echo is not None,
            **io,
        )

    def arm_quit(self) -> None:
        """A Ctrl+C that interrupted a turn counts as the first of the two that quit."""
        self._ctrl_c_at = time.monotonic()
        self.hint = "Interrupted · Ctrl+C again to quit"

    async def read(self) -> Any:
        """The next submitted text, or QUIT (Ctrl+C twice, Ctrl+D on an empty line)."""
        if self._woken:
            self._woken = False
            return WOKEN
        default, self.prefill = self.prefill, ""  # /rewind puts the chosen message back for editing
        try:
            text = await self.session.prompt_async(default=default)
        except EOFError:
            return QUIT
        finally:
            self.hint = None
        if self._echo is not None and isinstance(text, str):  # not QUIT (Ctrl+C twice)
            self._echo(text)
        return text

    def paths_ready(self) -> None:
        """The file index is built: an `@path` typed before it was gets its completions now
        (prompt-toolkit completes as keys arrive, and none arrives after the last one typed)."""
        app = self.session.app
        if app.is_running and AT_RE.search(app.current_buffer.document.text_before_cursor):
            app.current_buffer.start_completion(select_first=False)

    def wake(self) -> bool:
        """Take the prompt off the screen so a turn can run (a background command ended while the
        user sat at it): read() returns WOKEN, and what was typed is there again next time."""
        app = self.session.app
        if not app.is_running or app.future is None or app.future.done():
            self._woken = True  # not reading now: the next read() returns WOKEN at once
            return False
        self.prefill = self.session.default_buffer.text
        app.exit(result=WOKEN)
        return True

    def refresh(self) -> None:
        """Draw the toolbar again (its count of background commands changed)."""
        if self.session.app.is_running:
            self.session.app.invalidate()

    async def print_above(self, show: Callable[[], None]) -> None:
        """Run `show` (which prints) above the prompt if it is on screen, else just run it; keys
        typed meanwhile wait for the prompt, unechoed, Enter still Enter (see keys_from)."""
        from prompt_toolkit.application import run_in_terminal

        await run_in_terminal(show)

    def _bottom(self) -> Any:
        if self.hint and time.monotonic() - self._ctrl_c_at < QUIT_WINDOW_S:
            return FormattedText([("", f" {self.hint} ")])
        return FormattedText([("", f" {self._toolbar()} ")])

    def _keys(self) -> KeyBindings:
        kb = KeyBindings()

        @kb.add("enter")
        def _submit(event: Any) -> None:
            b = event.current_buffer
            state = b.complete_state
            if state is not None and state.current_completion is not None:
                b.apply_completion(state.current_completion)
                return
            if b.document.text_before_cursor.endswith("\\"):  # `\` + Enter: a new line, as in shells
                b.delete_before_cursor(1)
                b.insert_text("\n")
                return
            b.validate_and_handle()

        @kb.add("c-j")
        @kb.add("escape", "enter")
        def _newline(event: Any) -> None:
            event.current_buffer.insert_text("\n")

        @kb.add("escape", "escape")
        def _clear(event: Any) -> None:
            event.current_buffer.reset()

        @kb.add("c-c")
        def _ctrl_c(event: Any) -> None:
            now = time.monotonic()
            b = event.current_buffer
            if not b.text and now - self._ctrl_c_at < QUIT_WINDOW_S:
                event.app.exit(result=QUIT)
                return
            b.reset()
            self._ctrl_c_at = now
            self.hint = "Ctrl+C again to quit"
            event.app.invalidate()

        @kb.add("c-d")
        def _eof(event: Any) -> None:
            b = event.current_buffer
            if b.text:
                b.delete()
            else:
                event.app.exit(result=QUIT)

        @kb.add("s-tab")
        def _mode(event: Any) -> None:
            self._cycle_mode()
            event.app.invalidate()

        return kb
