"""File checkpoint cost on a 10,000-file tree: first snapshot, unchanged, 100 files changed, restore.

Usage: uv run python bench/checkpoints.py [--files N]
Baseline, same run: `git status --porcelain` in an ordinary repository of the same tree (what any
git user pays to ask "what changed?"). Target (issue 18): an unchanged tree under 100 ms.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from flue_tui.checkpoints import FileCheckpoints


def make_tree(root: Path, files: int) -> None:
    per_dir = 100
    for n in range(files):
        d = root / f"pkg{n // per_dir:03d}"
        d.mkdir(exist_ok=True)
        (d / f"mod{n % per_dir:03d}.py").write_text(f"VALUE = {n}\n" + "x = 1\n" * 20)
    (root / ".gitignore").write_text("*.pyc\nbuild/\n")


def timed(fn, rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        began = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - began) * 1000)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        ws.mkdir()
        make_tree(ws, args.files)
        subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
        subprocess.run(["git", "add", "-A"], cwd=ws, check=True)
        baseline = timed(lambda: subprocess.run(["git", "status", "--porcelain"], cwd=ws, check=True,
                                                capture_output=True), args.rounds)
        cps = FileCheckpoints(ws, Path(tmp) / "home")
        began = time.perf_counter()
        first = cps.snapshot("bench/0")
        first_ms = (time.perf_counter() - began) * 1000
        # Files written in the same second as the index are "racily clean" and re-read by git until
        # an index written later records them; a real tree was written long before flue started.
        time.sleep(1.1)
        cps.snapshot("bench/settle")
        unchanged = timed(lambda: cps.snapshot("bench/u"), args.rounds)
        counter = iter(range(10**6))

        samples = []
        for _ in range(args.rounds):
            n = next(counter)
            for i in range(100):
                (ws / f"pkg{i:03d}" / "mod000.py").write_text(f"round {n}\n")
            began = time.perf_counter()
            cps.snapshot(f"bench/c{n}")
            samples.append((time.perf_counter() - began) * 1000)
        changed = statistics.median(samples)
        began = time.perf_counter()
        restored = cps.restore(first.commit)
        restore_ms = (time.perf_counter() - began) * 1000
        print(f"files: {args.files}; baseline git status: {baseline:.1f} ms (median of {args.rounds})")
        print(f"first snapshot: {first_ms:.0f} ms")
        print(f"unchanged snapshot: {unchanged:.1f} ms median, ratio {unchanged / baseline:.2f} vs git status "
              f"(target < 100 ms)")
        print(f"100 files changed: {changed:.1f} ms median , ratio {changed / baseline:.2f}")
        print(f"restore of 100 files: {restore_ms:.1f} ms ({len(restored.written)} written)")
        print(f"store size: {cps.size_bytes() / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
