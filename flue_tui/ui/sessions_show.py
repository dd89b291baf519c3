"""`flue sessions show`: the transcript rendered with rich, task children nested under their call."""

from __future__ import annotations

from typing import Any

from rich.console import Console, RenderableType
from rich.markdown import Markdown
from rich.padding import Padding
from rich.rule import Rule
from rich.text import Text

from flue_tui.agent import usage_text, usershell
from flue_tui.core.messages import Usage, result_outcome
from flue_tui.core.toolcall import call_summary
from flue_tui.core.traits import OUTCOME_WORDS
from flue_tui.store.sessions import SessionStore
from flue_tui.store.values import SessionInfo, StoredMessage, local_time
from flue_tui.ui.termsafe import terminal_safe

RESULT_LINES = 8  # tool output is shown in full by `export`; here only its head


class _Show:
    def __init__(self, store: SessionStore, console: Console) -> None:
        self.store = store
        self.console = console

    def out(self, renderable: RenderableType, depth: int) -> None:
        self.console.print(Padding(renderable, (0, 0, 0, 4 * depth)) if depth else renderable)

    def header(self, info: SessionInfo, depth: int) -> None:
        # Every stored string may come from an imported file: shown, never obeyed (terminal_safe).
        safe = terminal_safe
        kind = f"task · {safe(str(info.agent))}" if info.parent_id else "session"
        self.out(
            Rule(Text(f" {safe(info.label)} ", style="bold"), align="left", style="cyan" if depth else "bright_blue"),
            depth,
        )
        facts = Text(style="dim")
        facts.append(
            f"{kind} · {safe(info.id)} · {safe(info.cwd)} · {safe(info.model or '?')} · started "
            f"{safe(local_time(info.created_at))} · updated {safe(local_time(info.updated_at))} · "
            f"{info.message_count} messages"
        )
        # Its task children's tokens included; an unknown price stays unknown (never "$0").
        total = Usage(*self.store.tree_usage(info.id), priced=self.store.tree_priced(info.id))
        if total.input or total.output or total.cache_read or total.cache_write:
            facts.append(f" · {usage_text.brief(total)}")
        if info.forked_from:
            facts.append(f" · forked from {safe(info.forked_from)}")
        if info.name and info.title:
            facts.append(f"\n“{safe(info.title)}”")
        self.out(facts, depth)

    def session(self, info: SessionInfo, depth: int = 0, last: int | None = None) -> None:
        self.header(info, depth)
        kids = self.store.children(info.id)
        by_call: dict[str | None, SessionInfo] = {c.parent_tool_call_id: c for c in kids if c.parent_tool_call_id}
        shown: set[str | None] = set()
        rows = self.store.tail(info.id, last) if last else self.store.iter_messages(info.id)
        if last and info.message_count > last:
            self.out(Text(f"… {info.message_count - last} earlier messages not shown", style="dim"), depth)
        # Calls wait for their results, so each output is printed under the call that made it.
        pending: dict[str, dict[str, Any]] = {}
        for m in rows:
            if m.role == "toolResult" and m.data.get("tool_call_id") in pending:
                call = pending.pop(m.data["tool_call_id"])
                self.call(call, depth, by_call)
                self.result(m.data, depth, by_call.get(call.get("id")))
                continue
            if m.role != "toolResult":
                self.flush(pending, depth, by_call)
            if m.role == "assistant":
                calls = m.data.get("tool_calls") or []
                shown.update(c.get("id") for c in calls)
                pending.update((str(c.get("id")), c) for c in calls)
            self.message(m, depth)
        self.flush(pending, depth, by_call)
        for child in kids:
            if child.parent_tool_call_id not in shown and not last:
                self.session(child, depth + 1)

    def flush(self, pending: dict[str, dict[str, Any]], depth: int, by_call: dict[str | None, SessionInfo]) -> None:
        """Calls that never got a result (interrupted): shown without one."""
        for call in pending.values():
            self.call(call, depth, by_call)
        pending.clear()

    def call(self, call: dict[str, Any], depth: int, by_call: dict[str | None, SessionInfo]) -> None:
        self.out(
            Text.assemble(
                ("· ", "cyan"),
                (terminal_safe(str(call.get("name"))), "bold cyan"),
                " ",
                (terminal_safe(call_summary(str(call.get("name")), call.get("arguments"))), "cyan"),
            ),
            depth,
        )
        child = by_call.get(call.get("id"))
        if child is not None:
            self.session(child, depth + 1)

    def result(self, d: dict[str, Any], depth: int, child: SessionInfo | None) -> None:
        text = terminal_safe(str(d.get("text", "")))
        if child is not None and text.strip() and text.strip() == self._last_answer(child):
            # The child's report was just printed as its last message: once is enough.
            self.out(Text("⎿ task result: its report above", style="dim"), depth + 1)
            return
        lines = text.splitlines()
        if d.get("tool_name") == "bash" and len(lines) > RESULT_LINES:
            # As the app shows a command: its last lines, where the outcome is.
            body = [f"… {len(lines) - RESULT_LINES} more lines above", *lines[-RESULT_LINES:]]
        elif len(lines) > RESULT_LINES:
            body = [*lines[:RESULT_LINES], f"… {len(lines) - RESULT_LINES} more lines below"]
        else:
            body = lines or ["(no output)"]
        label = f"⎿ {terminal_safe(str(d.get('tool_name', 'tool')))} {OUTCOME_WORDS[result_outcome(d)]}"
        self.out(Text("\n".join([label, *body]), style="red" if d.get("is_error") else "dim"), depth + 1)

    def _last_answer(self, child: SessionInfo) -> str | None:
        answer = None
        for m in self.store.iter_messages(child.id):
            if m.role == "assistant" and m.data.get("text"):
                answer = str(m.data["text"]).strip()
        return answer

    def message(self, m: StoredMessage, depth: int) -> None:
        d = m.data
        if m.role == "user" and (ran := usershell.shown(str(d.get("content", "")), d.get("shell"))) is not None:
            # A `!command` the user ran: shown as the model's bash calls are, call then output.
            self.console.print()
            self.call({"name": "bash", "arguments": {"command": ran.command}}, depth, {})
            self.result({"tool_name": "bash", "text": terminal_safe(ran.text)}, depth, None)
        elif m.role == "user":
            self.console.print()
            typed = d.get("display") or d.get("content", "")  # a skill run as `/name args`, as on resume
            self.out(Text.assemble(("❯ ", "bold green"), (terminal_safe(str(typed)), "bold")), depth)
        elif m.role == "assistant":
            if d.get("thinking"):
                self.out(Text(terminal_safe(str(d["thinking"])).strip(), style="dim italic"), depth)
            if d.get("text"):
                self.out(Markdown(terminal_safe(str(d["text"]))), depth)
            if m.partial:
                self.out(Text("(interrupted: flue stopped while this was being written)", style="yellow"), depth)
            elif d.get("stop_reason") in ("error", "aborted"):
                reason = d.get("error") or d.get("stop_reason")
                self.out(Text(terminal_safe(f"({d.get('stop_reason')}: {reason})"), style="yellow"), depth)
        elif m.role == "compaction":
            # The history above stays; this marks where the model started seeing a summary instead.
            self.out(
                Text(
                    f"── compacted here: the model was sent a summary of the conversation so far "
                    f"(~{d.get('tokens_before', 0):,} tokens) ──",
                    style="magenta",
                ),
                depth,
            )
        elif m.role == "toolResult":  # a result whose call is not shown (e.g. cut off by --last)
            self.result(d, depth, None)


def show(store: SessionStore, info: SessionInfo, *, last: int | None = None, console: Console | None = None) -> None:
    _Show(store, console or Console(highlight=False)).session(info, last=last)
