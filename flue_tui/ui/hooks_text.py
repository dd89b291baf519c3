"""/hooks: every hook flue runs, with its event, matcher, command and origin (the file or flag it
came from), and the project's hooks that wait for trust. What is listed is what the running session
holds (hooks/config.load built it); with no session yet, the files are read the same way.

Commands and matchers come from settings files, a cloned repository's among them: shown
terminal-safe, each on its own line so a narrow terminal wraps the command, not the table.
"""

from __future__ import annotations

import os
from typing import Any

from flue_tui.config.errors import ConfigError
from flue_tui.ui.termsafe import terminal_safe


def _home(path: str) -> str:
    home = os.path.expanduser("~")
    return "~" + path[len(home) :] if home != "/" and path.startswith(home + os.sep) else path


def _line(hook: Any) -> list[str]:
    matcher = hook.matcher if hook.matcher not in ("", "*") else "*"
    timeout = f"{hook.timeout:g}s"
    return [
        f"  {hook.event} [{terminal_safe(matcher)}]  {terminal_safe(hook.command)}",
        f"      from {terminal_safe(_home(hook.origin))} · timeout {timeout}",
    ]


def setup_for(handle: Any) -> Any:
    """The running session's hooks, else what the files hold now. Blocking (may read them)."""
    from flue_tui.hooks.config import load

    started = getattr(handle, "started", None)
    hooks = getattr(started, "hooks", None) if started is not None else None
    if hooks is not None:
        return hooks.setup
    try:
        return load(handle.settings)
    except ConfigError as exc:
        return str(exc)


def describe(handle: Any) -> str:
    """Blocking: the text of /hooks."""
    from flue_tui.hooks.config import EVENTS

    setup = setup_for(handle)
    if isinstance(setup, str):
        return f"Hooks cannot be read: {setup}"
    order = {e: i for i, e in enumerate(EVENTS)}
    hooks = sorted(setup.hooks, key=lambda h: order.get(h.event, len(order)))
    lines = ["Hooks (event [matcher]  command):" if hooks else "No hooks."]
    for hook in hooks:
        lines += _line(hook)
    if setup.held:
        files = ", ".join(setup.held_files)
        lines.append(f"Not run because the project is not trusted ({files}; trust it with flue trust):")
        for hook in setup.held:
            lines += _line(hook)
    lines += [terminal_safe(n) for n in setup.notices if not n.startswith("Not running the hooks of")]
    if not hooks and not setup.held:
        lines.append(
            "Add them to ~/.claude/settings.json, [hooks] in flue's config.toml, --settings, or a trusted "
            "project's .claude/settings.json (docs/hooks.md)."
        )
    return "\n".join(lines)
