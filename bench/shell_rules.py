"""How long permission rules take to read a bash command (flue_tui/permissions/shell.py).

Usage: uv run python bench/shell_rules.py
Prints the one-time cost of loading tree-sitter-bash, then the median and p95 of reading a typical
agent command and a 10 KB script (each read uncached), and of a full allow/deny decision.
"""

from __future__ import annotations

import statistics
import time

TYPICAL = "cd sub && for f in $(git ls-files '*.py'); do python -m pytest -q \"$f\" 2>&1 | tail -n 5; done"
LINES = [
    'if [ -f "$f" ]; then grep -n "TODO" "$f" | sed -e "s/^/$f: /" >> /tmp/todo.txt; fi',
    "find . -name '*.py' -exec grep -l 'import os' {} + | xargs -r wc -l",
    "timeout 60 nice -n 5 bash -c 'git status --short && git diff --stat'",
    "echo \"$(date) $(whoami)\" && npm test -- --watch=false 2>&1 | tee build.log",
]


def big_script(size: int = 10_000) -> str:
    out, i = [], 0
    while sum(len(x) + 1 for x in out) < size:
        out.append(LINES[i % len(LINES)])
        i += 1
    return "\n".join(out)


def timed(fn, runs: int) -> tuple[float, float]:
    samples = []
    for _ in range(runs):
        began = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - began) * 1000)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.95) - 1]


def main() -> None:
    began = time.perf_counter()
    from flue_tui.permissions import shell
    from flue_tui.permissions.rules import matches, parse_rules

    shell._parser()
    print(f"load tree-sitter-bash: {(time.perf_counter() - began) * 1000:.1f} ms (once per process)")
    big = big_script()
    for label, text, runs in (("typical command", TYPICAL, 2000), (f"{len(big) // 1000} KB script", big, 100)):
        med, p95 = timed(lambda t=text: shell.read_command.__wrapped__(t), runs)
        print(f"read {label} ({len(text)} chars): median {med:.3f} ms, p95 {p95:.3f} ms")
    allow = parse_rules(["bash(git *)", "bash(python -m pytest *)", "bash(tail *)", "bash(cd *)"])
    deny = parse_rules(["bash(rm *)", "bash(curl *)"])

    def decide() -> None:
        shell.read_command.cache_clear()
        matches(deny, "bash", {"command": TYPICAL}, base="/w", root="/w", deny=True)
        matches(allow, "bash", {"command": TYPICAL}, base="/w", root="/w", deny=False)

    med, p95 = timed(decide, 2000)
    print(f"deny + allow decision, typical command: median {med:.3f} ms, p95 {p95:.3f} ms")


if __name__ == "__main__":
    main()
