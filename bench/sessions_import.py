"""`flue sessions import`: 1,000 exported sessions in one call, against importing one (issue 29).

Each export is a CI-sized session (30 messages: prompts, replies with a tool call, tool results;
one task child). Times are whole `flue sessions import` processes into a fresh database; the
baseline, one file, is measured in the same run. Before, gathering 1,000 artifacts took 1,000
processes, i.e. 1,000 × the one-file time.
Run: uv run python bench/sessions_import.py [--count N]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def export(n: int) -> dict:
    messages: list[dict] = []
    for turn in range(10):
        call = f"call_{n}_{turn}"
        messages += [
            {"role": "user", "content": f"step {turn} of run {n}: fix the failing test in src/mod{turn}.py"},
            {
                "role": "assistant",
                "text": "Let me look at the file first. " * 8,
                "tool_calls": [{"id": call, "name": "read", "arguments": {"path": f"src/mod{turn}.py"}}],
                "stop_reason": "tool_calls",
                "usage": {"input": 1200, "output": 80, "cost": 0.004},
            },
            {"role": "toolResult", "tool_call_id": call, "tool_name": "read", "text": "def f():\n    return 1\n" * 40},
        ]
    for seq, message in enumerate(messages, 1):
        message["seq"] = seq
    return {
        "session": {"id": f"ses_bench{n:05d}", "name": f"ci-{n}", "cwd": f"/repos/r{n % 50}", "model": "openai/fake"},
        "messages": messages,
        "tasks": [
            {
                "session": {"id": f"ses_bench{n:05d}_t", "cwd": f"/repos/r{n % 50}"},
                "messages": [{"seq": 1, "role": "user", "content": "look around"}],
            }
        ],
    }


def flue_import(paths: list[Path], db: Path) -> float:
    began = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-m", "flue_tui", "sessions", "import", *map(str, paths), "--db", str(db)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    elapsed = time.perf_counter() - began
    assert out.returncode == 0, out.stderr
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=1000, help="exports in the batch (default 1000)")
    opts = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="flue-bench-import-"))
    try:
        batch = tmp / "artifacts"
        batch.mkdir()
        for n in range(opts.count):
            (batch / f"trial-{n:05d}.json").write_text(json.dumps(export(n)))
        one = tmp / "one.json"
        one.write_text(json.dumps(export(99999)))
        size = sum(p.stat().st_size for p in batch.iterdir()) / 1e6
        singles = [flue_import([one], tmp / f"one-{i}.db") for i in range(5)]
        batches = [flue_import([batch], tmp / f"batch-{i}.db") for i in range(2)]
        rerun = flue_import([batch], tmp / "batch-0.db")  # all already present: every one skipped
        single, whole = statistics.median(singles), min(batches)
        print(f"{opts.count} exports, {size:.0f} MB of JSON")
        print(f"import one export (one process, median of 5): {single * 1000:.0f} ms")
        print(
            f"import {opts.count} in one call: {whole:.2f} s = {whole / single:.1f}x one import "
            f"(one process per file: {opts.count * single:.0f} s, {opts.count * single / whole:.0f}x slower); "
            f"{(whole - single) / max(opts.count - 1, 1) * 1000:.1f} ms per extra session"
        )
        print(
            f"re-run over the same {opts.count}, all skipped: {rerun * 1000:.0f} ms ({rerun / single:.1f}x one import)"
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
