"""What the model is told about the workspace. Reads files; imports nothing above config.

agents_md.py    AGENTS.md / CLAUDE.md and the top-level listing
skills.py       skill discovery (workspace, ~/.config/flue/skills, packaged); frontmatter.py parses SKILL.md
subagents.py    the delegation roster for `task`
commands.py     Claude Code's custom slash commands (`.claude/commands`): names, `$ARGUMENTS`, trust
"""
