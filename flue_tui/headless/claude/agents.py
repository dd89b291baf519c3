"""`agents={…}` of the Agent SDK, carried in its initialize request as Claude Code's
AgentDefinition: `{name: {"description", "prompt", "tools"?, "model"?}}`. Each becomes a task
agent beside those of `.agents/agents` and `.claude/agents` (a name already declared there keeps
its file's agent, as agent files keep the first of a name).

Claude Code's model aliases (sonnet, opus, haiku, inherit) name no flue model: the agent runs on
its caller's model, said in one line. Anything else is a model id, as in an agent file's `model:`.
"""

from __future__ import annotations

from typing import Any

from flue_tui.context.frontmatter import SkillFormatError, check_name
from flue_tui.context.subagents import Subagent

ALIASES = ("sonnet", "opus", "haiku", "inherit")
MAX_AGENTS = 100  # a script defines a handful; a flood of them is refused, never put in the prompt


def sdk_agents(table: Any) -> tuple[list[Subagent], list[str]]:
    """The agents, and one line for each alias that fell back to the caller's model. Raises
    ValueError with one sentence for a bad shape (the initialize request's error answer)."""
    if table is None:
        return [], []
    if not isinstance(table, dict):
        raise ValueError("initialize: agents must be an object of name: definition")
    if len(table) > MAX_AGENTS:
        raise ValueError(f"initialize: {len(table)} agents is more than flue takes ({MAX_AGENTS})")
    out: list[Subagent] = []
    notes: list[str] = []
    for name, spec in table.items():
        where = f"initialize: agents.{str(name)[:64]}"
        if not isinstance(name, str) or not isinstance(spec, dict):
            raise ValueError(f"{where} must be an object with description and prompt")
        try:
            check_name(name, where)
        except SkillFormatError as exc:
            raise ValueError(str(exc).removeprefix("[flue] ")) from None
        description, prompt = spec.get("description"), spec.get("prompt")
        if not isinstance(description, str) or not description.strip() or not isinstance(prompt, str):
            raise ValueError(f"{where} needs a description and a prompt (strings)")
        tools = spec.get("tools")
        if tools is not None and (not isinstance(tools, list) or not all(isinstance(t, str) for t in tools)):
            raise ValueError(f"{where}.tools must be a list of tool names")
        model = spec.get("model")
        if model is not None and (not isinstance(model, str) or not model.strip()):
            raise ValueError(f"{where}.model must be a model id")
        if model in ALIASES:
            if model != "inherit":
                notes.append(f'The agent "{name}" asks for Claude Code\'s "{model}"; it runs on its caller\'s model.')
            model = None
        out.append(
            Subagent(
                name=name,
                description=description.strip(),
                instructions=prompt,
                model=model,
                tools=tuple(tools) if tools is not None else None,
                path="the Agent SDK",
            )
        )
    return out, notes
