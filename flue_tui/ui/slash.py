"""`/name args` typed where the app's commands do not run (`flue -p`, `--plain`, an ACP client), read
as the app reads it: a skill or a `.claude/commands` command runs (what Claude Code's `-p` does
with a custom command); an app
command or a typo is refused in one sentence before any request, so it never costs a turn or
becomes a session. `//text`, `/usr/bin/env …` and `!text` stay prompts."""

from __future__ import annotations

from dataclasses import dataclass

from flue_tui.context.skills import SkillSet, skill_prompt, skill_typed
from flue_tui.ui.commands import builtin_names, parse, runnables, unknown_text


@dataclass(frozen=True, slots=True)
class Expanded:
    prompt: str
    display: str | None = None  # what was typed, kept for the transcript when `prompt` is its expansion
    refusal: str | None = None  # one sentence: nothing is sent


def expand_runnable(prompt: str, skills: SkillSet) -> Expanded:
    """Only what runs: a skill or custom command is expanded, anything else stays the prompt it is
    (stream-json input, where an Agent SDK script's `/name` is Claude Code's custom command and other
    text starting with `/` is the user's to send)."""
    parsed = parse(prompt.strip())
    if parsed is None or parsed[0] == "!" or parsed[0] in builtin_names():
        return Expanded(prompt)
    skill = skills.runnable(parsed[0])
    if skill is None:
        return Expanded(prompt)
    return Expanded(skill_prompt(skill, parsed[1] or None), display=skill_typed(skill, parsed[1]))


def expand(prompt: str, skills: SkillSet, where: str = "with -p") -> Expanded:
    parsed = parse(prompt.strip())
    if parsed is None or parsed[0] == "!":
        return Expanded(prompt)
    name, arg = parsed
    if name in builtin_names():  # the app's order: its commands before skills and custom commands
        hides = " (it hides the custom command of that name)" if skills.runnable(name) is not None else ""
        return Expanded(
            prompt, refusal=f"/{name} is a command of the interactive app{hides}; it is not available {where}."
        )
    skill = skills.runnable(name)  # a skill, else a .claude/commands command
    if skill is None:
        names = [n for n, _ in runnables(skills)]
        otherwise = (
            f"Skills you can run: {', '.join('/' + n for n in names)}." if names else "There are no skills here."
        )
        return Expanded(prompt, refusal=unknown_text(name, names, otherwise, commands=False))  # only what runs here
    return Expanded(skill_prompt(skill, arg or None), display=skill_typed(skill, arg))
