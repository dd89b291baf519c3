"""The files flue reads for itself (AGENTS.md, CLAUDE.md, SKILL.md, agents, .mcp.json, config) go
through one bounded open: beneath the workspace under `--sandbox workspace`, regular files only,
never more than core.files.MAX_OWN_READ bytes. Names that are not UTF-8 never crash a run.

Before: under `--sandbox workspace` each of those files, a symlink to a file outside, put the
outside text into the system prompt (the file tools refused the same paths); a `.mcp.json` or a
trusted `.flue/config.toml` linked to /dev/zero read until memory ran out (MemoryError traceback);
one file name that is not UTF-8 at the top of the workspace crashed `flue -p` (no JSON result).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from flue_tui.config import trust
from flue_tui.core.files import MAX_OWN_READ
from tests.fakellm import Turn

SECRET = "OUTSIDE-SECRET-7f3a"


def _json_run(flue_main, repo: Path, *extra: str):
    return flue_main("-p", "hi", "--model", "openai/fake", "--output-format", "json", *extra, cwd=repo)


def _system(fakellm) -> str:
    first = fakellm.requests[0]["messages"][0]
    assert first["role"] == "system"
    return first["content"] if isinstance(first["content"], str) else json.dumps(first["content"])


def _outside(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / "outside" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _linked_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / ".agents" / "skills" / "leak").mkdir(parents=True)
    (repo / ".agents" / "agents").mkdir(parents=True)
    os.symlink(_outside(tmp_path, "agents.md", f"AGENTS {SECRET}"), repo / "AGENTS.md")
    os.symlink(_outside(tmp_path, "claude.md", f"CLAUDE {SECRET}"), repo / "CLAUDE.md")
    skill = f"---\nname: leak\ndescription: skill {SECRET}\n---\nbody {SECRET}\n"
    os.symlink(_outside(tmp_path, "SKILL.md", skill), repo / ".agents" / "skills" / "leak" / "SKILL.md")
    # A whole skill directory linked out is the same escape one level up.
    _outside(tmp_path, "skilldir/SKILL.md", f"---\nname: dirleak\ndescription: dir {SECRET}\n---\nx\n")
    os.symlink(tmp_path / "outside" / "skilldir", repo / ".agents" / "skills" / "dirleak")
    agent = f"---\nname: spy\ndescription: agent {SECRET}\n---\nbody {SECRET}\n"
    os.symlink(_outside(tmp_path, "spy.md", agent), repo / ".agents" / "agents" / "spy.md")
    return repo


def test_workspace_sandbox_keeps_linked_out_context_files_out_of_the_prompt(fakellm, flue_main, tmp_path):
    repo = _linked_repo(tmp_path)
    fakellm.script(Turn(text="ok"))
    out = _json_run(flue_main, repo, "--sandbox", "workspace")
    assert out.code == 0, out.stderr
    assert SECRET not in _system(fakellm)
    # Each refusal is one line on stderr naming the file, never a traceback.
    assert "Traceback" not in out.stderr
    for name in ("AGENTS.md", "CLAUDE.md", "spy.md", "leak", "dirleak"):
        assert name in out.stderr, out.stderr
    assert "outside the workspace" in out.stderr


def test_local_sandbox_still_follows_the_same_links(fakellm, flue_main, tmp_path):
    """A monorepo's AGENTS.md linked to a shared one is ordinary use of the default sandbox."""
    repo = _linked_repo(tmp_path)
    fakellm.script(Turn(text="ok"))
    out = _json_run(flue_main, repo)
    assert out.code == 0, out.stderr
    system = _system(fakellm)
    assert f"AGENTS {SECRET}" in system and f"CLAUDE {SECRET}" in system and f"skill {SECRET}" in system


@pytest.mark.parametrize("sandbox", ["local", "workspace"])
def test_mcp_json_linked_to_dev_zero_is_one_sentence(fakellm, flue_main, tmp_path, sandbox):
    repo = tmp_path / "repo"
    repo.mkdir()
    os.symlink("/dev/zero", repo / ".mcp.json")
    fakellm.script(Turn(text="ok"))
    out = _json_run(flue_main, repo, "--sandbox", sandbox)
    assert out.code == 0, out.stderr
    assert "MemoryError" not in out.stderr and "Traceback" not in out.stderr
    assert json.loads(out.stdout)["result"] == "ok"
    assert any(ln.startswith("Ignored .mcp.json:") for ln in out.stderr.splitlines()), out.stderr


def test_trusted_config_linked_to_dev_zero_is_one_sentence(fakellm, flue_main, tmp_path):
    repo = tmp_path / "repo"
    (repo / ".flue").mkdir(parents=True)
    (repo / ".flue" / "config.toml").write_text('[permissions]\nallow = ["read"]\n')
    trust.grant(repo, {".flue/config.toml": None})
    (repo / ".flue" / "config.toml").unlink()
    os.symlink("/dev/zero", repo / ".flue" / "config.toml")
    fakellm.script([Turn(text="ok")])
    out = _json_run(flue_main, repo, "--trust-project")
    assert out.code == 0, out.stderr  # an optional file flue cannot read is skipped, never a stop
    assert "MemoryError" not in out.stderr and "Traceback" not in out.stderr
    skipped = f"Skipped {repo}/.flue/config.toml: flue cannot read it (a character device, not a regular file)."
    assert [line for line in out.stderr.splitlines() if "config.toml" in line] == [skipped], out.stderr


@pytest.mark.parametrize("name", ["AGENTS.md", ".mcp.json", ".flue/config.toml"])
def test_huge_own_file_is_not_read_whole(fakellm, flue_main, tmp_path, name):
    repo = tmp_path / "repo"
    path = repo / name
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as fh:  # sparse: costs no disk, would cost memory if read whole
        fh.truncate(64 * MAX_OWN_READ)
    fakellm.script(Turn(text="ok"))
    out = _json_run(flue_main, repo, "--sandbox", "workspace")
    assert "MemoryError" not in out.stderr and "Traceback" not in out.stderr
    assert f"larger than {MAX_OWN_READ // (1024 * 1024)} MiB" in out.stderr, out.stderr


def test_fifo_named_mcp_json_does_not_hang(fakellm, flue_main, tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    os.mkfifo(repo / ".mcp.json")
    fakellm.script(Turn(text="ok"))
    out = _json_run(flue_main, repo)
    assert out.code == 0, out.stderr
    assert any(ln.startswith("Ignored .mcp.json:") for ln in out.stderr.splitlines()), out.stderr


def test_non_utf8_name_at_the_top_of_the_workspace(fakellm, flue_main, tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    bad = os.fsencode(str(repo)) + b"/caf\xe9.txt"
    with open(bad, "wb") as fh:
        fh.write(b"x")
    fakellm.script(Turn(text="ok"))
    out = _json_run(flue_main, repo)
    assert out.code == 0, out.stderr
    assert json.loads(out.stdout)["result"] == "ok"
    assert "caf\ufffd.txt" in _system(fakellm)  # as Node's readdir shows it


def test_mcp_add_to_a_project_json_linked_to_dev_zero(flue_main, tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    os.symlink("/dev/zero", repo / ".mcp.json")
    out = flue_main("mcp", "add", "--scope", "project", "s", "--", "true", cwd=repo)
    assert out.code != 0 and "Traceback" not in out.stderr and "MemoryError" not in out.stderr
    assert "a character device, not a regular file" in out.stderr, out.stderr


def test_non_utf8_skill_and_agent_names_are_skipped_with_a_line(fakellm, flue_main, tmp_path):
    repo = tmp_path / "repo"
    skills, agents = repo / ".agents" / "skills", repo / ".agents" / "agents"
    skills.mkdir(parents=True)
    agents.mkdir(parents=True)
    skill_dir = os.fsencode(str(skills)) + b"/sk\xe9"
    os.mkdir(skill_dir)
    Path(os.fsdecode(skill_dir + b"/SKILL.md")).write_text("---\nname: ske\ndescription: d\n---\nbody\n")
    Path(os.fsdecode(os.fsencode(str(agents)) + b"/a\xe9.md")).write_text("---\nname: ag\ndescription: d\n---\nb\n")
    fakellm.script(Turn(text="ok"))
    out = _json_run(flue_main, repo)
    assert out.code == 0, out.stderr
    assert json.loads(out.stdout)["result"] == "ok"
    assert "Skipping skill directory 'sk\ufffd'" in out.stderr and "Skipping agent file 'a\ufffd.md'" in out.stderr


def test_non_utf8_working_directory_is_one_sentence(fakellm, flue_main, tmp_path):
    weird = Path(os.fsdecode(os.fsencode(str(tmp_path)) + b"/w\xe9"))
    weird.mkdir()
    out = _json_run(flue_main, weird)
    assert out.code != 0 and "Traceback" not in out.stderr
    assert "is not UTF-8 text (byte 0xe9" in out.stderr, out.stderr
    assert fakellm.requests == []  # nothing mangled was sent
