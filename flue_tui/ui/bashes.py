"""`/bashes [tail ID | kill ID]`: the background commands the model started (bash_background),
their state and last output; both front ends dispatch it (ui/commands.py)."""

from __future__ import annotations

from typing import Any

from flue_tui.tools.background import Jobs, jobs_of
from flue_tui.ui.termsafe import terminal_safe

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
        return f"Stopping {job.id} ({terminal_safe(job.command)}).", "info"
    tail = "\n".join(job.recent.rstrip("\n").split("\n")[-TAIL_LINES:]) if job.recent else "(no output yet)"
    return f"{job.id} {job.state()}: {terminal_safe(job.command)}\n{terminal_safe(tail)}", "info"


def bashes(fe: Any, arg: str) -> None:
    text, level = bashes_text(jobs_of(fe.session), arg)
    fe.notice(text, level)
