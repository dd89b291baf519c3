"""MCP servers (Model Context Protocol) through the official `mcp` SDK: config.py reads them,
connection.py runs one, manager.py offers their tools to sessions, tools.py adapts one tool,
cli.py is `flue mcp`. Importing this package imports no SDK code (`flue --help` stays fast)."""
