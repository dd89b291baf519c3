"""How flue is found and started as an ACP agent: `flue acp` is a mode, never a prompt; the
wheel's `flue-tui` script and the registry entry (agent.json) name the same program."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from flue_tui import __version__

ROOT = Path(__file__).resolve().parents[2]


def test_the_registry_entry_and_the_scripts_agree():
    entry = json.loads((ROOT / "agent.json").read_text())
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert entry["version"] == __version__ == project["version"]
    assert entry["distribution"]["uvx"] == {"package": project["name"], "args": ["--acp"]}
    assert project["scripts"]["flue-tui"] == project["scripts"]["flue"]
    assert entry["license"] == project["license"] and (ROOT / "LICENSE").exists()
    assert project["urls"]["Homepage"] == entry["repository"]


def test_acp_as_the_first_word_is_the_mode(flue_main):
    refused = flue_main("acp", "write a poem")  # a mode never takes a prompt
    assert refused.code == 2 and "--acp serves a client on stdio" in refused.stderr
    assert "flue acp" in flue_main("--help").stdout
