"""`!command`: a shell command the user runs themselves, in every front end (Session.shell).

It runs where the model's commands run — the `bash` tool's sandbox (local, workspace, bubblewrap),
its environment allowlist, its output caps and live tail — but it is the user's own: nobody is
asked and plan mode does not hold it back; the guard and a matching deny rule still refuse it.
It is shown as a bash block (ToolStart/ToolOutput/ToolEnd, as the model's calls are) and joins the
conversation as one user message the model reads on its next turn, as Claude Code words it:

    <bash-input>git status</bash-input>
    <bash-stdout>…</bash-stdout>
    <bash-stderr>…</bash-stderr>
    <bash-exit-code>0</bash-exit-code>

The output is XML-escaped, so nothing a command prints can close a tag and pass itself off as the
user's words; `shown()` reads a stored message back into the block it was (resume, sessions show).
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from flue_tui.core.abort import ABORT_MESSAGE, AbortError, AbortSignal
from flue_tui.core.events import Event, MessageEnd, ToolEnd, ToolOutput, ToolStart
from flue_tui.core.ids import new_id
from flue_tui.core.jsstr import len16
from flue_tui.core.messages import Message, UserMessage, message_to_dict
from flue_tui.core.traits import ToolOutcome
from flue_tui.tools.base import MAX_READ_BYTES, MAX_READ_LINES, ToolContext
from flue_tui.tools.bash import BashTool, Ran, format_bash_text
from flue_tui.tools.locks import check_abort
from flue_tui.tools.truncate import truncate_tail

CALL_PREFIX = "shell"  # a `!command`'s block id: front ends tell the user's own command by it


def is_own(call_id: str) -> bool:
    """Whether a bash block is a `!command` the user ran (its output is theirs to see in full)."""
    return call_id.startswith(CALL_PREFIX + "_")


USAGE = "Type a command after !, e.g. !git status: it runs in the shell and the model sees it on the next turn."
BUSY = "The agent is working: run !commands once it is done (or press Esc first)."
NO_BASH = "The bash tool is off in this session (--tools), so !commands cannot run."
INTERRUPTED = "Interrupted: the command was stopped and is not added to the conversation."

_TAGS = re.compile(
    r"\A<bash-input>(.*?)</bash-input>\n<bash-stdout>(.*?)</bash-stdout>\n"
    r"<bash-stderr>(.*?)</bash-stderr>\n<bash-exit-code>(-?\d+)</bash-exit-code>\Z",
    re.DOTALL,
)


@dataclass(frozen=True, slots=True)
class Shown:
    """A stored `!command` as its bash block draws it."""

    command: str
    text: str  # the result as the bash tool words it (format_bash_text)
    details: dict[str, Any]


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _unescape(text: str) -> str:
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def _capped(text: str, budget: int) -> str:
    # The bash tool's caps (last 2000 lines / 50 KB) shared by the two streams: the end is kept.
    out, _ = truncate_tail(text, MAX_READ_LINES, budget)
    return out


def message(command: str, ran: Ran) -> UserMessage:
    """The user message that puts a finished `!command` into the conversation."""
    # Capped after escaping, so output made of `<` cannot grow past the cap either.
    stderr = _capped(_escape(ran.stderr.rstrip()), MAX_READ_BYTES // 4)
    stdout = _capped(_escape(ran.stdout.rstrip()), MAX_READ_BYTES - len16(stderr))
    content = (
        f"<bash-input>{_escape(command)}</bash-input>\n<bash-stdout>{stdout}</bash-stdout>\n"
        f"<bash-stderr>{stderr}</bash-stderr>\n<bash-exit-code>{ran.exit_code}</bash-exit-code>"
    )
    details = {"command": command, "exitCode": ran.exit_code, "durationMs": ran.duration_ms}
    return UserMessage(content=content, shell=details)


def shown(content: str, shell: dict[str, Any] | None) -> Shown | None:
    """A stored `!command` message as its block, or None when it is not one (or was tampered with)."""
    if not isinstance(shell, dict):
        return None
    m = _TAGS.match(content)
    if m is None:
        return None
    command, stdout, stderr, code = (_unescape(g) for g in m.groups())
    details = {"command": command, "exitCode": int(code)}
    if isinstance(shell.get("durationMs"), int):
        details["durationMs"] = shell["durationMs"]
    return Shown(command, format_bash_text(stdout, stderr, int(code)), details)


def title(content: str) -> str:
    """What a user message is called where a prompt's text shows (the /rewind list, the prompt it
    puts back): a `!command` as typed, anything else as it is."""
    m = _TAGS.match(content)
    return f"!{_unescape(m.group(1))}" if m is not None else content


@dataclass(frozen=True, slots=True)
class ShellResult:
    """How a `!command` ended: `error` is the one sentence when it did not run to the end."""

    exit_code: int | None = None
    error: str | None = None
    aborted: bool = False
    checkpoint: str | None = None


class ShellSeams(Protocol):
    """What a `!command` consults of a Session's seams (agent/seams.py)."""

    @property
    def before_tool(self) -> Any: ...
    @property
    def watch_tool(self) -> Any: ...


class ShellHost(Protocol):
    """What running a `!command` needs of its Session (a Protocol: session.py imports this module)."""

    @property
    def tools(self) -> dict[str, Any]: ...
    @property
    def seams(self) -> ShellSeams: ...
    @property
    def messages(self) -> list[Message]: ...
    def event(self, cls: type[Event], **fields: Any) -> Any: ...
    def emit(self, event: Event) -> None: ...


Snapshot = Callable[[AbortSignal, str], Awaitable[str | None]]


async def run(session: ShellHost, command: str, signal: AbortSignal, snapshot: Snapshot) -> ShellResult:
    """Check, checkpoint, run and record one `!command` (the caller holds the session's operation)."""
    from flue_tui.permissions.policy import policy_of

    call_id = new_id(CALL_PREFIX)
    args = {"command": command}
    tool = session.tools.get("bash")
    traits = BashTool.traits
    session.emit(
        session.event(ToolStart, tool_name="bash", tool_call_id=call_id, args=args, kind=traits.kind, traits=traits)
    )
    started = time.monotonic()

    def end(text: str, details: dict[str, Any], outcome: ToolOutcome) -> None:
        result = {"content": [{"type": "text", "text": text}], "details": details}
        duration = details.get("durationMs", int((time.monotonic() - started) * 1000))  # as resume shows it
        session.emit(
            session.event(
                ToolEnd,
                tool_name="bash",
                tool_call_id=call_id,
                is_error=outcome != "ok",
                result=result,
                duration_ms=duration,
                outcome=outcome,
            )
        )

    if not isinstance(tool, BashTool):
        end(NO_BASH, {"command": command}, "error")
        return ShellResult(error=NO_BASH)
    policy = policy_of(session)
    refusal = policy.refuse_own("bash", args, tool) if policy is not None else None
    if refusal is not None:
        end(refusal, {"command": command}, "denied")
        return ShellResult(error=refusal)
    # As before a prompt: `/undo` puts back what a `!rm` removed.
    checkpoint = await snapshot(signal, f"!{command}")
    started = time.monotonic()

    def on_output(stream: str, chunk: str) -> None:
        session.emit(session.event(ToolOutput, tool_call_id=call_id, stream=stream, chunk=chunk))

    try:
        check_abort(signal)
        ctx = ToolContext(call_id=call_id, signal=signal, on_output=on_output)
        watch = (
            session.seams.watch_tool(session, traits, args) if session.seams.watch_tool else contextlib.nullcontext()
        )
        async with watch:  # what the command changes is the session's own (runtime/checkpointing.py)
            ran = await tool.run(command, None, ctx)
    except AbortError:
        end(ABORT_MESSAGE, {"command": command}, "aborted")
        return ShellResult(error=INTERRUPTED, aborted=True, checkpoint=checkpoint)
    except Exception as exc:  # the sandbox could not run it (e.g. its directory is gone): one sentence
        text = str(exc) or type(exc).__name__
        end(text, {"command": command}, "error")
        return ShellResult(error=text, checkpoint=checkpoint)
    end(
        format_bash_text(ran.stdout, ran.stderr, ran.exit_code),
        {"command": command, "exitCode": ran.exit_code, "durationMs": ran.duration_ms},
        "ok",
    )
    user = message(command, ran)
    session.messages.append(user)
    session.emit(session.event(MessageEnd, message=message_to_dict(user)))
    return ShellResult(exit_code=ran.exit_code, checkpoint=checkpoint)
