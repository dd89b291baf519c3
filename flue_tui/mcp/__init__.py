"""MCP servers (Model Context Protocol) through the official `mcp` SDK: config.py reads them,
flags.py what `--mcp-config` gives, connection.py runs one, sdkserver.py an Agent SDK's in-process
one, manager.py offers their tools to sessions, tools.py adapts one tool, cli.py is `flue mcp`,
commands.py `/mcp`, doctor.py `flue doctor`'s lines. Importing this package imports no SDK code
(`flue --help` stays fast)."""
