"""Hooks in Claude Code's contract: commands the user configured that run at points of a session
(before and after a tool call, ...). config.py reads them from Claude Code's settings files, flue's
config.toml and `--settings`; run.py runs one command; names.py translates tool names and inputs to
Claude Code's; events.py decides what a hook's answer does; lifecycle.py runs the session's own
events (SessionStart/End, PreCompact, SubagentStop, Notification). Only the permission policy and
the runtime call into here."""
