"""Real MCP servers for the tests: tests/mcp/server.py over stdio (spawned by flue) and over
streamable HTTP on 127.0.0.1 (spawned here, stopped at teardown, and by itself after 120 s)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

SERVER = str(Path(__file__).with_name("server.py"))


def stdio_entry(mode: str = "stdio", **extra: object) -> dict[str, object]:
    return {"command": sys.executable, "args": [SERVER, mode], **extra}


def mcp_json(**servers: dict[str, object]) -> str:
    return json.dumps({"mcpServers": servers})


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def http_server() -> Iterator[str]:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, SERVER, "http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60  # generous: a loaded machine imports the SDK slowly
    try:
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the test MCP server did not start") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.kill()
        proc.wait(10)
