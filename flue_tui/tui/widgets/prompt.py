"""The prompt: a multi-line editor with history, `@` path and `/` command completion.

Enter sends; Shift+Enter or Ctrl+J inserts a newline. Up on the first line and Down on the last
walk the history. Completion lists sit above the editor and never take focus.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from dataclasses import dataclass

from rich.text import Text
from textual import events, on, work
from textual.message import Message
from textual.widgets import OptionList, TextArea
from textual.widgets.option_list import Option

from flue_tui.ui.history import PromptHistory
from flue_tui.ui.pathindex import PathIndex, completion_text

COMMAND_RE = re.compile(r"/(\S*)")
PATH_RE = re.compile(r'(?:^|\s)@("[^"]*|[^\s"]*)$')  # an open quote takes spaces until it closes


@dataclass(frozen=True, slots=True)
class Context:
    """What the prompt's cursor is completing: a command or a path, the text typed, where it starts."""

    kind: str  # "command" | "path"
    query: str
    start: tuple[int, int]


class CompletionList(OptionList, can_focus=False):
    """Choices for the word being typed; the prompt drives it (it never has focus)."""

    def __init__(self) -> None:
        super().__init__(id="completion")
        self.context: Context | None = None
        self.inserts: list[str] = []

    def show(self, context: Context, items: list[tuple[Text | str, str]]) -> None:
        self.context = context
        self.inserts = [insert for _, insert in items]
        self.clear_options()
        self.add_options([Option(label) for label, _ in items])
        self.display = bool(items)
        if items:
            self.highlighted = 0

    def hide(self) -> None:
        self.context = None
        self.display = False

    @property
    def choice(self) -> str | None:
        if self.highlighted is None or not self.inserts:
            return None
        return self.inserts[self.highlighted]


class PromptArea(TextArea):
    class Submitted(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(
        self,
        history: PromptHistory,
        completion: CompletionList,
        commands: Callable[[], list[tuple[str, str, bool]]],
        **kw,
    ) -> None:
        super().__init__(
            id="prompt",
            soft_wrap=True,
            show_line_numbers=False,
            tab_behavior="focus",
            compact=True,
            highlight_cursor_line=False,
            placeholder="Message flue · @ to add a file · / for commands",
            **kw,
        )
        self.prompt_history = history
        self.completion = completion
        self.commands = commands
        self.paths: PathIndex | None = None

    # -- keys ------------------------------------------------------------------------------------
    async def _on_key(self, event: events.Key) -> None:
        key = event.key
        handled = True
        comp = self.completion
        if comp.display and key in ("tab", "enter"):
            # Keys typed in a burst (a paste, a fast typist, tmux) are handled before the Changed
            # messages they caused, so the list may describe older text: bring it up to date.
            self._sync_completion()
        if comp.display and key == "enter" and not comp.choice:
            comp.hide()  # "indexing files…" is a note, not a choice: Enter sends what was typed
        if comp.display and key in ("up", "down", "tab", "enter", "escape"):
            if key == "up":
                comp.action_cursor_up()
            elif key == "down":
                comp.action_cursor_down()
            elif key == "escape":
                comp.hide()
            elif key == "enter" and self._choice_already_typed():
                # `@calc/ops.py` typed in full: accepting would change nothing, so Enter sends.
                comp.hide()
                if self.text.strip():
                    self._submit(self.text)
            else:
                # Enter on a command that needs no argument runs it (`/he` + Enter = /help).
                context, choice = comp.context, comp.choice
                self._accept()
                if (
                    key == "enter"
                    and context is not None
                    and context.kind == "command"
                    and choice
                    and choice.rstrip() not in self._needs_argument()
                ):
                    self._submit(self.text.rstrip())
        elif key == "enter":
            text = self.text
            if text.strip():
                self._submit(text)
        elif key in ("shift+enter", "ctrl+j"):
            self.insert("\n")
        elif key == "up" and self.cursor_location[0] == 0 and self.selection.is_empty:
            self._recall(self.prompt_history.prev(self.text))
        elif key == "down" and self.cursor_location[0] == self.document.line_count - 1 and self.selection.is_empty:
            self._recall(self.prompt_history.next())
        else:
            handled = False
        if handled:
            event.stop()
            event.prevent_default()

    def _submit(self, text: str) -> None:
        """Send `text` and empty the input now, not when the app handles the message: keys typed
        ahead (`/cost⏎/context⏎` in one read) land in an empty input, never after `/cost`."""
        self.post_message(self.Submitted(text))
        self.set_text("")

    def _recall(self, text: str | None) -> None:
        if text is None:
            return
        self.load_text(text)
        self.move_cursor(self.document.end)

    def set_text(self, text: str) -> None:
        self.load_text(text)
        self.move_cursor(self.document.end)
        self.prompt_history.reset()

    # -- completion ------------------------------------------------------------------------------
    def _completion_context(self) -> Context | None:
        row, col = self.cursor_location
        line = self.document.get_line(row)[:col]
        if row == 0 and "\n" not in self.text and (m := COMMAND_RE.fullmatch(line)):
            return Context("command", m.group(1), (0, 0))
        if m := PATH_RE.search(line):
            query = m.group(1).lstrip('"')
            return Context("path", query, (row, col - len(m.group(1)) - 1))
        return None

    def _command_items(self, context: Context) -> list[tuple[Text | str, str]]:
        items: list[tuple[Text | str, str]] = [
            (Text.assemble((f"/{name}", "bold"), "  ", (desc, "dim")), f"/{name} ")
            for name, desc, _ in self.commands()
            if name.startswith(context.query)
        ]
        return items[:12]

    def _sync_completion(self) -> None:
        context = self._completion_context()
        if context == self.completion.context:
            return
        if context is None:
            self.completion.hide()
        elif context.kind == "command":
            self.completion.show(context, self._command_items(context))
        elif self.paths is not None and self.paths.ready:
            found = self.paths.search(context.query, 12)  # fast enough to do once on a key press
            self.completion.show(context, self._path_items(found))
        else:
            self.completion.hide()

    @on(TextArea.Changed)
    def _changed(self, event: TextArea.Changed) -> None:
        context = self._completion_context()
        if context is None:
            self.completion.hide()
        elif context.kind == "command":
            self.completion.show(context, self._command_items(context))
        else:
            self._complete_paths(context)

    def paths_ready(self) -> None:
        """The path index is built: an `@path` waiting on "indexing files…" is completed now."""
        context = self._completion_context()
        if context is not None and context.kind == "path" and self.completion.display:
            self._complete_paths(context)

    @staticmethod
    def _path_items(found: list[str]) -> list[tuple[Text | str, str]]:
        return [(Text(p), completion_text(p) + ("" if p.endswith("/") else " ")) for p in found]

    @work(exclusive=True, group="complete")
    async def _complete_paths(self, context: Context) -> None:
        index = self.paths
        if index is None or not index.ready:
            self.completion.show(context, [(Text("indexing files…", style="dim"), "")])
            return
        found = await asyncio.to_thread(index.search, context.query, 12)
        if self._completion_context() != context:
            return  # the user typed on; a newer search is coming
        items = self._path_items(found)
        if items:
            self.completion.show(context, items)
        else:
            self.completion.hide()

    def _needs_argument(self) -> set[str]:
        return {f"/{name}" for name, _, needs in self.commands() if needs}

    def _choice_already_typed(self) -> bool:
        context, choice = self.completion.context, self.completion.choice
        if context is None or not choice or choice.endswith("/") or context.kind == "command":
            return False
        return self.document.get_text_range(context.start, self.cursor_location) == choice.rstrip(" ")

    def _accept(self) -> None:
        comp = self.completion
        context, choice = comp.context, comp.choice
        comp.hide()
        if context is None or not choice:
            return
        self.replace(choice, context.start, self.cursor_location)
        if choice.endswith("/"):
            self._changed(TextArea.Changed(self))  # keep completing inside the directory
