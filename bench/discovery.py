"""Start-up discovery with Claude Code's folder: Runtime.discover (skills, commands, agents,
CLAUDE.md, the listing) on a workspace without `.claude/`, and on one whose `.claude/` holds the
copied test folder plus 200 command files in 10 namespaces and 20 agents. Ratios against the bare
workspace, measured in the same run; discovery runs once per session start and per task child.

Usage: uv run python bench/discovery.py
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from flue_tui.config.settings import Settings  # noqa: E402
from flue_tui.runtime.wiring import Runtime  # noqa: E402

RUNS = 30


def _time(runtime: Runtime, cwd: Path, commands: bool = True) -> float:
    samples = []
    for _ in range(RUNS):
        began = time.perf_counter()
        runtime.discover(str(cwd), "", commands=commands)
        samples.append(time.perf_counter() - began)
    return statistics.median(samples)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        os.environ["FLUE_HOME"] = str(base / "home")
        os.environ["CLAUDE_CONFIG_DIR"] = str(base / "home" / "claude")
        os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
        bare, full = base / "bare", base / "full"
        bare.mkdir()
        shutil.copytree(ROOT / "tests" / "context" / "claude_folder" / ".claude", full / ".claude")
        for n in range(200):
            path = full / ".claude" / "commands" / f"ns{n % 10}" / f"cmd{n}.md"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"---\ndescription: Command {n}\nallowed-tools: Bash(git *), Read\n---\nDo $1 for {n}.\n")
        for n in range(20):
            body = f"---\nname: agent-{n}\ndescription: Agent {n}.\ntools: Read, Grep\n---\nYou are agent {n}.\n"
            (full / ".claude" / "agents" / f"agent-{n}.md").write_text(body)
        typical = base / "typical"  # the copied folder alone: 2 commands, 1 agent
        shutil.copytree(ROOT / "tests" / "context" / "claude_folder" / ".claude", typical / ".claude")
        runtime = Runtime(Settings(model="openai/fake", cwd=str(bare)))
        baseline = _time(runtime, bare)
        rows = [
            ("copied .claude/ (2 commands, 1 agent)", _time(runtime, typical)),
            ("202 commands and 21 agents, a session start", _time(runtime, full)),
            ("the same, a task child (commands skipped)", _time(runtime, full, commands=False)),
        ]
        print(f"discover, no .claude/: median {baseline * 1000:.2f} ms (baseline)")
        for label, took in rows:
            print(f"discover, {label}: median {took * 1000:.2f} ms (ratio {took / baseline:.2f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
