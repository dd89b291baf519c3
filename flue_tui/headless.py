"""`flue -p`: one prompt, no questions asked; text, json or stream-json; an honest exit code."""

from __future__ import annotations

import asyncio
import json
import signal as _signal
import sys
from typing import Any, TextIO

from flue_tui.agent.events import Event, Log, TextDelta, ThinkingDelta, ToolEnd, ToolOutput, ToolStart
from flue_tui.agent.messages import Usage
from flue_tui.agent.session import OperationResult, Session
from flue_tui.config import ConfigError, Settings
from flue_tui.session_start import SessionOptions

EXIT_OK, EXIT_ERROR, EXIT_SIGINT, EXIT_SIGTERM = 0, 1, 130, 143
_PARTIAL = (TextDelta, ThinkingDelta, ToolOutput)


def result_object(result: OperationResult, *, session_id: str, model: str | None,
                  permission_denials: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The field names CI wrappers already parse (Claude Code's `result` message)."""
    usage = result.usage
    out: dict[str, Any] = {
        "type": "result",
        "subtype": result.subtype,
        "is_error": result.is_error,
        "result": result.text,
        "session_id": session_id,
        "num_turns": result.num_turns,
        "duration_ms": result.duration_ms,
        "duration_api_ms": result.duration_api_ms,
        # null when a model had no known price: unknown, never a made-up $0.
        "total_cost_usd": round(usage.cost, 10) if usage.priced else None,
        "usage": {
            "input_tokens": usage.input,
            "output_tokens": usage.output,
            "cache_read_input_tokens": usage.cache_read,
            "cache_creation_input_tokens": usage.cache_write,
        },
        "model": model,
        # Every call the permission policy or the workspace sandbox refused, sub-agents included.
        "permission_denials": list(permission_denials or []),
    }
    if result.structured_output is not None:
        out["structured_output"] = result.structured_output
    return out


def _denials(session: Session) -> list[dict[str, Any]]:
    from flue_tui.permissions.policy import policy_of

    policy = policy_of(session)
    return [d.to_dict() for d in policy.denials] if policy is not None else []


def _policy_mode(session: Session) -> str | None:
    from flue_tui.permissions.policy import policy_of

    policy = policy_of(session)
    return policy.mode if policy is not None else None


def _write_line(out: TextIO, obj: dict[str, Any]) -> None:
    out.write(json.dumps(obj, ensure_ascii=False) + "\n")
    out.flush()


def _summary(args: dict[str, Any]) -> str:
    for key in ("command", "path", "pattern", "prompt"):
        if isinstance(args.get(key), str):
            value = args[key].replace("\n", " ")
            return value if len(value) <= 80 else value[:77] + "..."
    return ""


class _Renderer:
    """Turns session events into stdout/stderr output for one format."""

    def __init__(self, fmt: str, *, verbose: bool, partial: bool) -> None:
        self.fmt, self.verbose, self.partial = fmt, verbose, partial

    def __call__(self, event: Event) -> None:
        if self.fmt == "stream-json":
            if self.partial or not isinstance(event, _PARTIAL):
                _write_line(sys.stdout, event.to_dict())
        elif self.verbose:
            self._progress(event)

    def _progress(self, event: Event) -> None:
        indent = "  " if event.task_id else ""
        if isinstance(event, ToolStart):
            print(f"{indent}tool {event.tool_name} {_summary(event.args)}".rstrip(), file=sys.stderr)
        elif isinstance(event, ToolEnd) and event.is_error:
            text = event.result["content"][0]["text"].splitlines()[0:1]
            print(f"{indent}tool error {event.tool_name}: {text[0] if text else ''}", file=sys.stderr)
        elif isinstance(event, Log):
            print(f"{indent}{event.message}", file=sys.stderr)


def _failure(message: str, fmt: str, model: str | None, code: int = EXIT_ERROR) -> int:
    print(f"flue: {message}", file=sys.stderr)
    if fmt in ("json", "stream-json"):
        failed = OperationResult(text=message, is_error=True, subtype="error_during_execution", num_turns=0,
                                 duration_ms=0, duration_api_ms=0, usage=Usage(), error=message)
        _write_line(sys.stdout, result_object(failed, session_id="", model=model))
    return code


async def _run(session: Session, prompt: str, schema: dict[str, Any] | None,
               renderer: _Renderer) -> tuple[OperationResult, int | None]:
    loop = asyncio.get_running_loop()
    caught: list[int] = []

    def on_signal(code: int) -> None:
        if not caught:
            caught.append(code)
        session.abort()

    for signum, code in ((_signal.SIGINT, EXIT_SIGINT), (_signal.SIGTERM, EXIT_SIGTERM)):
        loop.add_signal_handler(signum, on_signal, code)
    session.subscribe(renderer)
    try:
        result = await session.prompt(prompt, result_schema=schema)
    finally:
        for signum in (_signal.SIGINT, _signal.SIGTERM):
            loop.remove_signal_handler(signum)
    return result, (caught[0] if caught else None)


def run_print(settings: Settings, prompt: str | None, *, fmt: str = "text", verbose: bool = False,
              partial: bool = False, skill: str | None = None, sessions: SessionOptions | None = None) -> int:
    from flue_tui.context.skills import skill_prompt
    from flue_tui.session_start import open_session

    if settings.max_budget_usd is not None and settings.model:
        from flue_tui.model.pricing import budget_problem
        from flue_tui.runtime import prices

        try:
            problem = budget_problem(settings.model, prices(settings))
        except ConfigError as exc:
            problem = str(exc)
        if problem:
            return _failure(problem, fmt, settings.model, code=2)
    try:
        session, context = open_session(settings, sessions)  # resumes and records per the session flags
    except ConfigError as exc:
        return _failure(str(exc), fmt, settings.model)
    for warning in context.warnings:  # invalid skills are skipped, visibly, never fatal
        print(warning, file=sys.stderr)
    if skill is not None:
        found = context.skills.get(skill)
        if found is None:
            names = ", ".join(s.name for s in context.skills.skills) or "(none)"
            return _failure(f'Skill "{skill}" is not available. Available skills: {names}.', fmt, settings.model)
        prompt = skill_prompt(found, prompt)
    if not prompt or not prompt.strip():
        return _failure("No prompt given.", fmt, settings.model)
    if fmt == "stream-json":
        _write_line(sys.stdout, {"type": "system", "subtype": "init", "session_id": session.id,
                                 "cwd": settings.cwd, "model": settings.model, "tools": list(session.tools),
                                 "permissionMode": _policy_mode(session)})
    renderer = _Renderer(fmt, verbose=verbose, partial=partial)
    session.max_budget_usd = settings.max_budget_usd
    result, signalled = asyncio.run(_run(session, prompt, settings.json_schema, renderer))
    if signalled is not None:
        name = "SIGINT" if signalled == EXIT_SIGINT else "SIGTERM"
        result = OperationResult(text=f"Aborted by {name}.", is_error=True, subtype="error_during_execution",
                                 num_turns=result.num_turns, duration_ms=result.duration_ms,
                                 duration_api_ms=result.duration_api_ms, usage=result.usage,
                                 error=f"Aborted by {name}.", aborted=True)
    if fmt in ("json", "stream-json"):
        _write_line(sys.stdout, result_object(result, session_id=session.id, model=settings.model,
                                              permission_denials=_denials(session)))
    elif not result.is_error:
        if result.text:
            sys.stdout.write(result.text if result.text.endswith("\n") else result.text + "\n")
            sys.stdout.flush()
    if result.is_error:
        print(f"flue: {result.hint or result.error}", file=sys.stderr)
    if signalled is not None:
        return signalled
    return EXIT_ERROR if result.is_error else EXIT_OK
