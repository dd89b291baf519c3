"""flue-tui: a terminal coding agent (Flue's local() session in Python). Its packages, low layer to high:

core/         values every other package shares: messages, events, ids, files, images
config/       Settings and where they come from (config files, trust, paths)
context/      what the model is told of the workspace: AGENTS.md, skills, subagents, commands
sandbox/      where tools read, write and run commands (local, workspace)
tools/        the tools the model calls (Flue's six, task, skills, todo, background bash)
mcp/          MCP servers through the official `mcp` SDK
hooks/        the user's hooks in Claude Code's contract
model/        the provider layer: the direct HTTP path and litellm
permissions/  permission modes, rules, reading bash, the approval seam
store/        the session database (SQLite)
checkpoints/  the workspace's files saved before each turn, so a turn can be undone
agent/        Session, the loop, compaction
runtime/      the one wiring point and SessionHandle
ui/           presentation every front end shares
headless/     `flue -p` (Claude Code's headless protocol too) and line mode
inline/       `flue --inline` in the terminal's scrollback (prompt-toolkit)
tui/          the full-screen app (Textual)
acp/          `flue --acp`: the Agent Client Protocol for editors
cli/          argv and the subcommands
"""

__version__ = "0.1.0"
