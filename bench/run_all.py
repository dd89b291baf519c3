"""Run every benchmark in bench/ and print one table of their result lines.

Usage: uv run python bench/run_all.py [NAME ...]   (names: print_overhead, first_call, stream, tools,
       sessions, sessions_import, tui, shell_rules, cost, checkpoints, acp_startup,
       discovery, images, direct)
Each benchmark prints its own numbers (with ratios against a baseline run in the same process);
this collects the lines that carry results. Expect several minutes on a 2-core machine.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ORDER = ["print_overhead", "first_call", "stream", "tools", "sessions", "sessions_import", "tui", "shell_rules", "cost", "checkpoints", "acp_startup", "discovery", "images", "direct"]
RESULT = re.compile(r"\d.*(ms|MB|ratio|target|tok/s|%|µs)|\b(ratio|median|p95|peak)\b", re.IGNORECASE)


def run(name: str) -> tuple[list[str], float, int]:
    began = time.perf_counter()
    proc = subprocess.run([sys.executable, str(HERE / f"{name}.py")], capture_output=True, text=True)
    lines = [line.rstrip() for line in proc.stdout.splitlines() if RESULT.search(line)]
    if proc.returncode != 0:
        lines.append(f"FAILED (exit {proc.returncode}): {proc.stderr.strip().splitlines()[-1:]}")
    return lines, time.perf_counter() - began, proc.returncode


def main(names: list[str]) -> int:
    chosen = names or ORDER
    unknown = [n for n in chosen if n not in ORDER]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)} (choose from {', '.join(ORDER)})", file=sys.stderr)
        return 2
    failed = 0
    rows: list[tuple[str, str]] = []
    for name in chosen:
        print(f"running {name} ...", file=sys.stderr, flush=True)
        lines, seconds, code = run(name)
        failed += code != 0
        rows += [(name, line.strip()) for line in lines] or [(name, "(no result lines)")]
        rows.append((name, f"(ran in {seconds:.0f} s)"))
    width = max(len(n) for n, _ in rows)
    print(f"{'benchmark':<{width}}  result")
    print(f"{'-' * width}  {'-' * 60}")
    for name, line in rows:
        print(f"{name:<{width}}  {line}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
