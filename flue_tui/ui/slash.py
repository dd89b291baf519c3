"""`/name args` typed where the app's commands do not run (`flue -p`, `--plain`, an ACP client), read
as the app reads it: a skill runs (what Claude Code's `-p` does with a custom command); an app
command or a typo is refused in one sentence before any request, so it never costs a turn or
becomes a session. `//text`, `/usr/bin/env …` and `!text` stay prompts."""

from __future__ import annotations

from dataclasses import dataclass

from flue_tui.context.skills import SkillSet, skill_prompt, skill_typed
from flue_tui.ui.commands import COMMANDS, parse, unknown_text


@dataclass(frozen=True, slots=True)
class Expanded:
    prompt: str
    display: str | None = None  # what was typed, kept for the transcript when `prompt` is its expansion
    refusal: str | None = None  # one sentence: nothing is sent


def expand(prompt: str, skills: SkillSet, where: str = "with -p") -> Expanded:
    parsed = parse(prompt.strip())
    if parsed is None or parsed[0] == "!":
        return Expanded(prompt)
    name, arg = parsed
    if name in {c.name for c in COMMANDS} | {"exit"}:  # the app's order: its commands before skills
        return Expanded(prompt, refusal=f"/{name} is a command of the interactive app; it is not available {where}.")
    skill = skills.get(name)
    if skill is None:
        names = [s.name for s in skills.skills]
        otherwise = (
            f"Skills you can run: {', '.join('/' + n for n in names)}." if names else "There are no skills here."
        )
        return Expanded(prompt, refusal=unknown_text(name, names, otherwise, commands=False))  # only what runs here
    return Expanded(skill_prompt(skill, arg or None), display=skill_typed(skill, arg))
