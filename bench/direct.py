"""Issue 28's targets for the direct path, ratios against baselines measured in the same run.

    uv run python bench/direct.py [--part turn|first-token|reply-start|idle|concurrent] [--rounds 5] [--runs 10]
    uv run python bench/direct.py --part first-token --baseline /tmp/base   # + a checkout of main, same rounds

turn         one `flue -p` job (prompt → one `read` → answer) on each direct path (OpenAI-style,
             Anthropic) and through litellm (FLUE_TRANSPORT=litellm), vs the same job by a ~40-line
             loop over httpx (SSE read with json.loads, as an openai-SDK-style client does it) and by
             the openai SDK itself. CPU (user+sys) and peak RSS per process (wait4), fresh processes,
             alternating, medians. Targets: CPU ≤ 1.5× the httpx loop, peak RSS ≤ 100 MB.
first-token  process start → first token of a prompt given at launch in the app (Textual headless,
             the real FlueApp), vs a bare Textual app's first frame. Target ≤ 1.5×. Twice: as the
             session hands the token over, and painted (the first flush showing the reply's text).
reply-start  in a warm app, each next reply's first token handed over → painted (the flush pacing's
             share of what the user waits), against --baseline in the same rounds.
idle         the app's RSS once started and idle, direct path and litellm. Target ≤ 90 MB.
concurrent   N `flue -p` jobs at once: the sum of their peak RSS (an upper bound of the peak),
             extrapolated to 50. Target ≤ 5 GB for 50; all N must answer.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fakellm import Call, FakeAnthropic, FakeLLM, Turn  # noqa: E402

JOB = [Turn(calls=[Call("read", {"path": "notes.txt"})]), Turn(text="The notes say hello.")]

HTTPX_LOOP = r"""
import json, os, sys, httpx
base, key = os.environ["OPENAI_BASE_URL"], os.environ["OPENAI_API_KEY"]
tools = [{"type": "function", "function": {"name": "read", "description": "Read a file",
          "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}}]
messages = [{"role": "system", "content": "You are a coding agent."}, {"role": "user", "content": "read notes.txt"}]
with httpx.Client(timeout=60) as http:
    while True:
        body = {"model": "fake", "messages": messages, "tools": tools, "stream": True,
                "stream_options": {"include_usage": True}}
        text, calls = [], {}
        with http.stream("POST", f"{base}/chat/completions", json=body,
                         headers={"Authorization": f"Bearer {key}"}) as response:
            for line in response.iter_lines():
                if not line.startswith("data: ") or line == "data: [DONE]":
                    continue
                chunk = json.loads(line[6:])
                for choice in chunk.get("choices") or []:
                    delta = choice.get("delta") or {}
                    if delta.get("content"):
                        text.append(delta["content"])
                    for tc in delta.get("tool_calls") or []:
                        call = calls.setdefault(tc.get("index", 0), {"id": "", "name": "", "args": ""})
                        call["id"] = tc.get("id") or call["id"]
                        fn = tc.get("function") or {}
                        call["name"] += fn.get("name") or ""
                        call["args"] += fn.get("arguments") or ""
        if not calls:
            print("".join(text))
            break
        messages.append({"role": "assistant", "content": "".join(text) or None, "tool_calls": [
            {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["args"]}}
            for c in calls.values()]})
        for c in calls.values():
            with open(json.loads(c["args"])["path"]) as f:
                messages.append({"role": "tool", "tool_call_id": c["id"], "content": f.read()})
"""

# The SDK variant streams with its own objects instead of reading lines.
OPENAI_SDK_LOOP = r"""
import json, os, openai
client = openai.OpenAI(base_url=os.environ["OPENAI_BASE_URL"], api_key=os.environ["OPENAI_API_KEY"], max_retries=0)
tools = [{"type": "function", "function": {"name": "read", "description": "Read a file",
          "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}}]
messages = [{"role": "system", "content": "You are a coding agent."}, {"role": "user", "content": "read notes.txt"}]
while True:
    text, calls = [], {}
    for chunk in client.chat.completions.create(model="fake", messages=messages, tools=tools, stream=True,
                                                stream_options={"include_usage": True}):
        for choice in chunk.choices:
            if choice.delta.content:
                text.append(choice.delta.content)
            for tc in choice.delta.tool_calls or []:
                call = calls.setdefault(tc.index, {"id": "", "name": "", "args": ""})
                call["id"] = tc.id or call["id"]
                call["name"] += (tc.function and tc.function.name) or ""
                call["args"] += (tc.function and tc.function.arguments) or ""
    if not calls:
        print("".join(text))
        break
    messages.append({"role": "assistant", "content": "".join(text) or None, "tool_calls": [
        {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["args"]}}
        for c in calls.values()]})
    for c in calls.values():
        with open(json.loads(c["args"])["path"]) as f:
            messages.append({"role": "tool", "tool_call_id": c["id"], "content": f.read()})
"""


def run_measured(cmd: list[str], env: dict[str, str], cwd: str) -> tuple[float, float, str]:
    """(CPU seconds user+sys, peak RSS MB, stdout) of one fresh process: wait4 reaps it before
    Popen can, so its own rusage is ours to read."""
    with tempfile.TemporaryFile() as err:
        child = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=err)
        out = child.stdout.read() if child.stdout else b""
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            err.seek(0)
            raise SystemExit(f"{cmd[:4]} failed ({child.returncode}): {err.read().decode()[-2000:]}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out.decode()


def bench_turn(rounds: int) -> dict:
    flue = shutil.which("flue") or str(Path(sys.executable).parent / "flue")
    rows: dict[str, list[tuple[float, float]]] = {}
    with (
        FakeLLM(loop_script=True) as llm,
        FakeAnthropic(loop_script=True) as claude,
        tempfile.TemporaryDirectory() as work,
    ):
        llm.script(JOB)
        claude.script(JOB)
        Path(work, "notes.txt").write_text("hello\n")
        base = dict(
            os.environ,
            FLUE_HOME=str(Path(work) / "home"),
            OPENAI_BASE_URL=llm.base_url,
            OPENAI_API_KEY="sk-bench",
            ANTHROPIC_API_BASE=claude.base_url,
            ANTHROPIC_API_KEY="sk-ant-bench",
        )
        base.pop("FLUE_TRANSPORT", None)
        jobs = {
            "httpx loop (baseline)": ([sys.executable, "-c", HTTPX_LOOP], base),
            "openai SDK loop": ([sys.executable, "-c", OPENAI_SDK_LOOP], base),
            "flue -p direct OpenAI": ([flue, "-p", "read notes.txt", "--model", "openai/fake"], base),
            "flue -p direct Anthropic": (
                [flue, "-p", "read notes.txt", "--model", "anthropic/claude-sonnet-4-5"],
                base,
            ),
            "flue -p litellm (forced)": (
                [flue, "-p", "read notes.txt", "--model", "openai/fake"],
                {**base, "FLUE_TRANSPORT": "litellm"},
            ),
        }
        for _ in range(rounds):
            for label, (cmd, env) in jobs.items():
                cpu, rss, out = run_measured(cmd, env, work)
                assert "hello" in out, (label, out)
                rows.setdefault(label, []).append((cpu, rss))
    result = {}
    baseline = statistics.median(c for c, _ in rows["httpx loop (baseline)"])
    sdk = statistics.median(c for c, _ in rows["openai SDK loop"])
    for label, values in rows.items():
        cpu = statistics.median(c for c, _ in values)
        rss = max(r for _, r in values)
        result[label] = {
            "cpu_ms": round(cpu * 1000),
            "peak_rss_mb": round(rss, 1),
            "x_httpx_loop": round(cpu / baseline, 2),
            "x_openai_sdk": round(cpu / sdk, 2),
        }
    return result


FIRST_TOKEN_CHILD = r"""
import asyncio, sys, time
try:
    from flue_tui.core import classcode
    classcode.install()  # the `flue` entry's first step: dataclasses' methods compiled once
except ImportError:  # a tree from before it (a baseline checkout)
    pass
try:
    from flue_tui.core.heap import hold_collections
    hold_collections()  # as the `flue` entry does before it imports the app
except ImportError:  # a tree from before the hold (a baseline checkout)
    pass
from flue_tui.config.settings import Settings
settings = Settings.from_env(model=sys.argv[2], cwd=sys.argv[1])
try:
    from flue_tui.model.route import beside
    beside(settings.model, settings.api_base, settings.transport)  # as the `flue` entry does before the UI
except ImportError:  # a tree from before the relay (a baseline checkout)
    pass
from flue_tui.runtime.start import SessionOptions
from flue_tui.tui.app import FlueApp

async def main():
    app = FlueApp(settings, prompt="say hello", sessions=SessionOptions(persist=False))
    seen = []
    token = asyncio.Event()
    attach = FlueApp.attach

    # The first TextDelta is stamped as the session hands it over. Subscribed as the app attaches
    # the session, and awaited on an event: polling with pilot.pause() (it waits for every widget's
    # queue and refreshes the screen's layout, every 2 ms) cost the app ~0.13 s of CPU up to the token.
    async def attached(self, session, **kw):
        from flue_tui.core.events import TextDelta  # where the app first imports it: its session start

        session.subscribe(lambda e: (seen.append((time.time(), time.process_time())), token.set())
                          if isinstance(e, TextDelta) and not seen else None)
        return await attach(self, session, **kw)

    FlueApp.attach = attached

    # The token on screen: the first flush that shows the reply's text, once Textual has painted it
    # (what the user sees; it needs the reply's Markdown stack, which the event above does not).
    painted = asyncio.Event()
    flush = FlueApp._render_changes

    async def rendered(self):
        await flush(self)
        view = next((e.view for e in self.transcript.entries if type(e).__name__ == "ReplyEntry"), None)
        if seen and not painted.is_set() and view is not None and view.is_attached:
            self.call_after_refresh(lambda: painted.is_set() or (shown.append((time.time(), time.process_time())),
                                                                 painted.set()))

    shown = []
    FlueApp._render_changes = rendered
    async with app.run_test(size=(120, 40)):
        await token.wait()
        await painted.wait()
        print(f"{seen[0][0]} {'litellm' in sys.modules} {seen[0][1]} {shown[0][0]} {shown[0][1]}", flush=True)
        app.exit()

asyncio.run(main())
"""

# In a warm app (its first turn over), each next reply: its first token handed over by the session
# → painted (the first flush showing it, once Textual has drawn it), from a stand-in that takes
# 0.3 s to its first token as a real model does: the flush pacing's share of what the user waits.
REPLY_START_CHILD = r"""
import asyncio, statistics, sys, time
try:
    from flue_tui.core import classcode
    classcode.install()
except ImportError:
    pass
from flue_tui.config.settings import Settings
from flue_tui.core.events import TextDelta
from flue_tui.runtime.start import SessionOptions
from flue_tui.tui.app import FlueApp

async def main():
    app = FlueApp(Settings.from_env(model=sys.argv[2], cwd=sys.argv[1]), sessions=SessionOptions(persist=False))
    waits = []
    async with app.run_test(size=(120, 40)) as pilot:
        while app.session is None or app.launching:
            await pilot.pause(0.01)
        for turn in range(int(sys.argv[3]) + 1):
            got, painted = [], asyncio.Event()
            before = sum(type(e).__name__ == "ReplyEntry" for e in app.transcript.entries)
            unsubscribe = app.session.subscribe(
                lambda e: got.append(time.perf_counter()) if isinstance(e, TextDelta) and not got else None)
            flush = app._render_changes

            async def rendered():
                await flush()
                replies = [e for e in app.transcript.entries if type(e).__name__ == "ReplyEntry"]
                if got and not painted.is_set() and len(replies) > before and replies[-1].view is not None:
                    app.call_after_refresh(lambda: painted.is_set() or (got.append(time.perf_counter()), painted.set()))

            app._render_changes = rendered
            app.send(f"question {turn}")
            await painted.wait()
            del app._render_changes
            if callable(unsubscribe):
                unsubscribe()
            while app.busy:
                await pilot.pause(0.01)
            await pilot.pause(0.3)  # a quiet spell, as a person reading the answer
            if turn:  # the first warms the reply's views
                waits.append(got[1] - got[0])
        print(f"{statistics.median(waits)}", flush=True)
        app.exit()

asyncio.run(main())
"""


def bench_reply_start(rounds: int, baseline: Path | None = None) -> dict:
    """Token handed over → painted, for the next replies of a warm app (median per process, then
    the median of `rounds` processes), with `baseline`'s tree in the same rounds."""
    from bench.tui import bytecode_env

    trees = {"": ROOT, **({"baseline_": baseline} if baseline is not None else {})}
    waits: dict[str, list[float]] = {label: [] for label in trees}
    with FakeLLM(loop_script=True) as llm, tempfile.TemporaryDirectory() as work:
        llm.script([Turn(text="An answer, short.", delay=0.3)])  # a model that thinks 0.3 s first, as real ones do
        env = dict(
            os.environ, OPENAI_BASE_URL=llm.base_url, OPENAI_API_KEY="sk-bench", FLUE_HOME=str(Path(work) / "home")
        )
        env.pop("FLUE_TRANSPORT", None)
        env = bytecode_env(env)
        for run in range(rounds):
            for label, tree in list(trees.items()) if run % 2 else list(trees.items())[::-1]:
                _, out = _child(REPLY_START_CHILD, [work, "openai/fake", "6"], env, tree)
                waits[label].append(float(out[0]))
    result: dict[str, object] = {}
    for label in trees:
        result[f"{label}token_to_paint_ms_median"] = round(1000 * statistics.median(waits[label]), 1)
    if baseline is not None:
        result["x_baseline"] = round(statistics.median(waits[""]) / statistics.median(waits["baseline_"]), 2)
    return result


IDLE_CHILD = r"""
import asyncio, sys, time
try:
    from flue_tui.core import classcode
    classcode.install()  # the `flue` entry's first step: dataclasses' methods compiled once
except ImportError:  # a tree from before it (a baseline checkout)
    pass
from flue_tui.core.heap import hold_collections
hold_collections()  # as the `flue` entry does before it imports the app
from flue_tui.config.settings import Settings
settings = Settings.from_env(model=sys.argv[2], cwd=sys.argv[1])
from flue_tui.model.route import beside
beside(settings.model, settings.api_base, settings.transport)  # as the `flue` entry does: the relay
from flue_tui.runtime.start import SessionOptions
from flue_tui.tui.app import FlueApp

def rss(pid="self"):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024

async def main():
    app = FlueApp(settings, sessions=SessionOptions(persist=False))
    async with app.run_test(size=(120, 40)) as pilot:
        while app.session is None or app.first_frame_at is None:
            await pilot.pause(0.01)
        await pilot.pause(3.0)  # idle: the background loads (history, paths, a litellm warm-up) are done
        from flue_tui.model import relay
        beside_rss = rss(relay.current().proc.pid) if relay.current() else 0.0
        print(f"{rss():.1f} {'litellm' in sys.modules} {beside_rss:.1f}", flush=True)
        app.exit()

asyncio.run(main())
"""


def _child(script: str, args: list[str], env: dict[str, str], tree: Path = ROOT) -> tuple[float, list[str]]:
    """A fresh process running `script` with `tree`'s flue (its own .venv, its own .pyc cache)."""
    python = sys.executable if tree == ROOT else str(tree / ".venv" / "bin" / "python")
    if tree != ROOT:
        env = dict(env, PYTHONPYCACHEPREFIX=str(tree / ".flue-bench" / "pycache"))
    start = time.time()
    proc = subprocess.run([python, "-c", script, *args], capture_output=True, text=True, env=env, cwd=tree, timeout=300)
    if proc.returncode != 0:
        raise SystemExit(proc.stderr[-2000:])
    return start, proc.stdout.split()


def bench_first_token(rounds: int, baseline: Path | None = None) -> dict:
    """With `baseline` (another checkout with its own `uv sync`, e.g. `git worktree add /tmp/base
    main --detach`): its first token too, in the same rounds, alternating which tree goes first."""
    from bench.tui import BARE_CHILD, bytecode_env

    trees = {"": ROOT, **({"baseline_": baseline} if baseline is not None else {})}
    tokens: dict[str, list[float]] = {label: [] for label in trees}
    cpu: dict[str, list[float]] = {label: [] for label in trees}
    paints: dict[str, list[float]] = {label: [] for label in trees}
    paint_cpu: dict[str, list[float]] = {label: [] for label in trees}
    bare, loaded, bare_cpu = [], [], []
    with FakeLLM(loop_script=True) as llm, tempfile.TemporaryDirectory() as work:
        llm.script([Turn(text="Hello from the wire.")])
        env = dict(
            os.environ, OPENAI_BASE_URL=llm.base_url, OPENAI_API_KEY="sk-bench", FLUE_HOME=str(Path(work) / "home")
        )
        env.pop("FLUE_TRANSPORT", None)
        env = bytecode_env(env)
        for run in range(rounds + 1):  # the first round, untimed, writes the .pyc files (and the map's index)
            order = list(trees.items()) if run % 2 else list(trees.items())[::-1]
            for label, tree in order:
                start, out = _child(FIRST_TOKEN_CHILD, [work, "openai/fake"], env, tree)
                if run:
                    tokens[label].append(float(out[0]) - start)
                    cpu[label].append(float(out[2]))
                    paints[label].append(float(out[3]) - start)
                    paint_cpu[label].append(float(out[4]))
                    loaded.append(out[1] == "True")
            start_bare, out_bare = _child(BARE_CHILD, [], env)
            if run:
                bare.append(float(out_bare[0]) - start_bare)
                bare_cpu.append(float(out_bare[2]))
    result: dict[str, object] = {}
    for label in trees:
        wall, used = statistics.median(tokens[label]), statistics.median(cpu[label])
        result[f"{label}first_token_ms_median"] = round(1000 * wall)
        result[f"{label}first_token_ms_all"] = [round(1000 * t) for t in tokens[label]]
        result[f"{label}x_bare_textual"] = round(wall / statistics.median(bare), 2)
        # CPU up to the first token vs the bare app's up to its frame: the wall ratio on an idle machine.
        result[f"{label}first_token_cpu_ms_median"] = round(1000 * used)
        result[f"{label}x_bare_textual_cpu"] = round(used / statistics.median(bare_cpu), 2)
        shown, shown_cpu = statistics.median(paints[label]), statistics.median(paint_cpu[label])
        result[f"{label}first_paint_ms_median"] = round(1000 * shown)
        result[f"{label}paint_x_bare_textual"] = round(shown / statistics.median(bare), 2)
        result[f"{label}paint_x_bare_textual_cpu"] = round(shown_cpu / statistics.median(bare_cpu), 2)
        # What the user waits between the two: the flush pacing and the reply view's first frame.
        waits = [p - t for p, t in zip(paints[label], tokens[label], strict=True)]
        result[f"{label}token_to_paint_ms_median"] = round(1000 * statistics.median(waits))
    result["bare_textual_first_frame_ms_median"] = round(1000 * statistics.median(bare))
    result["bare_textual_cpu_ms_median"] = round(1000 * statistics.median(bare_cpu))
    if baseline is not None:
        result["x_baseline"] = round(statistics.median(tokens[""]) / statistics.median(tokens["baseline_"]), 2)
        result["x_baseline_cpu"] = round(statistics.median(cpu[""]) / statistics.median(cpu["baseline_"]), 2)
        result["paint_x_baseline"] = round(statistics.median(paints[""]) / statistics.median(paints["baseline_"]), 2)
    result["litellm_loaded"] = any(loaded)
    return result


def bench_idle(rounds: int) -> dict:
    """The median of `rounds` warm starts: a first, untimed one writes the .pyc files, the
    dataclass code and the model map's index, as an installed flue's first run does."""
    from bench.tui import idle_env

    result: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as work:
        env = idle_env(work)
        for transport in ("auto", "litellm"):
            values, loaded, relays = [], [], []
            _child(IDLE_CHILD, [work, "openai/fake"], {**env, "FLUE_TRANSPORT": transport})  # untimed
            for _ in range(rounds):
                _, out = _child(IDLE_CHILD, [work, "openai/fake"], {**env, "FLUE_TRANSPORT": transport})
                values.append(float(out[0]))
                loaded.append(out[1] == "True")
                relays.append(float(out[2]))
            result[f"idle_rss_mb_{transport}"] = round(statistics.median(values), 1)
            if any(relays):  # the relay's own (its pages are its own: a fresh interpreter, not a fork)
                result[f"relay_rss_mb_{transport}"] = round(statistics.median(relays), 1)
                result[f"idle_rss_mb_{transport}_with_relay"] = round(statistics.median(map(sum, zip(values, relays, strict=False))), 1)
            result[f"litellm_loaded_{transport}"] = any(loaded)
    return result


def bench_concurrent(runs: int) -> dict:
    flue = shutil.which("flue") or str(Path(sys.executable).parent / "flue")
    with FakeLLM(loop_script=True) as llm, tempfile.TemporaryDirectory() as work:
        llm.script(JOB)
        Path(work, "notes.txt").write_text("hello\n")
        env = dict(
            os.environ, FLUE_HOME=str(Path(work) / "home"), OPENAI_BASE_URL=llm.base_url, OPENAI_API_KEY="sk-bench"
        )
        env.pop("FLUE_TRANSPORT", None)
        procs = [
            subprocess.Popen(
                [flue, "-p", "read notes.txt", "--model", "openai/fake"],
                env=env,
                cwd=work,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            for _ in range(runs)
        ]
        peaks, answered = [], 0
        for proc in procs:
            out = proc.stdout.read() if proc.stdout else b""
            _, status, usage = os.wait4(proc.pid, 0)
            answered += os.waitstatus_to_exitcode(status) == 0 and b"hello" in out
            peaks.append(usage.ru_maxrss / 1024)
    total = sum(peaks)
    return {
        "runs": runs,
        "answered": answered,
        "sum_peak_rss_mb": round(total),
        "max_one_mb": round(max(peaks), 1),
        "extrapolated_50_gb": round(total / runs * 50 / 1024, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--part", choices=["turn", "first-token", "reply-start", "idle", "concurrent"])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--baseline", type=Path, help="first-token, reply-start: another checkout, same rounds")
    args = parser.parse_args()
    parts = {
        "turn": lambda: bench_turn(args.rounds),
        "first-token": lambda: bench_first_token(args.rounds, args.baseline),
        "reply-start": lambda: bench_reply_start(args.rounds, args.baseline),
        "idle": lambda: bench_idle(max(1, args.rounds // 2)),
        "concurrent": lambda: bench_concurrent(args.runs),
    }
    for name, run in parts.items():
        if args.part in (None, name):
            print(name, run(), flush=True)


if __name__ == "__main__":
    main()
