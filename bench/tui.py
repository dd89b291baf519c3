"""TUI benchmarks (Textual headless, the real app, Session and litellm, the scripted server).

    uv run python bench/tui.py                 # everything (the soak takes minutes)
    uv run python bench/tui.py --part first-frame|stream|soak [--turns 2000] [--json]
    uv run python bench/tui.py --part stream [--tokens 5000] [--markdown] [--profile FILE]

first-frame  process launch → first frame (median of 5 fresh processes, interleaved with the bare app's, with
             3 MCP servers configured, and through the `flue` entry); litellm must not be loaded yet.
stream       one 20k-token reply at 2,000 tokens/s: last token → final frame, and the app's CPU
             (the server runs in its own process, so its CPU is not counted). litellm is not imported
             (the model takes the direct path, as in the app); FLUE_BENCH_LITELLM=1 imports it first.
             --markdown: a reply of about the same length in headings, lists, code, tables and quotes
             (8-character chunks); --profile FILE: cProfile of the run with the app, for pstats.
frames       the stream's reply replayed into the app 132 tokens a frame (2,000 tok/s at the 66 ms
             flush), each frame flushed and painted before the next: the UI's CPU for the reply with
             the same number of frames in every run (--markdown, --profile as for stream).
esc          Esc → agent idle, during a running `sleep 30` and during a fast stream.
soak         N short turns, then keystroke → screen latency (p50/p95) and RSS at checkpoints.

Headless run_test does all the layout and rendering work but writes nothing to a terminal.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

FIRST_FRAME_CHILD = r"""
import asyncio, sys, time
try:
    from flue_tui.core import classcode
    classcode.install()  # the `flue` entry's first step: dataclasses' methods compiled once
except ImportError:  # a tree from before it (a baseline checkout)
    pass
from flue_tui.core.heap import hold_collections
hold_collections()  # as the `flue` entry does before it imports the app
from flue_tui.config.settings import Settings
from flue_tui.runtime.start import SessionOptions
from flue_tui.tui.app import FlueApp

async def main():
    app = FlueApp(Settings.from_env(model="openai/fake", cwd=sys.argv[1]), sessions=SessionOptions(persist=False))
    async with app.run_test(size=(120, 40)) as pilot:
        while app.first_frame_at is None:
            await pilot.pause(0.002)
        # Stamped at the frame, as the bare app is (its callback prints at once); then, after the work
        # the app starts synchronously once the frame is out, when the loop is free again.
        at_frame = time.time() - (time.perf_counter() - app.first_frame_at)
        print(f"{at_frame} {app.litellm_loaded_at_first_frame} {app.first_frame_cpu} {'mcp' in sys.modules} "
              f"{time.time()} {time.process_time()}", flush=True)
        app.exit()

asyncio.run(main())
"""


# The same frame reached through the `flue` entry itself (main(): its flags, settings and GC hold, then
# the app), headless: what reading the flags costs before the app is imported counts here.
ENTRY_CHILD = r"""
import os, sys, time
try:
    from flue_tui.core import classcode
    classcode.install()  # the `flue` entry's first step: dataclasses' methods compiled once
except ImportError:  # a tree from before it (a baseline checkout)
    pass
import textual.app
import flue_tui.tui.support as support
from flue_tui.cli.flue import main
from flue_tui.tui.app import FlueApp

support.tui_supported = lambda: True  # no terminal here: the app, headless, as run_test drives it
run = textual.app.App.run
textual.app.App.run = lambda self, *a, **k: run(self, *a, **dict(k, headless=True, size=(120, 40)))

def at_frame(app):
    print(f"{time.time()} {'litellm' in sys.modules} {time.process_time()}", flush=True)
    import atexit
    atexit._run_exitfuncs()  # as the app's quit does (exit_now), after the stamp: the cache saved
    os._exit(0)

FlueApp._after_first_frame = at_frame
main(["--model", "openai/fake", "--cwd", sys.argv[1]])
"""


BARE_CHILD = r"""
import time
from textual.app import App
from textual.widgets import Static, TextArea

class Bare(App):
    def compose(self):
        yield Static("hello")
        yield TextArea()

    def on_mount(self):
        self.call_after_refresh(lambda: (print(f"{time.time()} False {time.process_time()}", flush=True),
                                         self.exit()))

Bare().run(headless=True, size=(120, 40))
"""


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def bytecode_env(env: dict[str, str]) -> dict[str, str]:
    """Children read and write .pyc files (in .flue-bench/pycache), as an installed flue does: with
    PYTHONDONTWRITEBYTECODE set (as on some CI boxes) flue's editable modules would be compiled
    from source in every fresh process, while a bare Textual app's site-packages are compiled."""
    env = dict(env, PYTHONPYCACHEPREFIX=str(ROOT / ".flue-bench" / "pycache"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(p / 100 * (len(values) - 1)))]


# -- first frame ------------------------------------------------------------------------------------
class _Frames:
    """One child's runs: wall and CPU to the first frame, and (the app's) when its loop was free."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self.cpu: list[float] = []
        self.loaded: list[bool] = []
        self.free: list[float] = []
        self.free_cpu: list[float] = []


def idle_env(cwd: str) -> dict[str, str]:
    """A child's environment: flue's bytecode cache, a fresh home in `cwd`, a model no one serves."""
    return bytecode_env(dict(os.environ, OPENAI_BASE_URL="http://127.0.0.1:9/v1", OPENAI_API_KEY="sk-test",
                             FLUE_HOME=str(Path(cwd) / "home")))


def _home(cwd: str, mcp_servers: int) -> dict[str, str]:
    env = idle_env(cwd)
    if mcp_servers:  # real stdio servers in the user's config: they must not delay the first frame
        (Path(cwd) / "home").mkdir()
        server = ROOT / "tests" / "mcp" / "server.py"
        (Path(cwd) / "home" / "config.toml").write_text("".join(
            f'[mcp_servers.s{i}]\ncommand = {json.dumps(sys.executable)}\nargs = [{json.dumps(str(server))}, '
            f'"stdio"]\n' for i in range(mcp_servers)))
    return env


def _first_frames(children: dict[str, tuple[str, int]], runs: int) -> dict[str, _Frames]:
    """Each child (script, MCP servers configured) `runs` times, interleaved round by round, so a
    change in the machine's load falls on all of them alike."""
    out = {name: _Frames() for name in children}
    with tempfile.TemporaryDirectory() as plain, tempfile.TemporaryDirectory() as with_mcp:
        dirs = {0: (plain, _home(plain, 0))}
        for _, servers in children.values():
            if servers and servers not in dirs:
                dirs[servers] = (with_mcp, _home(with_mcp, servers))
        for run in range(runs + 1):  # the first round, untimed, writes the .pyc files
            for name, (child, servers) in children.items():
                cwd, env = dirs[servers]
                start = time.time()
                proc = subprocess.run([sys.executable, "-c", child, cwd], capture_output=True, text=True,
                                      env=env, cwd=ROOT, timeout=120)
                if run == 0:
                    continue
                stamp, loaded, cpu_s, *rest = proc.stdout.split()
                f = out[name]
                f.times.append(float(stamp) - start)
                f.cpu.append(float(cpu_s))
                f.loaded.append(loaded == "True" or rest[:1] == ["True"])
                if rest[1:]:  # the app's: when the loop was free after the frame
                    f.free.append(float(rest[1]) - start)
                    f.free_cpu.append(float(rest[2]))
    return out


def bench_first_frame(runs: int = 5) -> dict:
    med = lambda values: round(1000 * statistics.median(values))  # noqa: E731
    frames = _first_frames({
        "app": (FIRST_FRAME_CHILD, 0),
        # With three MCP servers configured: they start after the first frame, so nothing may change.
        "mcp": (FIRST_FRAME_CHILD, 3),
        # The same measurement for a bare Textual app (a Static and a TextArea): the floor on this machine.
        "bare": (BARE_CHILD, 0),
        "entry": (ENTRY_CHILD, 0),
    }, runs)
    app, mcp, bare, entry = frames["app"], frames["mcp"], frames["bare"], frames["entry"]
    return {"first_frame_ms_median": med(app.times),
            "bare_textual_first_frame_ms_median": med(bare.times),
            "bare_textual_first_frame_cpu_ms_median": med(bare.cpu),
            "first_frame_ms_all": [round(1000 * t) for t in app.times],
            # CPU the process spent up to its first frame: what the wall time is on an idle machine.
            "first_frame_cpu_ms_median": med(app.cpu),
            # The frame plus what _after_first_frame starts synchronously (session start, warm-ups).
            "loop_free_after_frame_ms_median": med(app.free),
            "loop_free_after_frame_cpu_ms_median": med(app.free_cpu),
            "entry_first_frame_ms_median": med(entry.times),
            "entry_first_frame_cpu_ms_median": med(entry.cpu),
            "litellm_loaded_at_first_frame": any(app.loaded) or any(entry.loaded),
            "first_frame_ms_median_3_mcp_servers": med(mcp.times),
            "first_frame_cpu_ms_median_3_mcp_servers": med(mcp.cpu),
            "litellm_or_mcp_sdk_loaded_at_first_frame_3_mcp_servers": any(mcp.loaded)}


# -- a scripted server in its own process ----------------------------------------------------------
class Server:
    def __init__(self, turns: list[dict], loop: bool = False) -> None:
        self.dir = tempfile.TemporaryDirectory()
        script = Path(self.dir.name) / "script.json"
        script.write_text(json.dumps(turns))
        args = [sys.executable, "-m", "tests.fakellm", "--port", "0", "--script", str(script)]
        self.proc = subprocess.Popen(args + (["--loop"] if loop else []), cwd=ROOT, stdout=subprocess.PIPE,
                                     text=True)
        line = self.proc.stdout.readline().strip()
        self.url = line.split("=", 1)[1]

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)
        self.dir.cleanup()


def make_app(url: str, cwd: str):
    os.environ.update(OPENAI_BASE_URL=url, OPENAI_API_KEY="sk-test")
    from flue_tui.config.settings import Settings
    from flue_tui.runtime.start import SessionOptions
    from flue_tui.tui.app import FlueApp

    return FlueApp(Settings.from_env(model="openai/fake", cwd=cwd), sessions=SessionOptions(persist=False))


async def ready(pilot) -> None:
    """The session is up (and litellm imported, when the model is not on a direct path)."""
    app = pilot.app
    while app.session is None:
        await pilot.pause(0.05)
    await _litellm_if_needed(app.settings)


async def _litellm_if_needed(settings) -> None:
    # A direct-path model (model/route.py) never imports litellm in the app: neither does the bench,
    # its ~400k objects would make every garbage collection of the measured stream dearer.
    from flue_tui.model.loader import aget_litellm
    from flue_tui.model.route import needs_litellm

    if os.environ.get("FLUE_BENCH_LITELLM") or needs_litellm(settings.model, settings.api_base, settings.transport):
        await aget_litellm()


async def settled(app) -> None:
    """Until the agent is idle and every change has been rendered."""
    while app.busy or app.router.pending or app._flush_timer is not None or app._flushing:
        await asyncio.sleep(0.002)


async def after_refresh(app) -> float:
    fut = asyncio.get_running_loop().create_future()
    app.call_after_refresh(lambda: fut.done() or fut.set_result(time.perf_counter()))
    return await fut


# -- stream -----------------------------------------------------------------------------------------
class _FrameCost:
    """CPU inside the app's flushes and inside Textual's screen updates (layout and compositing),
    and how many layouts and paints the stream took: steadier than the process's CPU minus a
    no-UI run's, which wanders by ±0.4 s on a shared box. The bench wraps Textual's screen
    update, layout and paint (private methods; for counting only, the app never does)."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.flush_cpu = self.update_cpu = 0.0
        self.flushes = self.layouts = self.paints = 0

    def install(self, app) -> None:
        from textual.screen import Screen

        frames, screen_cls, app_cls = self, Screen, type(app)
        update, layout, paint, flush = (screen_cls._on_timer_update, screen_cls._refresh_layout,
                                        screen_cls._compositor_refresh, app_cls._render_changes)

        def timed_update(screen) -> None:
            cpu = time.process_time()
            try:
                update(screen)
            finally:
                frames.update_cpu += time.process_time() - cpu

        def counted_layout(screen, *args, **kw) -> None:
            frames.layouts += 1
            layout(screen, *args, **kw)

        def counted_paint(screen) -> None:
            frames.paints += 1
            paint(screen)

        async def timed_flush(app) -> None:
            frames.flushes += 1
            cpu = time.process_time()
            try:
                await flush(app)
            finally:  # the flush awaits mounts: other tasks' CPU in between counts here too
                frames.flush_cpu += time.process_time() - cpu

        screen_cls._on_timer_update, screen_cls._refresh_layout = timed_update, counted_layout
        screen_cls._compositor_refresh, app_cls._render_changes = counted_paint, timed_flush
        self._restore = lambda: (setattr(screen_cls, "_on_timer_update", update),
                                 setattr(screen_cls, "_refresh_layout", layout),
                                 setattr(screen_cls, "_compositor_refresh", paint),
                                 setattr(app_cls, "_render_changes", flush))

    def result(self) -> dict:
        self._restore()
        return {"flushes": self.flushes, "layouts_per_flush": round(self.layouts / max(1, self.flushes), 2),
                "paints_per_flush": round(self.paints / max(1, self.flushes), 2),
                "flush_cpu_s": round(self.flush_cpu, 2), "screen_update_cpu_s": round(self.update_cpu, 2),
                "frame_cpu_ms": round(1000 * (self.flush_cpu + self.update_cpu) / max(1, self.flushes), 1)}


async def _stream(url: str, cwd: str, tokens: int) -> dict:
    from flue_tui.core.events import MessageEnd, TextDelta
    from flue_tui.ui.transcript import ReplyEntry

    app = make_app(url, cwd)
    cost = _FrameCost()
    cost.install(app)  # before the screen exists: its update timer holds the method it had then
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        cost.reset()  # the stream's frames only
        marks: dict[str, float] = {}

        def listen(event) -> None:
            if isinstance(event, TextDelta):
                marks.setdefault("first", time.perf_counter())
                marks["last"] = time.perf_counter()
            elif isinstance(event, MessageEnd) and event.message.get("role") == "assistant":
                marks["end"] = time.perf_counter()
                marks["chars"] = len(event.message.get("text") or "")

        app.session.subscribe(listen)
        frames: list[tuple[float, int]] = []  # (frame time, characters of the reply on screen)

        async def sample() -> None:
            shown = -1
            while "end" not in marks or not frames or frames[-1][1] < marks["chars"]:
                view = next((e.view for e in app.transcript.entries if isinstance(e, ReplyEntry)), None)
                if view is not None and view.shown != shown:
                    shown = view.shown
                    frames.append((await after_refresh(app), shown))
                await asyncio.sleep(0.002)

        cpu0, wall0 = time.process_time(), time.perf_counter()
        sampler = asyncio.ensure_future(sample())
        app.prompt.set_text("write a long answer")
        await pilot.press("enter")
        await sampler
        reply = next(e for e in app.transcript.entries if isinstance(e, ReplyEntry))
        final = next(t for t, shown in frames if shown >= len(reply.text))
        cpu = time.process_time() - cpu0
        await settled(app)
        widgets = len(list(app.conversation.query("*")))
        return {"tokens": tokens, "stream_s": round(marks["last"] - marks["first"], 2),
                # The model client's own work after the last token (litellm closing the stream).
                "last_token_to_message_end_ms": round(1000 * (marks["end"] - marks["last"])),
                "last_token_to_final_frame_ms": round(1000 * (final - marks["last"])),
                "cpu_s": round(cpu, 2), "cpu_pct_of_stream": round(100 * cpu / (final - wall0)),
                "widgets_after": widgets, "reply_chars": len(reply.text), **cost.result()}


async def _no_ui(url: str, cwd: str) -> dict:
    """The same stream with no UI at all: what litellm and the agent loop cost by themselves."""
    from flue_tui.config.settings import Settings
    from flue_tui.core.events import TextDelta
    from flue_tui.runtime.start import SessionOptions, start_session

    settings = Settings.from_env(model="openai/fake", cwd=cwd)
    await _litellm_if_needed(settings)
    started = start_session(settings, SessionOptions(persist=False))
    marks: dict[str, float] = {}

    def listen(event) -> None:
        if isinstance(event, TextDelta):
            marks.setdefault("first", time.perf_counter())
            marks["last"] = time.perf_counter()

    started.session.subscribe(listen)
    cpu0 = time.process_time()
    await started.session.prompt("write a long answer")
    return {"stream_s": round(marks["last"] - marks["first"], 2), "cpu_s": round(time.process_time() - cpu0, 2)}


MARKDOWN_SECTION = (
    "## Section {i}\n\nA paragraph with **bold**, *italic* and `code`, long enough to wrap once or twice "
    "in a terminal of eighty columns.\n\n- first item\n- second item with `code`\n- third\n\n"
    "1. one\n2. two\n3. three\n\n```python\ndef f(x):\n    return x + {i}\n```\n\n"
    "| name | value |\n| --- | --- |\n| a | {i} |\n| b | 2 |\n\n> a quote\n\n"
)


def markdown_reply(chars: int) -> str:
    """A Markdown-heavy reply of about `chars` characters (the 20k-token reply's is ~133k)."""
    out, i = [], 0
    while sum(map(len, out)) < chars:
        out.append(MARKDOWN_SECTION.format(i=i))
        i += 1
    return "".join(out)


def _cpu_of(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def bench_stream(tokens: int = 20_000, rate: float = 2000, markdown: bool = False, profile: str | None = None,
                 relayed: bool = False) -> dict:
    """`relayed`: the HTTP client in the relay's process (model/relay.py), as the `flue` entry runs
    the app; its CPU is reported apart (`relay_cpu_s`) and in `cpu_with_relay_s`."""
    out: dict = {}
    if relayed:
        from flue_tui.model import relay

        relay.start("http://127.0.0.1/")
        assert relay.current() is not None
        relay_pid = relay.current().proc.pid
        out["relay_cpu_s"] = 0.0
    # 8 characters a chunk: about as many chunks as the same length of generated words.
    turn = {"text": markdown_reply(tokens * 133 // 20), "tokens_per_second": rate} if markdown else {
        "text_tokens": tokens, "tokens_per_second": rate}
    for run in (_no_ui, None):
        server = Server([turn])
        try:
            with tempfile.TemporaryDirectory() as cwd:
                os.environ["FLUE_HOME"] = str(Path(cwd) / "home")
                if run is None:
                    profiler = None
                    if profile:
                        import cProfile

                        profiler = cProfile.Profile()
                        profiler.enable()
                    before = _cpu_of(relay_pid) if relayed else 0.0
                    out.update(asyncio.run(_stream(server.url, cwd, tokens)))
                    if relayed:
                        out["relay_cpu_s"] = round(_cpu_of(relay_pid) - before, 2)
                    if profiler is not None:
                        profiler.disable()
                        profiler.dump_stats(profile)
                else:
                    os.environ.update(OPENAI_BASE_URL=server.url, OPENAI_API_KEY="sk-test")
                    baseline = asyncio.run(run(server.url, cwd))
                    out["no_ui_stream_s"], out["no_ui_cpu_s"] = baseline["stream_s"], baseline["cpu_s"]
        finally:
            server.close()
    out["ui_cpu_s"] = round(out["cpu_s"] - out["no_ui_cpu_s"], 2)
    if relayed:
        out["cpu_with_relay_s"] = round(out["cpu_s"] + out["relay_cpu_s"], 2)
    return out


# -- frames -----------------------------------------------------------------------------------------
async def _frames(pieces: list[str], per_frame: int) -> dict:
    """The reply's text events replayed into the app `per_frame` at a time, each batch flushed and
    painted before the next: the UI's work for the reply at the stream's cadence, with the same
    number of frames in every run (a live stream's flushes are paced by the frames' own CPU, so a
    loaded box draws fewer, dearer ones) and no model client beside it."""
    from flue_tui.core.events import TextDelta

    with tempfile.TemporaryDirectory() as cwd:
        os.environ["FLUE_HOME"] = str(Path(cwd) / "home")
        app = make_app("http://127.0.0.1:9", cwd)  # never asked: the events come from here
        cost = _FrameCost()
        cost.install(app)
        async with app.run_test(size=(120, 40)) as pilot:
            await ready(pilot)
            await settled(app)
            await after_refresh(app)
            session = app.session.id
            cost.reset()
            cpu0 = time.process_time()
            for start in range(0, len(pieces), per_frame):
                for piece in pieces[start : start + per_frame]:
                    app.router.handle(TextDelta(session=session, text=piece))
                await settled(app)
                await after_refresh(app)
            cpu = time.process_time() - cpu0
            widgets = len(list(app.conversation.query("*")))
            return {"frames": -(-len(pieces) // per_frame), "ui_cpu_s": round(cpu, 2), "widgets_after": widgets,
                    **cost.result()}


def bench_frames(tokens: int = 20_000, rate: float = 2000, markdown: bool = False, profile: str | None = None) -> dict:
    from tests.fakellm.script import generated_words

    if markdown:  # as the stand-in streams it: 8 characters a chunk
        text = markdown_reply(tokens * 133 // 20)
        pieces = [text[i : i + 8] for i in range(0, len(text), 8)]
    else:
        pieces = generated_words(tokens)
    profiler = None
    if profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    out = asyncio.run(_frames(pieces, round(rate * 0.066)))  # tui/rendering.py's FLUSH_S
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(profile)
    return out


# -- esc --------------------------------------------------------------------------------------------
async def _esc(url: str, cwd: str) -> dict:
    from textual import events

    app = make_app(url, cwd)
    out: dict[str, float] = {}
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        for label, prompt, started in (
                ("during_bash", "bash please", lambda: app.router.running),
                ("during_stream", "stream please", lambda: app.router.status.activity == "writing")):
            app.prompt.set_text(prompt)
            await pilot.press("enter")
            while not started():
                await asyncio.sleep(0.005)
            await asyncio.sleep(0.3)
            t0 = time.perf_counter()
            app.post_message(events.Key("escape", None))
            while app.busy:
                await asyncio.sleep(0.001)
            out[f"esc_to_idle_ms_{label}"] = round(1000 * (time.perf_counter() - t0), 1)
            await settled(app)
            await pilot.press("ctrl+c")  # the interrupted prompt's queue comes back: clear it
    return out


def bench_esc() -> dict:
    turns = [{"match": "bash please", "calls": [{"name": "bash", "arguments": {"command": "sleep 30"}}]},
             {"match": "bash please", "text_tokens": 20000, "tokens_per_second": 2000}]
    server = Server(turns, loop=True)
    try:
        with tempfile.TemporaryDirectory() as cwd:
            os.environ["FLUE_HOME"] = str(Path(cwd) / "home")
            return asyncio.run(_esc(server.url, cwd))
    finally:
        server.close()


# -- soak -------------------------------------------------------------------------------------------
async def keystrokes(app, n: int) -> list[float]:
    from textual import events

    out = []
    for i in range(n):
        ch = "abcdefghij"[i % 10]
        before = app.prompt.text
        t0 = time.perf_counter()
        app.post_message(events.Key(ch, ch))
        while app.prompt.text == before:
            await asyncio.sleep(0)
        t1 = await after_refresh(app)
        out.append(1000 * (t1 - t0))
    app.prompt.set_text("")
    return out


async def _soak(url: str, cwd: str, turns: int) -> dict:
    app = make_app(url, cwd)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        base = await keystrokes(app, 100)
        rss = {0: round(rss_mb(), 1)}
        checkpoints = {turns // 4, turns // 2, 3 * turns // 4, turns}
        began = time.perf_counter()
        for turn in range(1, turns + 1):
            sent = len(app.session.messages)
            app.prompt.set_text(f"question {turn}: what is next?")
            await pilot.press("enter")
            while len(app.session.messages) < sent + 2:  # the question and its answer
                await asyncio.sleep(0.001)
            await settled(app)
            if turn in checkpoints:
                rss[turn] = round(rss_mb(), 1)
        elapsed = time.perf_counter() - began
        after = await keystrokes(app, 200)
        conv = app.conversation
        return {"turns": turns, "soak_s": round(elapsed, 1),
                "keystroke_ms_p50_before": round(pct(base, 50), 1), "keystroke_ms_p95_before": round(pct(base, 95), 1),
                "keystroke_ms_p50_after": round(pct(after, 50), 1), "keystroke_ms_p95_after": round(pct(after, 95), 1),
                "rss_mb": rss, "entries": len(app.transcript.entries),
                "mounted_entries": conv.hi - conv.lo, "widgets": len(list(conv.query("*")))}


def bench_soak(turns: int) -> dict:
    text = "Sure. Here is a short answer with `code` and **bold**.\n\nA second paragraph to make it two blocks."
    server = Server([{"text": text}], loop=True)
    try:
        with tempfile.TemporaryDirectory() as cwd:
            os.environ["FLUE_HOME"] = str(Path(cwd) / "home")
            return asyncio.run(_soak(server.url, cwd, turns))
    finally:
        server.close()


# -- quit: second Ctrl+C → process gone, flue vs a bare Textual app, in a pseudo-terminal ------------
BARE_QUIT_CHILD = r"""
from textual.app import App
from textual.binding import Binding
from textual.widgets import Static, TextArea

class Bare(App):
    BINDINGS = [Binding("ctrl+c", "quit", priority=True)]
    def compose(self):
        yield Static("hello")
        yield TextArea()

Bare().run()
"""


def _quit_once(argv: list[str], env: dict, cwd: str, presses: int, warm: str | None) -> float:
    import pexpect

    child = pexpect.spawn(argv[0], argv[1:], env=env, cwd=cwd, dimensions=(24, 80), encoding="utf-8",
                          codec_errors="replace")
    seen = ""
    deadline = time.monotonic() + (120 if warm else 3)
    while time.monotonic() < deadline and not (warm and warm in seen):
        try:
            seen += child.read_nonblocking(65536, timeout=0.05)
        except pexpect.TIMEOUT:
            pass
    for _ in range(presses - 1):
        child.send("\x03")
        time.sleep(0.2)
    t0 = time.perf_counter()
    child.send("\x03")
    child.expect(pexpect.EOF, timeout=60)
    took = time.perf_counter() - t0
    child.close()
    return took


def bench_quit(runs: int = 3) -> dict:
    server = Server([{"text": "hello there"}], loop=True)
    out: dict = {}
    try:
        with tempfile.TemporaryDirectory() as cwd:
            env = dict(os.environ, OPENAI_BASE_URL=server.url, OPENAI_API_KEY="sk-test", TERM="xterm-256color",
                       FLUE_HOME=str(Path(cwd) / "home"))
            flue = [sys.executable, "-m", "flue_tui", "--model", "openai/fake", "--no-session-persistence"]
            bare_all = [_quit_once([sys.executable, "-c", BARE_QUIT_CHILD], env, cwd, 1, None) for _ in range(runs)]
            # While litellm still loads in the background (quit ~1.5 s after start).
            loading = [_quit_once(flue, env, cwd, 2, None) for _ in range(runs)]
            # After litellm has loaded (the status bar's model was used by nothing yet: wait on a
            # marker that appears once the session is up, then give the import time to finish).
            loaded = []
            for _ in range(runs):
                loaded.append(_quit_once(flue + ["hi"], env, cwd, 2, "hello there"))
            b = statistics.median(bare_all)
            out = {"bare_textual_quit_ms_median": round(1000 * b),
                   "quit_ms_median_litellm_loading": round(1000 * statistics.median(loading)),
                   "quit_ms_median_after_a_reply": round(1000 * statistics.median(loaded)),
                   "quit_ratio_litellm_loading": round(statistics.median(loading) / b, 2),
                   "quit_ratio_after_a_reply": round(statistics.median(loaded) / b, 2)}
    finally:
        server.close()
    return out


# -- keystrokes while litellm loads in the background, flue vs a bare Textual app ---------------------
KEYS_CHILD = r"""
import asyncio, json, sys, time
sys.path.insert(0, sys.argv[2])
from bench.tui import keystrokes, after_refresh, pct

async def main():
    if sys.argv[1] == "bare":
        from textual.app import App
        from textual.widgets import Static, TextArea

        class Bare(App):
            def compose(self):
                yield Static("hello")
                yield TextArea(id="prompt")

        app = Bare()
        async with app.run_test(size=(120, 40)) as pilot:
            app.prompt = app.query_one(TextArea)
            app.prompt.set_text = app.prompt.load_text
            app.prompt.focus()
            await pilot.pause()
            lat = await keystrokes(app, 100)
            loading = False
    else:
        from flue_tui.config.settings import Settings
        from flue_tui.runtime.start import SessionOptions
        from flue_tui.tui.app import FlueApp
        from flue_tui.model.loader import is_loaded

        app = FlueApp(Settings.from_env(model="openai/fake", cwd=sys.argv[3]), sessions=SessionOptions(persist=False))
        async with app.run_test(size=(120, 40)) as pilot:
            while app.first_frame_at is None:
                await pilot.pause(0.002)
            lat = await keystrokes(app, 100)
            loading = not is_loaded()
    print(json.dumps({"p50": pct(lat, 50), "p95": pct(lat, 95), "litellm_still_loading": loading}))

asyncio.run(main())
"""


def bench_keys_while_loading() -> dict:
    out: dict = {}
    with tempfile.TemporaryDirectory() as cwd:
        env = dict(os.environ, OPENAI_BASE_URL="http://127.0.0.1:9/v1", OPENAI_API_KEY="sk-test",
                   FLUE_HOME=str(Path(cwd) / "home"))
        for which in ("bare", "flue"):
            proc = subprocess.run([sys.executable, "-c", KEYS_CHILD, which, str(ROOT), cwd], capture_output=True,
                                  text=True, env=env, cwd=ROOT, timeout=300)
            out[which] = json.loads(proc.stdout.strip().splitlines()[-1])
    f, b = out["flue"], out["bare"]
    return {"keystroke_ms_p50_while_litellm_loads": round(f["p50"], 1),
            "keystroke_ms_p95_while_litellm_loads": round(f["p95"], 1),
            "litellm_still_loading_after_100_keys": f["litellm_still_loading"],
            "bare_textual_keystroke_ms_p50": round(b["p50"], 1), "bare_textual_keystroke_ms_p95": round(b["p95"], 1),
            "keystroke_p50_ratio": round(f["p50"] / b["p50"], 2), "keystroke_p95_ratio": round(f["p95"] / b["p95"], 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", choices=("all", "first-frame", "quit", "keys", "stream", "frames", "esc", "soak"),
                        default="all")
    parser.add_argument("--turns", type=int, default=2000)
    parser.add_argument("--tokens", type=int, default=20_000)
    parser.add_argument("--markdown", action="store_true", help="stream: a Markdown-heavy reply")
    parser.add_argument("--profile", help="stream: write a cProfile of the app's run to this file")
    parser.add_argument("--relay", action="store_true", help="stream: the HTTP client in the relay's process")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results: dict[str, dict] = {}
    if args.part in ("all", "first-frame"):
        results["first_frame"] = bench_first_frame()
        ff = results["first_frame"]
        ff["first_frame_ratio"] = round(ff["first_frame_ms_median"] / ff["bare_textual_first_frame_ms_median"], 2)
        # CPU up to the frame: the wall ratio on an idle machine, steadier than wall on a loaded one.
        ff["first_frame_cpu_ratio"] = round(ff["first_frame_cpu_ms_median"] / ff["bare_textual_first_frame_cpu_ms_median"], 2)
        ff["entry_first_frame_ratio"] = round(ff["entry_first_frame_ms_median"] / ff["bare_textual_first_frame_ms_median"], 2)
        ff["entry_first_frame_cpu_ratio"] = round(
            ff["entry_first_frame_cpu_ms_median"] / ff["bare_textual_first_frame_cpu_ms_median"], 2)
        ff["loop_free_after_frame_cpu_ratio"] = round(
            ff["loop_free_after_frame_cpu_ms_median"] / ff["bare_textual_first_frame_cpu_ms_median"], 2)
    if args.part in ("all", "quit"):
        results["quit"] = bench_quit()
    if args.part in ("all", "keys"):
        results["keys_while_loading"] = bench_keys_while_loading()
    if args.part in ("all", "stream"):
        results["stream"] = bench_stream(args.tokens, markdown=args.markdown, profile=args.profile, relayed=args.relay)
    if args.part in ("all", "frames"):
        results["frames"] = bench_frames(args.tokens, markdown=args.markdown, profile=args.profile)
    if args.part in ("all", "esc"):
        results["esc"] = bench_esc()
    if args.part in ("all", "soak"):
        results["soak"] = bench_soak(args.turns)
    if args.json:
        print(json.dumps(results))
        return
    for part, values in results.items():
        print(f"{part}:")
        for key, value in values.items():
            print(f"  {key}: {value}")


if __name__ == "__main__":
    main()
