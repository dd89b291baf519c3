"""Print mode's closing words: the result object (Claude Code's, with the mode in effect and the
`permission_denials`) and, in the text format, a note on stderr naming the calls that needed an
approval nobody could give and the flags that allow them (the model was told too, in the refusal)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flue_tui.core.toolcall import call_summary, one_line

if TYPE_CHECKING:
    from flue_tui.agent.session import OperationResult, Session
    from flue_tui.permissions.policy import Denial

SHOWN = 3  # calls named in the note; the rest are counted


def result_object(
    result: OperationResult,
    *,
    session_id: str,
    model: str | None,
    permission_denials: list[dict[str, Any]] | None = None,
    session: Session | None = None,
    window: bool = True,
) -> dict[str, Any]:
    """Claude Code's `result` message (headless/claude/result.py), the object CI wrappers already parse.
    `window=False` after a signal: the model's window comes from litellm, and a run stopped during
    start-up would wait seconds for its import to finish just to fill one number in."""
    from flue_tui.headless.claude.result import result_message
    from flue_tui.headless.claude.run import claude_mode

    return result_message(
        result,
        session_id=session_id,
        model=model,
        permission_denials=permission_denials,
        messages=session.messages if session is not None else None,
        context_window=_window(session) if window else None,
        permission_mode=claude_mode(session) if session is not None else None,
    )


def _window(session: Session | None) -> int | None:
    try:
        return session.context_window() if session is not None else None
    except Exception:  # an unknown model's window is not worth failing the result line for
        return None


def denial_entries(session: Session) -> list[dict[str, Any]]:
    """`permission_denials`: every call the policy or the sandbox refused, sub-agents' included."""
    from flue_tui.permissions.policy import policy_of

    policy = policy_of(session)
    return [d.to_dict() for d in policy.denials] if policy is not None else []


def policy_mode(session: Session) -> str | None:
    """flue's name of the mode in effect (`--output-format events`), None without a policy."""
    from flue_tui.permissions.policy import policy_of

    policy = policy_of(session)
    return policy.mode if policy is not None else None


def unasked_note(session: Session) -> list[str]:
    """At most two lines for stderr: the calls refused because print mode cannot ask, and how to
    allow them next time. Deny rules, plan mode and the sandbox refuse by the user's own choice:
    they are in `permission_denials`, not here."""
    from flue_tui.permissions.policy import policy_of

    policy = policy_of(session)
    refused = [d for d in policy.denials if d.unasked] if policy is not None else []
    if not refused:
        return []
    calls = ", ".join(_call(d, session.cwd) for d in refused[:SHOWN])
    if len(refused) > SHOWN:
        calls += f" and {len(refused) - SHOWN} more"
    many = len(refused) > 1
    count = f"{len(refused)} calls that need" if many else "1 call that needs"
    first = f"flue: refused {count} approval (print mode cannot ask): {calls}."
    rules = ",".join(dict.fromkeys(r for d in refused for r in d.rules))
    # A call no rule can allow (an unclear command, a change inside .git) yields to yolo alone.
    if rules and all(d.rules for d in refused):
        how = f'--allowedTools "{rules}" or --permission-mode yolo'
    else:
        how = "--permission-mode yolo"
    return [first, f"flue: to allow {'them' if many else 'it'}, run again with {how}."]


def _call(denial: Denial, cwd: str) -> str:
    about = one_line(call_summary(denial.tool_name, denial.tool_input, cwd), 60)
    return f"{denial.tool_name} {about}".rstrip()
