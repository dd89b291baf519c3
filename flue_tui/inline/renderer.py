"""Session events → output written once into the terminal's scrollback.

Events go through the TUI's EventRouter (plain data, no Textual), so both front ends read the
stream the same way. A flush, at most every FLUSH_S, walks each transcript in order and prints
what has finished for good: whole Markdown blocks, one line per finished tool call, diffs, task
headers. Only what is still in progress (the unfinished block, running tools, a bash tail) sits
in a rich Live area at the bottom, bounded to the screen height so it never scrolls: nothing
above the current turn is ever redrawn.
"""

from __future__ import annotations

import asyncio
import sys
import time
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.markdown import Markdown
from rich.text import Text

from flue_tui.agent import usershell
from flue_tui.core import events as ev
from flue_tui.core.details import PlanDetails
from flue_tui.core.messages import Message
from flue_tui.core.toolcall import one_line
from flue_tui.inline.blocks import Indented, Trimmed, complete_prefix
from flue_tui.inline.safe import Safe
from flue_tui.ui import toolfmt
from flue_tui.ui.backfill import Tools, make_backfill
from flue_tui.ui.hanging import Hanging
from flue_tui.ui.mdtext import task_boxes
from flue_tui.ui.plan import plan_text
from flue_tui.ui.router import EventRouter
from flue_tui.ui.termsafe import terminal_safe
from flue_tui.ui.transcript import (
    Entry,
    NoticeEntry,
    ReplyEntry,
    TaskEntry,
    ThinkingEntry,
    ToolEntry,
    Transcript,
    UserEntry,
)

FLUSH_S = 0.08  # coalesce a token stream into ~12 writes a second
TICK_S = 0.25  # spinners and elapsed times while something runs
TAIL_LINES = 5  # of a running command's output
DIFF_LINES = 40
OWN_LINES = 40  # a `!command`'s output shown inline, the last lines (the app shows its tail block)
CHILD_REPLY_LINES = 6
NOTICE_STYLE = {"info": "dim", "warn": "yellow", "error": "bold red"}
# Spacing: a blank line between groups (and between Markdown blocks), none inside a run of tool lines.
_GROUP = {"prompt": "prompt", "text": "text", "note": "tool", "tool": "tool", "child": "tool"}


def _prefix(depth: int) -> str:
    return "  │ " * depth


def _line(prefix: str, text: Text) -> Text:
    """One terminal row: cut with an ellipsis rather than wrapped."""
    line = Text(prefix, no_wrap=True, overflow="ellipsis")
    line.append_text(text)
    return line


class Renderer:
    def __init__(self, console: Console, cwd: str, *, dumb: bool = False) -> None:
        self.console = console
        self.cwd = cwd
        self.dumb = dumb
        self.router = EventRouter(Transcript(), self._wake, cwd=cwd)
        self._unsubscribe: Any = None
        self._reset()
        self._live: Live | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._held = False
        self._last: str | None = None  # kind of the last thing printed, for blank-line spacing
        self._open_line = False  # dumb mode: raw reply text without its final newline yet
        self.interrupting = False
        self.activity: str | None = None  # the spinner line's words while nothing else is live
        self._since = 0.0

    def _reset(self) -> None:
        self._cursor: dict[int, int] = {}  # transcript → first entry not yet printed for good
        self._done: set[Entry] = set()
        self._headed: set[Entry] = set()
        self._shown: dict[Entry, int] = {}  # reply → characters already printed
        self._plan: PlanDetails | None = None  # the plan last printed: an unchanged one is not printed again
        self._depth: dict[Entry, int] = {}
        self._frame = 0
        # Edits whose diff an approval question showed: their result line does not print it again.
        self.diff_shown: set[str] = set()

    # -- wiring -------------------------------------------------------------------------------------
    def attach(self, session: Any) -> None:
        """Listen to `session` (a fresh start, /new or /resume) instead of the previous one."""
        if self._unsubscribe is not None:
            self._unsubscribe()
        self.router = EventRouter(Transcript(session_id=session.id), self._wake, cwd=self.cwd)
        usage = getattr(session, "usage", None)
        if usage is not None:  # a resumed session's stored total, its tasks' included
            self.router.status.set_total(usage)
        self._reset()
        self._unsubscribe = session.subscribe(self.handle)

    def replay(
        self, messages: list[Message], store: Any = None, session_id: str | None = None, tools: Tools | None = None
    ) -> None:
        """A resumed session's last messages, drawn as live output is: the app's backfill turns
        them into the same entries the router builds from events (task children's steps read from
        `store`), and each prints as a finished one."""
        self.flush()
        for entry in make_backfill(messages, self.cwd, store, session_id, tools=tools)(sys.maxsize):  # oldest first
            if isinstance(entry, UserEntry):
                self.print(Text.assemble(("› ", "bold"), (entry.text, "bold")), "prompt")
            else:
                self._show(entry, 0)

    def handle(self, event: ev.Event) -> None:
        if isinstance(event, ev.CompactionStart) and event.task_id is None:
            self.router.add(NoticeEntry(text=f"Compacting the conversation ({event.reason})…", level="info"))
        elif isinstance(event, ev.Compaction) and event.task_id is None and not event.is_error:
            self.router.add(
                NoticeEntry(text=f"Compacted: {event.messages_before} → {event.messages_after} messages.", level="info")
            )
        self.router.handle(event)

    def _wake(self) -> None:
        if self._held:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # an event from another thread: hop onto the UI loop
            if self._loop is not None:
                self._loop.call_soon_threadsafe(self._wake)
            return
        self._loop = loop
        if self._timer is None:
            self._timer = loop.call_later(FLUSH_S, self.flush)

    def typed(self, text: str) -> None:
        """What was typed at the prompt, as it stood there (`› `, continuations under it), wrapped
        between words; no blank line is added around it, as none was around the prompt."""
        width = max(1, self.console.width - 2)
        out: list[Text] = []
        for i, line in enumerate(text.split("\n")):
            for j, piece in enumerate(Text(line).wrap(self.console, width) or [Text("")]):
                out.append(Text.assemble(("› " if i == j == 0 else "  ", "bold"), piece))
        self.console.print(Safe(Text("\n").join(out)))
        self._last = None

    # -- turn boundaries ----------------------------------------------------------------------------
    def begin_turn(self, echo: str | None = None) -> None:
        """A prompt was sent. `echo` prints it (one that was not typed at the prompt, e.g. argv)."""
        self._loop = asyncio.get_running_loop()
        self.interrupting = False
        if echo is not None:
            self.print(Text.assemble(("› ", "bold"), (echo, "bold")), "prompt")
        self._last = "prompt"
        self.working("working")

    def working(self, activity: str | None) -> None:
        """What a spinner line says while nothing else is live (the model library loading, the
        model not answering yet); None takes it away."""
        self._loop = asyncio.get_running_loop()
        self.activity, self._since = activity, time.monotonic()
        self.flush()

    def finish(self) -> None:
        """The operation ended: print what is left and clear the live area."""
        self._held = False
        self.flush()
        self._cancel()
        self._stop_live()
        self.interrupting = False
        self.activity = None

    def hold(self) -> None:
        """Stop drawing (a question is on screen); events keep collecting in the router."""
        self.flush()  # what finished before the question goes above it
        self._held = True
        self._cancel()
        self._stop_live()

    def _cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def release(self) -> None:
        self._held = False
        self._wake()

    # -- printing -----------------------------------------------------------------------------------
    def print(self, renderable: RenderableType, kind: str = "note") -> None:
        """Write for good, with one blank line between prose and tool lines."""
        if self._open_line:
            self.console.file.write("\n")
            self._open_line = False
        group, last = _GROUP.get(kind, kind), _GROUP.get(self._last or "")
        if last is not None and (group != last or group == "text"):
            self.console.print()  # prose, tool lines and the prompt each stand apart; so do Markdown blocks
        self.console.print(Safe(renderable))
        self._last = kind

    def note(self, text: str, level: str = "info") -> None:
        self.print(Hanging(text, NOTICE_STYLE.get(level, "")), "note")

    def flush(self) -> None:
        self._cancel()
        if self._held:
            return
        self.router.take()
        self._walk(self.router.root)  # task children are walked from their call, in order
        self._update_live()
        if self._live is not None and self._timer is None and self._loop is not None:
            self._timer = self._loop.call_later(TICK_S, self.flush)

    def _walk(self, t: Transcript) -> None:
        key = id(t)
        start = self._cursor.get(key, 0)
        settled = True
        for j in range(start, len(t.entries)):
            entry = t.entries[j]
            self._depth[entry] = t.depth
            finished = entry in self._done or self._show(entry, t.depth)
            if finished:
                self._done.add(entry)
                self._depth.pop(entry, None)
                if settled:
                    self._cursor[key] = j + 1
            else:
                settled = False

    def _show(self, e: Entry, depth: int) -> bool:
        """Print what of `e` is final; True once nothing of it is left to print."""
        if isinstance(e, UserEntry):
            return True
        if isinstance(e, NoticeEntry):
            self.print(
                Text(_prefix(depth) + e.text, style=NOTICE_STYLE.get(e.level, "")), "note" if not depth else "child"
            )
            return True
        if isinstance(e, ReplyEntry):
            return self._reply(e, depth)
        if isinstance(e, ThinkingEntry):
            return e.done
        if isinstance(e, TaskEntry) and e not in self._headed:
            self._headed.add(e)
            line = Text(_prefix(depth) + "▸ ", style="cyan")
            line.append("task", style="bold cyan")
            line.append("  " + toolfmt.key_argument(e))
            self.print(line, "tool" if not depth else "child")
        if isinstance(e, TaskEntry) and e.child is not None:
            self._walk(e.child)  # the child's lines go under the call's header, before its result
        if isinstance(e, ToolEntry):
            if e.status == "running":
                return False
            self._tool_done(e, depth)
            return True
        return True

    def _reply(self, e: ReplyEntry, depth: int) -> bool:
        if depth:
            if not e.done:
                return False
            if e.text.strip():  # rendered Markdown, as the main reply, under the task's rule
                self.print(Indented(Markdown(task_boxes(e.text.strip())), _prefix(depth), CHILD_REPLY_LINES), "child")
            return True
        shown = self._shown.get(e, 0)
        if self.dumb:  # raw text as it comes: no Markdown, no redraw
            fresh = e.text[shown:]
            if fresh:
                if not self._open_line and self._last is not None:
                    self.console.print()
                self.console.file.write(terminal_safe(fresh))  # raw bytes: no rich Text to sanitise them
                self.console.file.flush()
                self._open_line = not fresh.endswith("\n")
                self._last = "text"
                self._shown[e] = len(e.text)
            return e.done
        pending = e.text[shown:]
        cut = len(pending) if e.done else complete_prefix(pending)
        block = pending[:cut].strip("\n")
        if block.strip():
            self.print(Trimmed(Markdown(task_boxes(block))), "text")
        self._shown[e] = shown + cut
        return e.done

    def _tool_done(self, e: ToolEntry, depth: int) -> None:
        pre = _prefix(depth)
        kind = "tool" if not depth else "child"
        self.print(_line(pre, toolfmt.header(e, 0, time.monotonic())), kind)
        inner = pre + "  "
        shown = e.call_id in self.diff_shown  # each thing is written once: the question had it
        plan = e.info if e.status == "ok" else None
        if isinstance(plan, PlanDetails):
            if plan != self._plan and plan.todos:
                self.print(plan_text(plan, indent=inner), kind)
            self._plan = plan
        elif e.status == "ok" and e.diff and not shown:
            body, hidden = toolfmt.diff_text(e.diff, DIFF_LINES)
            lines = body.split("\n")
            if hidden:
                lines.append(Text(f"… {hidden} more lines", style="dim"))
            self.print(Text("\n").join(Text(inner) + ln for ln in lines), "child" if depth else "tool")
        elif e.status == "error" and e.result_text and e.outcome != "aborted":
            self.print(Text(inner + one_line(e.result_text, 300), style="red"), kind)
        elif usershell.is_own(e.call_id) and e.result_text.strip():
            # The user's own `!command`: its output is what they asked for (the model's calls stay compact).
            lines = e.result_text.rstrip("\n").split("\n")
            if len(lines) > OWN_LINES:
                self.print(Text(f"{inner}… {len(lines) - OWN_LINES} more lines above", style="dim"), kind)
            self.print(Text("\n".join(inner + ln for ln in lines[-OWN_LINES:]), style="dim"), kind)
        elif toolfmt.exit_code(e) not in (None, 0) and e.tail is not None:
            last = e.tail.last(3)
            if last:
                self.print(Text("\n".join(inner + ln for ln in last), style="dim"), kind)

    # -- the live area ------------------------------------------------------------------------------
    def _update_live(self) -> None:
        if self.dumb:
            return
        parts = self._live_parts()
        if not parts:
            self._stop_live()
            return
        self._frame += 1
        group = Safe(Group(*parts))
        if self._live is None:
            self._live = Live(
                group,
                console=self.console,
                auto_refresh=False,
                transient=True,
                redirect_stdout=False,
                redirect_stderr=False,
                vertical_overflow="crop",
            )
            self._live.start()
        self._live.update(group, refresh=True)

    def _live_parts(self) -> list[RenderableType]:
        budget = max(4, self.console.height - 3)
        now = time.monotonic()
        tools: list[RenderableType] = []
        for entry in list(self.router.running.values())[:8]:
            pre = _prefix(self._depth.get(entry, 0))
            tools.append(_line(pre, toolfmt.header(entry, self._frame, now)))
            if entry.tail is not None and not isinstance(entry, TaskEntry):
                for line in entry.tail.last(min(TAIL_LINES, max(0, budget - len(tools) - 2))):
                    tools.append(Text(f"{pre}  │ {line}", style="dim", no_wrap=True, overflow="ellipsis"))
        if self.interrupting and self.router.running:
            tools.append(Text("Interrupting…", style="yellow"))
        parts: list[RenderableType] = []
        root = self.router.root
        if root.thinking is not None and not root.thinking.done:
            last = root.thinking.text.strip().rsplit("\n", 1)[-1]
            parts.append(Text(f"✻ thinking… {last}", style="dim italic", no_wrap=True, overflow="ellipsis"))
        reply = root.reply
        if reply is not None and not reply.done:
            pending = reply.text[self._shown.get(reply, 0) :].strip("\n")
            if pending.strip():
                room = max(2, budget - len(tools) - len(parts))
                parts.append(Trimmed(Markdown(task_boxes(pending)), max_lines=room))
        if not parts and not tools and self.activity:
            spin = toolfmt.SPINNER[self._frame % len(toolfmt.SPINNER)]
            return [Text(f"{spin} {self.activity}… {now - self._since:.0f}s", style="dim")]
        return parts + tools[: max(0, budget - len(parts))]

    def _stop_live(self) -> None:
        if self._live is not None:
            live, self._live = self._live, None
            live.stop()
