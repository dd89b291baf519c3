"""`/bashes [tail ID | kill ID]`: the background commands the model started (bash_background),
their state and last output; both front ends dispatch it (ui/commands.py). And `EndedJobs`: what
the user and the model hear when one ends."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flue_tui.ui.termsafe import terminal_safe

if TYPE_CHECKING:
    from flue_tui.tools.background import Job, Jobs

# The tools' and the store's modules are imported when a command or an ended job needs them: the
# app imports this module (EndedJobs) before its first frame, which they would delay.

USAGE = "Usage: /bashes, /bashes tail ID, /bashes kill ID."
TAIL_LINES = 20


def bashes_text(jobs: Jobs | None, arg: str) -> tuple[str, str]:
    """(text, level) for `/bashes arg`."""
    words = arg.split()
    if jobs is None or not jobs.jobs:
        return ("No background commands.", "info") if not words else ("No background commands.", "warn")
    if not words:
        lines = [f"{j.id}  {j.state()}  {terminal_safe(j.command)}" + (f"  ({terminal_safe(j.description)})" if j.description else "") for j in jobs.jobs.values()]  # fmt: skip
        return "Background commands (/bashes tail ID, /bashes kill ID):\n" + "\n".join(lines), "info"
    if len(words) != 2 or words[0] not in ("tail", "kill"):
        return USAGE, "warn"
    job = jobs.jobs.get(words[1])
    if job is None:
        return f"No background command {words[1]!r} (known: {', '.join(jobs.jobs)}).", "warn"
    if words[0] == "kill":
        if not job.running:
            return f"{job.id} is not running ({job.state()}).", "info"
        jobs.kill(job)
        job.reported = True  # the user stopped it: no follow-up turn to tell the model (bash_output says so)
        return f"Stopping {job.id} ({terminal_safe(job.command)}).", "info"
    tail = "\n".join(job.recent.rstrip("\n").split("\n")[-TAIL_LINES:]) if job.recent else "(no output yet)"
    return f"{job.id} {job.state()}: {terminal_safe(job.command)}\n{terminal_safe(tail)}", "info"


def bashes(fe: Any, arg: str) -> None:
    from flue_tui.tools.background import jobs_of

    text, level = bashes_text(jobs_of(fe.session), arg)
    fe.notice(text, level)


# Automatic turns in a row without a prompt from the user: a model whose follow-up starts a command
# that ends at once could otherwise talk to itself forever.
MAX_FOLLOW_UPS = 3
SIGNAL = '<signal type="background_command">'  # the follow-up's message, as Flue words a signal (§7.4)


def ended_line(job: Job) -> str:
    """The one line the user sees when a background command ends."""
    return f"Background command {job.id} ({terminal_safe(job.command)}) {job.state()}."


class EndedJobs:
    """When a background command ends, the user sees a line at once, and the model is told as
    Claude Code tells it (its task notification): a follow-up turn once the session is idle, whose
    message is a Flue signal naming the command and how it ended. One the model already read to its
    end (bash_output, bash_kill) is not told again. The app and inline mode each hold one."""

    def __init__(self) -> None:
        self.announced: set[tuple[int, str]] = set()  # (which Jobs, job id): /new brings a new runtime
        self.follow_ups = 0

    def user_sent(self) -> None:
        self.follow_ups = 0

    def newly_ended(self, jobs: Jobs | None) -> list[str]:
        """Lines for the user, once per job that ended since the last call."""
        if jobs is None:
            return []
        out = []
        for job in jobs.jobs.values():
            if not job.running and (id(jobs), job.id) not in self.announced:
                self.announced.add((id(jobs), job.id))
                out.append(ended_line(job))
        return out

    def follow_up(self, jobs: Jobs | None) -> tuple[str, str] | None:
        """(the model's message, the line kept as its display) for the idle session, or None."""
        from flue_tui.store.resume import signal_text

        ended = [] if jobs is None else [j for j in jobs.jobs.values() if not j.running and not j.reported]
        if not ended or self.follow_ups >= MAX_FOLLOW_UPS:
            return None
        self.follow_ups += 1
        for job in ended:
            job.reported = True
        body = "\n".join(
            f"Background command {j.id} ({j.command}) {j.state()}. Read what it printed with bash_output (id {j.id})."
            for j in ended
        )
        ids = ", ".join(j.id for j in ended)
        return signal_text("background_command", body), f"(told the model that {ids} ended)"
