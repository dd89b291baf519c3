"""A plain line-mode front end: the fallback when no full-screen UI is available."""

from __future__ import annotations

import asyncio
import sys

from flue_tui.config.errors import EXIT_CONFIG, ConfigError
from flue_tui.config.settings import Settings
from flue_tui.core.events import Event, Log, TextDelta, ToolEnd, ToolStart
from flue_tui.core.toolcall import call_summary
from flue_tui.headless.printmode import _attached
from flue_tui.runtime.start import SessionOptions
from flue_tui.ui.logline import log_line
from flue_tui.ui.termsafe import terminal_safe


def _render(event: Event) -> None:
    if event.task_id:
        return
    # Model, tool and provider words reach a terminal as text it shows, never as escapes it obeys.
    if isinstance(event, TextDelta):
        sys.stdout.write(terminal_safe(event.text))
        sys.stdout.flush()
    elif isinstance(event, ToolStart):
        print(terminal_safe(f"\n· {event.tool_name} {call_summary(event.tool_name, event.args)}"), file=sys.stderr)
    elif isinstance(event, ToolEnd) and event.is_error:
        first = event.result["content"][0]["text"].splitlines()[:1]
        print(terminal_safe(f"  ✗ {first[0] if first else 'error'}"), file=sys.stderr)
    elif isinstance(event, Log):
        print(terminal_safe(f"  {log_line(event)}"), file=sys.stderr)


async def _loop(settings: Settings, first: str | None, sessions: SessionOptions | None = None) -> int:
    from flue_tui.permissions.project import accept, ask_on_terminal, pending
    from flue_tui.runtime.handle import SessionHandle
    from flue_tui.runtime.start import pick_by_number
    from flue_tui.ui.slash import expand

    asked = pending(settings)
    if asked is not None and await ask_on_terminal(asked):
        settings = accept(settings, asked)
    handle = SessionHandle(settings, sessions)
    started = handle.start(picker=pick_by_number)
    for notice in started.notices:
        print(f"flue: {notice}", file=sys.stderr)
    session, context = started.session, started.context
    for warning in context.warnings:  # what the project file did not get, skipped skills, the sandbox
        print(warning, file=sys.stderr)
    session.subscribe(_render)
    from flue_tui.permissions.asking import ask_on_terminal
    from flue_tui.permissions.policy import policy_of

    policy = policy_of(session)
    if policy is not None:  # ask mode: the question and the answer go through the terminal
        policy.asker = ask_on_terminal
    print(f"flue · {settings.model} · {settings.cwd}  (Ctrl+D to quit)", file=sys.stderr)
    pending = first
    while True:
        if pending is None:
            try:
                pending = await asyncio.to_thread(input, "\n> ")
            except EOFError:
                return 0
        if pending.strip() in ("/quit", "/exit"):
            return 0
        typed = expand(pending, context.skills, "in --plain mode") if pending.strip() else None
        if typed is not None and typed.refusal is not None:
            print(terminal_safe(f"flue: {typed.refusal}"), file=sys.stderr)
        elif typed is not None:
            text, display, images = typed.prompt, typed.display, ()
            if display is None:  # a skill's extension is not scanned for `@path`
                got = _attached(pending, settings, True, session)
                text, display, images = got.text, got.display, got.images
            task = asyncio.ensure_future(session.prompt(text, display=display, images=images))
            try:
                result = await asyncio.shield(task)
            except asyncio.CancelledError:
                session.abort()
                result = await task
            print()
            if result.is_error:
                print(terminal_safe(f"flue: {result.hint or result.error}"), file=sys.stderr)
        pending = None


def run_plain(settings: Settings, first: str | None, *, sessions: SessionOptions | None = None) -> int:
    try:
        return asyncio.run(_loop(settings, first, sessions))
    except ConfigError as exc:
        print(f"flue: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    except KeyboardInterrupt:
        return 130
