"""Session store benchmark: 1,000 sessions plus one session of 20,000 messages (~100 MB of text).

Measures `flue sessions list` (the whole CLI process), rebuilding the model context of the big
session (and its peak memory), the TUI's first screenful, and FTS search over everything.
Run: uv run python bench/sessions.py [--keep DIR]. Generated under a temp dir and removed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from flue_tui.store.sessions import SessionStore  # noqa: E402
from flue_tui.store.values import encode, now_iso  # noqa: E402

BIG = "ses_BIGSESSION00000000000000"
RESUME = """
import json, resource, sys, time, tracemalloc
sys.path.insert(0, {root!r})
from flue_tui.store.sessions import SessionStore
from flue_tui.core.messages import to_wire
store = SessionStore.open({db!r})
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
c0 = time.process_time(); t0 = time.perf_counter(); ctx = store.load_context({sid!r}); t1 = time.perf_counter()
cpu = time.process_time() - c0
wire = to_wire("system", ctx); t2 = time.perf_counter()
tail = store.tail({sid!r}, 50); t3 = time.perf_counter()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
chars = sum(len(m.get("content") or "") for m in wire)
del ctx, wire
tracemalloc.start(); store.load_context({sid!r}); traced = tracemalloc.get_traced_memory()[1]
print(json.dumps(dict(load=t1 - t0, cpu=cpu, wire=t2 - t1, tail=t3 - t2, rss_base_kb=base, rss_peak_kb=peak,
                      traced=traced, chars=chars)))
"""


def words(rng: random.Random, vocab: list[str], n: int) -> str:
    return " ".join(rng.choices(vocab, k=n))


def message(rng: random.Random, vocab: list[str], i: int) -> dict:
    kind = i % 3
    if kind == 0:
        return {"role": "user", "content": words(rng, vocab, rng.randint(10, 60))}
    if kind == 1:
        call = {"id": f"call_{i}", "name": "read", "arguments": {"path": f"src/mod{i}.py"}, "raw_arguments": ""}
        return {"role": "assistant", "text": words(rng, vocab, rng.randint(100, 300)), "thinking": "",
                "tool_calls": [call], "stop_reason": "tool_calls", "error": None, "model": "openai/fake",
                "usage": {"input": 1000, "output": 200, "cache_read": 0, "cache_write": 0, "cost": 0.001}}
    # tool results carry the bulk, as file contents do in real sessions (~13 KB)
    return {"role": "toolResult", "tool_call_id": f"call_{i - 1}", "tool_name": "read",
            "text": words(rng, vocab, rng.randint(1500, 2700)), "is_error": False, "details": {}}


def generate(db: Path, cwd: str) -> None:
    rng = random.Random(7)
    vocab = ["".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(3, 10))) for _ in range(20000)]
    vocab[:3] = ["function", "return", "import"]  # frequent words, and the rare ones searched below
    store = SessionStore.open(db)
    conn = store.conn
    now = now_iso()
    conn.execute("BEGIN")
    for n in range(1000):
        sid = f"ses_{n:026d}"
        conn.execute("INSERT INTO sessions (id, name, title, cwd, model, created_at, updated_at, message_count) "
                     "VALUES (?, ?, ?, ?, 'openai/fake', ?, ?, 6)",
                     (sid, f"task-{n}" if n % 3 == 0 else None, words(rng, vocab, 6), cwd if n % 2 else "/elsewhere",
                      now, f"2026-08-{1 + n % 28:02d}T10:{n % 60:02d}:00.000Z"))
        rows = []
        for i in range(6):
            enc = encode(message(rng, vocab, i) if i % 3 != 2 else {**message(rng, vocab, 0), "role": "user"})
            rows.append((sid, i + 1, enc.role, enc.text[:2000], enc.content, now))
        conn.executemany("INSERT INTO messages (session_id, seq, role, text, content, created_at) "
                         "VALUES (?, ?, ?, ?, ?, ?)", rows)
    conn.execute("INSERT INTO sessions (id, name, title, cwd, model, created_at, updated_at, message_count) "
                 "VALUES (?, 'big', 'the long one', ?, 'openai/fake', ?, ?, 20000)", (BIG, cwd, now, now))
    conn.execute("COMMIT")
    batch = []
    for i in range(20000):
        m = message(rng, vocab, i)
        if i == 12346:  # an assistant message
            m["text"] += " xylophonist quandary"  # one rare hit deep in the session
        enc = encode(m)
        batch.append((BIG, i + 1, enc.role, enc.text, enc.content, enc.tool_call_id, enc.tool_call_ids, now))
        if len(batch) == 1000:
            conn.execute("BEGIN")
            conn.executemany("INSERT INTO messages (session_id, seq, role, text, content, tool_call_id, "
                             "tool_call_ids, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", batch)
            conn.execute("COMMIT")
            batch = []
    store.close()


def cli(args: list[str], db: Path, cwd: str, runs: int = 7) -> tuple[float, float, float]:
    """Best and median wall time, and best CPU time (user + sys: what load from others cannot inflate)."""
    times, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        began = time.perf_counter()
        out = subprocess.run([sys.executable, "-m", "flue_tui", *args, "--db", str(db), "--cwd", cwd],
                             capture_output=True, text=True, cwd=ROOT)
        times.append(time.perf_counter() - began)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        assert out.returncode == 0, out.stderr
    return min(times) * 1000, statistics.median(times) * 1000, min(cpus) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--keep", metavar="DIR", help="generate into DIR (reused when present)")
    opts = parser.parse_args()
    tmp = Path(opts.keep) if opts.keep else Path(tempfile.mkdtemp(prefix="flue-bench-"))
    tmp.mkdir(parents=True, exist_ok=True)
    db = tmp / "sessions.db"
    cwd = str(tmp / "project")
    os.makedirs(cwd, exist_ok=True)
    try:
        if not db.exists():
            began = time.perf_counter()
            generate(db, cwd)
            print(f"generated in {time.perf_counter() - began:.1f} s")
        with SessionStore.open(db) as store:
            content = store.conn.execute("SELECT sum(length(text)) + sum(length(content)) FROM messages "
                                         "WHERE session_id = ?", (BIG,)).fetchone()[0]
            print(f"database: {db.stat().st_size / 1e6:.0f} MB on disk; big session: 20,000 messages, "
                  f"{content / 1e6:.0f} MB of content; {store.count_sessions(None)} sessions")
        python = min(timed_python() for _ in range(5)) * 1000
        print(f"python -c pass (interpreter floor): {python:.0f} ms")
        for label, args in (("flue sessions list", ["sessions", "list"]),
                            ("flue sessions list --all", ["sessions", "list", "--all"]),
                            ("flue sessions search import", ["sessions", "search", "import"])):
            best, median, cpu = cli(args, db, cwd)
            print(f"{label:<30} best {best:4.0f} ms  median {median:4.0f} ms  CPU {cpu:4.0f} ms  (target < 200 ms)")
        out = subprocess.run([sys.executable, "-c", RESUME.format(root=str(ROOT), db=str(db), sid=BIG)],
                             capture_output=True, text=True, check=True)
        r = json.loads(out.stdout)
        print(f"rebuild model context (20,000 messages): {r['load'] * 1000:.0f} ms wall, "
              f"{r['cpu'] * 1000:.0f} ms CPU (target < 1 s); "
              f"to_wire {r['wire'] * 1000:.0f} ms; last 50 for the TUI {r['tail'] * 1000:.1f} ms")
        print(f"resume memory: peak RSS {r['rss_peak_kb'] / 1024:.0f} MB (process before loading "
              f"{r['rss_base_kb'] / 1024:.0f} MB); Python heap peak {r['traced'] / 1e6:.0f} MB for "
              f"{r['chars'] / 1e6:.0f} M characters of context")
        with SessionStore.open(db) as store:
            for query in ("import", "function return", "xylophonist", "quandary xylophonist", "nohitword"):
                times = []
                for _ in range(5):
                    began = time.perf_counter()
                    hits = store.search(query, limit=20)
                    times.append(time.perf_counter() - began)
                print(f"search {query!r:<24} {min(times) * 1000:6.1f} ms  {len(hits)} hits  (target < 200 ms)")
    finally:
        if not opts.keep:
            shutil.rmtree(tmp, ignore_errors=True)


def timed_python() -> float:
    began = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - began


if __name__ == "__main__":
    main()
