"""Shared fixtures: every test gets its own FLUE_HOME and a clean provider environment."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.inprocess import CLIResult, call_main

pytest_plugins = ["tests.fakellm.fixture"]

_PROVIDER_VARS = (
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "GEMINI_API_KEY",
    "OPENROUTER_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_API_BASE",
    "FLUE_MODEL",
)


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("flue_home")
    monkeypatch.setenv("FLUE_HOME", str(home))
    # Claude Code's own directory (hooks, settings): never the developer's ~/.claude.
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / "claude"))
    for var in _PROVIDER_VARS:
        monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture
def flue_env(fakellm, tmp_path: Path) -> dict[str, str]:
    """Environment for running the real `flue` CLI against the scripted server."""
    env = dict(os.environ)
    env.update(
        {
            "OPENAI_BASE_URL": fakellm.base_url,
            "OPENAI_API_KEY": "sk-test",
            "FLUE_RETRY_BASE_MS": "5",
            "PYTHONUNBUFFERED": "1",
        }
    )
    return env


@pytest.fixture
def run_flue(flue_env: dict[str, str], tmp_path: Path):
    """Run `python -m flue_tui ARGS` in a subprocess (the real CLI, real litellm) and capture it.
    Only for what needs a process of its own (signals, exit codes of a killed run, what a fresh
    interpreter imports, the process's environment); everything else uses `flue_main`."""

    # Generous: a loaded 2-core machine can take tens of seconds to import litellm in a new process.
    def run(
        *args: str,
        stdin: str | None = None,
        cwd: Path | None = None,
        timeout: float = 180,
        env: dict[str, str] | None = None,
    ) -> CLIResult:
        proc = subprocess.run(
            [sys.executable, "-m", "flue_tui", *args],
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            text=True,
            cwd=cwd or tmp_path,
            env=env or flue_env,
            timeout=timeout,
        )
        return CLIResult(proc.returncode, proc.stdout, proc.stderr)

    return run


@pytest.fixture
def flue_main(flue_env: dict[str, str], tmp_path: Path):
    """`flue ARGS` in this process (tests/inprocess.py): the same call as `run_flue`, without
    paying a new interpreter and the litellm import on every run."""

    def run(
        *args: str, stdin: str | None = None, cwd: Path | None = None, env: dict[str, str] | None = None
    ) -> CLIResult:
        return call_main(list(args), stdin=stdin, cwd=cwd or tmp_path, env=env or flue_env)

    return run
