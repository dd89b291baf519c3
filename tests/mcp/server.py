"""A real MCP server for the tests, written with the SDK's MCPServer (v1's FastMCP).

python tests/mcp/server.py stdio            serve on stdin/stdout (ends when stdin closes)
python tests/mcp/server.py http PORT        streamable HTTP on 127.0.0.1:PORT (ends after 120 s)
python tests/mcp/server.py crash-at-start   print to stderr and exit 3 before speaking MCP
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ImageContent, ResourceLink, TextContent, ToolAnnotations

server = MCPServer("flue-test")


@server.tool(description="Echo the text back.")
def echo(text: str) -> str:
    return f"echo: {text}"


@server.tool(description="Add two numbers.", annotations=ToolAnnotations(read_only_hint=True))
def add(a: int, b: int) -> str:
    return str(a + b)


@server.tool(description="The names of the variables in the server's environment.")
def env_names() -> str:
    return json.dumps(sorted(os.environ))


@server.tool(description="Sleep, then answer.")
async def slow(seconds: float) -> str:
    await asyncio.sleep(seconds)
    return "slept"


@server.tool(description="A very long answer.")
def huge(lines: int) -> str:
    return "\n".join(f"line {i} " + "x" * 60 for i in range(lines))


@server.tool(description="Exit the server process at once.")
def crash() -> str:
    print("crash: about to die", file=sys.stderr, flush=True)
    os._exit(7)


@server.tool(description="Fail with an error.")
def broken() -> str:
    raise ValueError("the server refused")


@server.tool(description="An image, a link and text.")
def picture() -> list:
    return [
        TextContent(type="text", text="here it is"),
        ImageContent(type="image", data="aGVsbG8=", mime_type="image/png"),
        ResourceLink(type="resource_link", name="readme", uri="file:///readme.md", mime_type="text/markdown"),
    ]


@server.tool(name="weird name.with/dots", description="A tool whose name needs sanitising.")
def weird() -> str:
    return "weird ok"


@server.tool(description="Add a tool named `grown` and tell the client the list changed.")
async def grow(ctx: Context) -> str:
    server.add_tool(lambda: "grown ok", name="grown", description="Added at run time.")
    await ctx.session.send_tool_list_changed()
    return "grew"


def main() -> None:
    mode = sys.argv[1]
    if mode == "crash-at-start":
        print("fatal: cannot open the database /nonexistent", file=sys.stderr, flush=True)
        sys.exit(3)
    if mode == "stdio":
        server.run("stdio")
        return
    port = int(sys.argv[2])
    threading.Timer(120, lambda: os._exit(0)).start()  # never outlives a test run
    server.run("streamable-http", host="127.0.0.1", port=port)


if __name__ == "__main__":
    main()
