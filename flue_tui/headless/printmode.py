"""`flue -p`: one prompt, no questions asked (what would ask is refused); text, json or stream-json;
an honest exit code."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import signal as _signal
import sys
from typing import TYPE_CHECKING, Any, TextIO

from flue_tui.agent.session import OperationResult, Session
from flue_tui.config.errors import EXIT_CONFIG, ConfigError
from flue_tui.config.settings import Settings
from flue_tui.core.events import Event, Fallback, Log, TextDelta, ThinkingDelta, ToolEnd, ToolOutput, ToolStart
from flue_tui.core.toolcall import call_summary
from flue_tui.core.traits import OTHER, OUTCOME_WORDS
from flue_tui.headless import output
from flue_tui.headless.resultline import denial_entries, policy_mode, result_object, unasked_note
from flue_tui.headless.workers import DaemonExecutor, exit_now
from flue_tui.headless.workers import signalled as start_up_signal
from flue_tui.hooks.events import TAG as HOOKS_TAG
from flue_tui.runtime.checkpointing import TAG as CHECKPOINT_TAG
from flue_tui.runtime.claudecode import AGENTS_TAG, COMMANDS_TAG
from flue_tui.runtime.handle import SessionHandle
from flue_tui.runtime.start import SessionOptions, Started
from flue_tui.ui.logline import log_line
from flue_tui.ui.termsafe import terminal_safe

if TYPE_CHECKING:
    from flue_tui.core.images import Image
    from flue_tui.headless.claude.flags import ClaudeOptions
    from flue_tui.ui.attach import Attached

EXIT_OK, EXIT_ERROR, EXIT_SIGINT, EXIT_SIGTERM = 0, 1, 130, 143
EVENTS_SCHEMA_VERSION = 1  # `--output-format events`: bump when an event's fields change meaning
_PARTIAL = (TextDelta, ThinkingDelta, ToolOutput)

# Log lines said on stderr in every format, never only in a stream nobody reads.
_ALWAYS_SAID = (CHECKPOINT_TAG, HOOKS_TAG, COMMANDS_TAG, AGENTS_TAG)


def _write_line(out: TextIO, obj: dict[str, Any]) -> None:
    output.write(json.dumps(obj, ensure_ascii=False) + "\n", out)  # a closed pipe ends the run quietly


class _Renderer:
    """Turns session events into stdout/stderr output for one format."""

    def __init__(self, fmt: str, *, verbose: bool, partial: bool) -> None:
        self.fmt, self.verbose, self.partial = fmt, verbose, partial
        self.started: dict[str, ToolStart] = {}  # running calls: their tool's traits read the details

    def __call__(self, event: Event) -> None:
        progress = self.verbose and self.fmt not in ("events", "stream-json")
        if self.fmt == "events":  # flue's own event stream (schema: EVENTS_SCHEMA_VERSION)
            if self.partial or not isinstance(event, _PARTIAL):
                _write_line(sys.stdout, event.to_dict())
        elif progress:  # Claude Code's --verbose in stream-json only unlocks the stream
            self._progress(event)
        if isinstance(event, Fallback):  # the model changed under the run: said in every format, once
            _say(f"flue: {event.message}")
        elif not progress:
            say_notice(event)

    def _progress(self, event: Event) -> None:
        indent = "  " if event.task_id else ""
        if isinstance(event, ToolStart):
            self.started[event.tool_call_id] = event
            _say(f"{indent}tool {event.tool_name} {call_summary(event.tool_name, event.args)}".rstrip())
        elif isinstance(event, ToolEnd) and event.outcome != "ok":
            self.started.pop(event.tool_call_id, None)
            text = event.result["content"][0]["text"].splitlines()[0:1]
            word = OUTCOME_WORDS[event.outcome or "error"]  # denied / interrupted / error, from the outcome
            _say(f"{indent}tool {word} {event.tool_name}: {text[0] if text else ''}")
        elif isinstance(event, ToolEnd):  # the outcome in the app's words: lines read, exit code, +/- lines
            from flue_tui.ui.toolfmt import seconds, summary
            from flue_tui.ui.transcript import ToolEntry

            content = event.result.get("content") or [{}]
            start = self.started.pop(event.tool_call_id, None)
            entry = ToolEntry(
                name=event.tool_name,
                kind=start.kind if start is not None else "other",
                traits=start.traits if start is not None else OTHER,
                status="ok",
                outcome="ok",
                result_text=str(content[0].get("text", "")),
                details=event.result.get("details") or {},
            )
            what = " · ".join(x for x in (summary(entry), seconds(event.duration_ms)) if x)
            _say(f"{indent}tool ok {event.tool_name}: {what}")
        elif isinstance(event, Log) and not isinstance(event, Fallback):
            _say(f"{indent}{log_line(event)}")


def say_notice(event: Event) -> None:
    """What is said on stderr even when stdout is a stream (json, stream-json, events): a
    checkpoint not taken or a hook that failed is never only in a stream nobody reads."""
    if isinstance(event, Log) and event.message.startswith(_ALWAYS_SAID):
        _say(log_line(event))


def _say(line: str) -> None:
    """A progress line on stderr: its words come from the model, tools and providers (ui/termsafe.py)."""
    output.say(terminal_safe(line))


def _answer(text: str) -> None:
    """The answer on stdout in text mode, as text a terminal shows rather than obeys."""
    text = terminal_safe(text)
    output.write(text if text.endswith("\n") else text + "\n")


def stopped_during_start_up(code: int, fmt: str | None, model: str | None) -> int:
    """SIGINT/SIGTERM before the run began: the aborted result where the format wants one, then out."""
    name = "SIGINT" if code == EXIT_SIGINT else "SIGTERM"
    start_failure(f"Aborted by {name}.", fmt, model)
    exit_now(code)


def start_failure(message: str, fmt: str | None, model: str | None) -> int:
    """The run never started (flags, settings, config files, prompt bytes): one line on stderr, the
    result object too under json/stream-json, and one exit code for all of them."""
    output.say(f"flue: {message}")
    if fmt in ("json", "stream-json", "events"):
        _write_line(sys.stdout, result_object(OperationResult.failed(message), session_id="", model=model))
    return EXIT_CONFIG


async def _run(
    handle: SessionHandle,
    session: Session,
    prompt: str,
    schema: dict[str, Any] | None,
    renderer: _Renderer,
    display: str | None = None,
    images: tuple[Image, ...] = (),
) -> tuple[OperationResult, int | None]:
    loop = asyncio.get_running_loop()
    caught: list[int] = []

    def on_signal(code: int) -> None:
        if not caught:
            caught.append(code)
        if code == EXIT_SIGTERM:  # the store keeps the partial answer, as after kill -9
            handle.cut_recording()
        session.abort()

    for signum, code in ((_signal.SIGINT, EXIT_SIGINT), (_signal.SIGTERM, EXIT_SIGTERM)):
        loop.add_signal_handler(signum, on_signal, code)
    session.subscribe(renderer)
    try:
        result = await session.prompt(prompt, result_schema=schema, display=display, images=images)
    finally:
        for signum in (_signal.SIGINT, _signal.SIGTERM):
            loop.remove_signal_handler(signum)
    return result, (caught[0] if caught else None)


def run_print(
    settings: Settings,
    prompt: str | None,
    *,
    fmt: str = "text",
    verbose: bool = False,
    partial: bool = False,
    skill: str | None = None,
    sessions: SessionOptions | None = None,
    claude: ClaudeOptions | None = None,
    images: tuple[str, ...] = (),
) -> int:
    try:
        handle = SessionHandle(settings, sessions)
        started = handle.start()  # resumes and records per the session flags
        output.when_gone(handle.cut_recording)  # `| head -1`: keep what streamed, as after SIGTERM
    except ConfigError as exc:
        return start_failure(str(exc), fmt, settings.model)
    try:
        return _print_run(handle, started, settings, prompt, fmt, verbose, partial, skill, claude, images)
    finally:
        handle.close()  # the recording ends and the session's lock is freed here, not left to the exit


def _print_run(
    handle: SessionHandle,
    started: Started,
    settings: Settings,
    prompt: str | None,
    fmt: str,
    verbose: bool,
    partial: bool,
    skill: str | None,
    claude: ClaudeOptions | None,
    image_paths: tuple[str, ...] = (),
) -> int:
    from flue_tui.context.skills import skill_prompt
    from flue_tui.ui.slash import expand

    for notice in started.notices:
        output.say(f"flue: {notice}")
    session, context = started.session, started.context
    for warning in context.warnings:  # invalid skills are skipped, visibly, never fatal
        _say(warning)
    if skill is not None:
        found = context.skills.get(skill)
        if found is None:
            names = ", ".join(s.name for s in context.skills.skills) or "(none)"
            return start_failure(f'Skill "{skill}" is not available. Available skills: {names}.', fmt, settings.model)
        prompt = skill_prompt(found, prompt)
    if (stop := start_up_signal()) is not None:  # taken in start-up, its raise swallowed on the way
        return stopped_during_start_up(stop.code, fmt, settings.model)
    if claude is not None and claude.input_format == "stream-json":
        return _serve(handle, claude, prompt, partial)
    if not prompt or not prompt.strip():
        return start_failure("No prompt given.", fmt, settings.model)
    display = None
    if skill is None:
        typed = expand(prompt, context.skills)  # `/skill args` runs it; `/model` or a typo is refused
        if typed.refusal is not None:
            return start_failure(typed.refusal, fmt, settings.model)
        prompt, display = typed.prompt, typed.display
    got = _attached(prompt, settings, verbose, session) if skill is None and display is None else None
    if got is not None:
        prompt, display = got.text, got.display
    images, refused = _images(image_paths, settings, session)
    if refused is not None:  # the user named the file: a run without it is not what was asked
        return start_failure(refused[0].upper() + refused[1:].rstrip(".") + ".", fmt, settings.model)
    images = (*(got.images if got is not None else ()), *images)
    if fmt == "events":
        _write_line(
            sys.stdout,
            {
                "type": "system",
                "subtype": "init",
                "schema_version": EVENTS_SCHEMA_VERSION,
                "session_id": session.id,
                "cwd": settings.cwd,
                "model": settings.model,
                "tools": list(session.tools),
                "permissionMode": policy_mode(session),
            },
        )
    elif fmt == "stream-json":
        from flue_tui.headless.claude import run as cc
        from flue_tui.headless.claude.stream import ClaudeStream

        cc.write_init(lambda obj: _write_line(sys.stdout, obj), session, context, settings.model, claude)
        session.subscribe(
            ClaudeStream(
                lambda obj: _write_line(sys.stdout, obj), root=session.id, partial=partial, model=settings.model or ""
            )
        )
    renderer = _Renderer(fmt, verbose=verbose, partial=partial)
    if (stop := start_up_signal()) is not None:  # and once more for the init line and `@path` reads
        return stopped_during_start_up(stop.code, fmt, settings.model)
    with asyncio.Runner() as runner:
        # Daemon workers: a tool stuck in a thread must not keep a signalled run from ending.
        runner.get_loop().set_default_executor(DaemonExecutor())
        result, signalled = runner.run(_run(handle, session, prompt, settings.json_schema, renderer, display, images))
    if signalled is not None:
        name = "SIGINT" if signalled == EXIT_SIGINT else "SIGTERM"
        result = OperationResult(
            text=f"Aborted by {name}.",
            is_error=True,
            subtype="error_during_execution",
            num_turns=result.num_turns,
            duration_ms=result.duration_ms,
            duration_api_ms=result.duration_api_ms,
            usage=result.usage,
            error=f"Aborted by {name}.",
            aborted=True,
        )
    unsaved, kept = handle.save_failure(), ""
    if unsaved is not None and not result.is_error:  # the answer stands, but the run failed to keep it
        kept = result.text
        result = dataclasses.replace(
            result,
            is_error=True,
            subtype="error_during_execution",
            error=unsaved,
            hint=None,
            text=f"{kept}\n\n{unsaved}" if kept else unsaved,
        )
    elif unsaved is not None:
        _say(f"flue: {unsaved}")
    if fmt in ("json", "stream-json", "events"):
        _write_line(
            sys.stdout,
            result_object(
                result,
                session_id=session.id,
                model=settings.model,
                permission_denials=denial_entries(session),
                session=session,
                window=signalled is None,
            ),
        )
    elif kept:  # text mode: the answer still goes to stdout; the failure to stderr, and exit 1
        _answer(kept)
    elif not result.is_error or result.stop_reason == "max_tokens":  # a cut answer is still shown
        if result.text:
            _answer(result.text)
    if fmt == "text":  # json and stream-json list them in permission_denials
        for line in unasked_note(session):
            _say(line)
    if result.is_error:
        _say(f"flue: {result.hint or result.error}")
    if signalled is not None:
        exit_now(signalled)  # within moments of the signal, whatever a worker thread is doing
    return EXIT_ERROR if result.is_error else EXIT_OK


def _attached(prompt: str, settings: Settings, verbose: bool, session: Session) -> Attached:
    """`@path` mentions attach their files; what was refused is said on stderr (all notes with --verbose)."""
    from flue_tui.ui.attach import attach, read_denied, workspace_roots

    got = attach(
        prompt,
        settings.cwd,
        roots=workspace_roots(settings.sandbox, settings.cwd, settings.add_dirs),
        denied=read_denied(session),
    )
    for note in got.notes:
        if verbose or note.startswith("not attached"):
            _say(f"flue: {note}")
    return got


def _images(paths: tuple[str, ...], settings: Settings, session: Session) -> tuple[tuple[Image, ...], str | None]:
    """`--image FILE`s, under the same guard and `read` rules as `@path`."""
    if not paths:
        return (), None
    from flue_tui.ui.attach import image_files, read_denied, workspace_roots

    roots = workspace_roots(settings.sandbox, settings.cwd, settings.add_dirs)
    return image_files(paths, settings.cwd, roots=roots, denied=read_denied(session))


def _serve(handle: SessionHandle, claude: ClaudeOptions, prompt: str | None, partial: bool) -> int:
    """`--input-format stream-json`: turns from stdin (headless/claude/control.py), Claude Code's stream out."""
    from flue_tui.headless.claude.run import serve_stream_input

    def result_line(result: OperationResult, s: Session, model: str | None, denials: list[dict[str, Any]]) -> dict:
        return result_object(result, session_id=s.id, model=model, permission_denials=denials, session=s)

    assert handle.session is not None
    handle.session.subscribe(say_notice)
    _results, signalled = serve_stream_input(
        handle,
        claude,
        lambda obj: _write_line(sys.stdout, obj),
        partial=partial,
        first_prompt=prompt if prompt and prompt.strip() else None,
        result_line=result_line,
    )
    if signalled is not None:
        exit_now(signalled)
    return EXIT_OK
