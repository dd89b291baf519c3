"""`bash_background`, `bash_output`, `bash_kill`: commands that keep running while the model works.

A background command runs through the same `sandbox.exec` as `bash` (so the env allowlist, the
workspace sandbox, the process group and the reaper that kills it when flue dies, kill -9 included,
are bash's), as an asyncio task with its own abort signal: an interrupted turn leaves it running,
bash_kill or flue's exit stops it. Its output is kept in a bounded buffer (bash's 2000 lines /
50KB, the newest kept), read since the last read by bash_output. Permissions are bash's: the policy
reads bash_background as bash (a rule for `bash(npm run dev)` covers it).
"""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass, field
from typing import Any

from flue_tui.core.abort import AbortSignal, ToolError
from flue_tui.core.toolcall import one_line
from flue_tui.core.traits import ToolTraits
from flue_tui.sandbox.base import Sandbox
from flue_tui.tools.base import MAX_READ_BYTES, MAX_READ_LINES, ToolContext, ToolResult, prop, schema
from flue_tui.tools.truncate import truncate_tail

MAX_JOBS = 16  # running at once: a model looping on bash_background cannot fork-bomb the machine
KEPT_ENDED = 32  # ended jobs remembered (each holds up to _BUFFER unread): the oldest are forgotten
_BUFFER = 4 * MAX_READ_BYTES  # unread characters kept before the oldest are dropped
_RECENT = 8 * 1024


@dataclass(slots=True)
class Job:
    """A background command: its output so far, what the model has not read yet, and how it ended."""

    id: str
    command: str
    description: str
    signal: AbortSignal = field(default_factory=AbortSignal)
    unread: list[str] = field(default_factory=list)
    unread_len: int = 0
    dropped: bool = False  # unread output was dropped to stay bounded
    recent: str = ""  # the last output, read or not: what /bashes shows the user
    exit_code: int | None = None
    error: str | None = None
    reported: bool = False  # the model was told it ended
    task: asyncio.Task[None] | None = None
    finished: bool = False  # set before the listeners hear of the end (the task is not done yet then)

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done() and not self.finished

    def feed(self, _stream: str, chunk: str) -> None:
        self.unread.append(chunk)
        self.recent = (self.recent + chunk)[-_RECENT:]
        self.unread_len += len(chunk)
        while self.unread_len > _BUFFER and len(self.unread) > 1:
            self.unread_len -= len(self.unread.pop(0))
            self.dropped = True

    def take(self) -> str:
        text, self.unread, self.unread_len = "".join(self.unread), [], 0
        dropped, self.dropped = self.dropped, False
        out, _ = truncate_tail(text, MAX_READ_LINES, MAX_READ_BYTES)
        return ("[earlier output dropped]\n" if dropped or out != text else "") + out

    def state(self) -> str:
        if self.running:
            return "running"
        return f"exited with code {self.exit_code}" if self.error is None else f"failed: {self.error}"


class Jobs:
    """The background commands of one flue process (the root session and its task children)."""

    def __init__(self) -> None:
        self.jobs: dict[str, Job] = {}
        self._ids = itertools.count(1)
        self.listeners: list[Any] = []  # called with no argument when a job starts or ends (status bar)

    def running(self) -> list[Job]:
        return [j for j in self.jobs.values() if j.running]

    def start(self, sandbox: Sandbox, command: str, description: str) -> Job:
        if len(self.running()) >= MAX_JOBS:
            raise ToolError(f"{MAX_JOBS} background commands are already running; stop one with bash_kill first.")
        ended = [j for j in self.jobs.values() if not j.running]
        for old in ended[: max(0, len(ended) - KEPT_ENDED + 1)]:  # a looping model cannot grow memory
            del self.jobs[old.id]
        job = Job(f"bg{next(self._ids)}", command, description)
        job.task = asyncio.get_running_loop().create_task(self._run(sandbox, job))
        self.jobs[job.id] = job
        self._changed()
        return job

    async def _run(self, sandbox: Sandbox, job: Job) -> None:
        try:
            # What the shell leaves behind (`cmd > log &`) ends with it: else it would outlive
            # bash_kill and flue, released from the reaper as a bash command's leftovers are.
            result = await sandbox.exec(job.command, signal=job.signal, on_output=job.feed, reap_group=True)
            job.exit_code = result.exit_code
            if result.exit_code != 0 and result.stderr and not job.unread:
                job.feed("stderr", result.stderr)
        except Exception as exc:  # an abort (bash_kill, flue's exit) or a spawn failure: one sentence
            job.exit_code = 143 if job.signal.aborted else 1
            job.error = None if job.signal.aborted else (str(exc) or type(exc).__name__)
        finally:
            job.finished = True
            self._changed()

    def get(self, job_id: Any) -> Job:
        job = self.jobs.get(job_id) if isinstance(job_id, str) else None
        if job is None:
            known = ", ".join(self.jobs) or "none"
            # A forged id is echoed only in part: one sentence, whatever the model sent.
            raise ToolError(f"No background command with id {one_line(repr(job_id), 80)} (known: {known}).")
        return job

    def kill(self, job: Job) -> None:
        job.signal.abort()

    def kill_all(self) -> None:
        for job in self.running():
            job.signal.abort()

    def unreported(self) -> list[Job]:
        """Jobs that ended since the model was last told; marks them told."""
        out = [j for j in self.jobs.values() if not j.running and not j.reported]
        for j in out:
            j.reported = True
        return out

    def _changed(self) -> None:
        for fn in list(self.listeners):
            fn()


def ended_note(jobs: Jobs, skip: str = "") -> str:
    """One line per background command that ended unannounced: appended to the next result."""
    lines = [f"Background command {j.id} ({j.command}) {j.state()}." for j in jobs.unreported() if j.id != skip]
    return ("\n\n" + "\n".join(lines)) if lines else ""


def jobs_of(session: Any) -> Jobs | None:
    """The background commands a session's tools share (None for a session without them)."""
    tools = getattr(session, "tools", None) or {}
    jobs = getattr(tools.get("bash_output"), "jobs", None)
    return jobs if isinstance(jobs, Jobs) else None


class BashBackgroundTool:
    name = "bash_background"
    label = "Run in Background"
    traits = ToolTraits(kind="execute", subject="command", shell=True)
    description = (
        "Start a bash command in the background (a dev server, a watcher, a long build) and return at "
        "once with its id. Read its output with bash_output and stop it with bash_kill."
    )
    parameters = schema(
        {
            "command": prop("string", "Bash command to run in the background"),
            "description": prop("string", "What the command is for, in a few words"),
        },
        ["command"],
    )

    def __init__(self, sandbox: Sandbox, jobs: Jobs) -> None:
        self.sandbox = sandbox
        self.jobs = jobs

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        command = args["command"]
        if not isinstance(command, str) or not command.strip():
            raise ToolError("bash_background needs a non-empty command.")
        description = args.get("description")
        job = self.jobs.start(self.sandbox, command, description if isinstance(description, str) else "")
        text = f"Started in the background. id: {job.id}\nRead its output with bash_output, stop it with bash_kill."
        return ToolResult(text + ended_note(self.jobs, job.id), {"id": job.id, "command": command})


class BashOutputTool:
    name = "bash_output"
    label = "Read Background Output"
    traits = ToolTraits(kind="read", subject="id", read_only=True)
    description = (
        "Return what a background command (started with bash_background) printed since the last read, and "
        "whether it is still running (its exit code once done)."
    )
    parameters = schema({"id": prop("string", "The background command's id")}, ["id"])

    def __init__(self, jobs: Jobs) -> None:
        self.jobs = jobs

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        job = self.jobs.get(args.get("id"))
        if not job.running:
            job.reported = True
        output = job.take().rstrip("\n")
        text = f"{output or '(no new output)'}\n\n[{job.id} {job.state()}]"
        details = {"id": job.id, "running": job.running, "exitCode": job.exit_code}
        return ToolResult(text + ended_note(self.jobs, job.id), details)


class BashKillTool:
    name = "bash_kill"
    label = "Stop Background Command"
    traits = ToolTraits(kind="other", subject="id")
    description = "Stop a background command started with bash_background (its whole process group)."
    parameters = schema({"id": prop("string", "The background command's id")}, ["id"])

    def __init__(self, jobs: Jobs) -> None:
        self.jobs = jobs

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        job = self.jobs.get(args.get("id"))
        if not job.running:
            return ToolResult(f"{job.id} is not running ({job.state()}).", {"id": job.id})
        self.jobs.kill(job)
        if job.task is not None:
            await asyncio.wait({job.task}, timeout=10)
        job.reported = True
        return ToolResult(f"Stopped {job.id} ({job.state()}).", {"id": job.id})
