"""Driving the real `flue` script through the Claude Agent SDK (PyPI claude-agent-sdk): the
options every test starts from, and a bounded run. Import after `pytest.importorskip`."""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import ClaudeAgentOptions

FLUE = shutil.which("flue", path=str(Path(sys.executable).parent))
needs_flue = pytest.mark.skipif(FLUE is None, reason="the flue script is not installed in this venv")
TIMEOUT = 240  # each run spawns flue, which imports litellm: seconds of CPU on a loaded machine


def options(flue_env: dict[str, str], cwd: Path, **kw: Any) -> ClaudeAgentOptions:
    env = {
        k: flue_env[k]
        for k in (
            "OPENAI_BASE_URL",
            "OPENAI_API_KEY",
            "FLUE_RETRY_BASE_MS",
            "FLUE_HOME",
            "ANTHROPIC_API_BASE",
            "ANTHROPIC_API_KEY",
        )
        if k in flue_env
    }
    kw.setdefault("model", "openai/fake")
    return ClaudeAgentOptions(cli_path=FLUE, cwd=str(cwd), env=env, **kw)


async def collect(messages: Any) -> list[Any]:
    return [m async for m in messages]


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, TIMEOUT))
