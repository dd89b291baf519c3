"""The relay (model/relay.py): the direct path's HTTP client in a process of its own. What it
must never do: lose a request without one clear sentence, keep a provider's stream open after
flue let go, outlive flue, hold a key in its environment, take a module from a cloned repository,
or let one stalled stream hold another. The hostile-provider and oracle suites run through it too
(tests/model/conftest.py's `either_side`)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from flue_tui.model import relay
from flue_tui.model.base import ModelError, TurnResponse
from flue_tui.model.clients import client_for
from flue_tui.model.direct_client import RELAY_ENDED
from tests.fakellm import Turn
from tests.model.test_direct_hostile import END, KEY, event

ROOT = Path(__file__).resolve().parents[2]


class Server:
    """An OpenAI-style stand-in whose streams stay open until told (`release`), recording how each
    ended and what each request's body hashed to."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.release = asyncio.Event()
        self.ended: list[str] = []  # "complete" or "dropped", one per request
        self.bodies: list[str] = []
        self.hold = True

    async def handle(self, request: web.Request) -> web.StreamResponse:
        self.bodies.append(hashlib.sha256(await request.read()).hexdigest())
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        try:
            await resp.write(event({"content": "first "}))
            if self.hold:
                for _ in range(600):  # a stream kept open, one event a tenth of a second
                    if self.release.is_set():
                        break
                    await asyncio.sleep(0.1)
                    await resp.write(event({"content": "more "}))
            await resp.write(END)
            await resp.write_eof()
            self.ended.append("complete")
        except (ConnectionError, RuntimeError):
            self.ended.append("dropped")
        return resp


@pytest.fixture
def server() -> Iterator[tuple[str, Server]]:
    s = Server()

    async def start() -> web.AppRunner:
        app = web.Application(client_max_size=64 << 20)
        app.router.add_post("/{tail:.*}", s.handle)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        return runner

    thread = threading.Thread(target=s.loop.run_forever, daemon=True)
    thread.start()
    runner = asyncio.run_coroutine_threadsafe(start(), s.loop).result(60)
    yield f"http://127.0.0.1:{runner.addresses[0][1]}/v1", s
    s.loop.call_soon_threadsafe(s.release.set)
    asyncio.run_coroutine_threadsafe(runner.cleanup(), s.loop).result(60)
    s.loop.call_soon_threadsafe(s.loop.stop)
    thread.join(10)


@pytest.fixture
def relayed() -> Iterator[relay.Relay]:
    relay.start("http://127.0.0.1/")
    running = relay.current()
    assert running is not None
    yield running
    relay.stop()


def _client(base: str) -> Any:
    return client_for("openai/gpt-4.1", api_base=base, api_key=KEY)


def _eventually(check: Any, what: str, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.05)


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state in ("Z", "X")  # a zombie has ended: only its parent's wait is left


async def _first_then(c: Any, then: Any) -> Any:
    """Run a turn; after its first text, call `then()`; return the turn's end or its ModelError."""
    try:
        async for item in c.stream_turn([{"role": "user", "content": "go"}], []):
            if then is not None and getattr(item, "text", None) == "first ":
                then()
                then = None
            if isinstance(item, TurnResponse):
                return item
    except ModelError as exc:
        return exc
    raise AssertionError("the turn ended without a response")


def test_a_relay_killed_mid_stream_is_one_sentence_and_the_next_turn_runs_here(server, relayed) -> None:
    base, s = server
    result = asyncio.run(_first_then(_client(base), lambda: os.kill(relayed.proc.pid, signal.SIGKILL)))
    assert isinstance(result, ModelError) and result.message == RELAY_ENDED  # not blamed on the provider
    assert result.retryable and "\n" not in result.message and KEY not in result.message
    assert relay.current() is None  # a dead relay is not asked again
    s.hold = False
    again = asyncio.run(_first_then(_client(base), None))
    assert isinstance(again, TurnResponse) and again.text == "first "


def test_letting_go_of_a_stream_closes_the_providers_connection(server, relayed) -> None:
    """Esc, a cut reply, an idle timeout: the relay must drop the provider's stream, not keep
    reading it for nobody (the stand-in's stream would run on for a minute)."""
    base, s = server

    async def stop_after_first() -> None:
        turn = _client(base).stream_turn([{"role": "user", "content": "go"}], [])
        async for item in turn:
            if getattr(item, "text", None) == "first ":
                break
        await turn.aclose()

    asyncio.run(stop_after_first())
    _eventually(lambda: s.ended == ["dropped"], "the stand-in's stream dropped")
    assert relay.current() is relayed  # and the relay lives on for the next request


def test_one_stalled_stream_does_not_hold_another(server, relayed) -> None:
    base, s = server

    async def both() -> Any:
        stalled = _client(base).stream_turn([{"role": "user", "content": "go"}], [])
        first = await stalled.__anext__()  # opened, then never read again
        assert getattr(first, "text", None) == "first "
        s.hold = False
        done = await _first_then(_client(base), None)
        await stalled.aclose()
        return done

    done = asyncio.run(both())
    assert isinstance(done, TurnResponse) and done.text == "first "


def test_a_large_request_body_arrives_whole(server, relayed) -> None:
    base, s = server
    s.hold = False
    big = "x" * (12 << 20)  # 12 MiB of prompt, past every frame of the reply's side
    c = _client(base)
    result = asyncio.run(_first_then_with(c, [{"role": "user", "content": big}]))
    assert isinstance(result, TurnResponse) and result.text == "first "
    _headers, payload = c._request([{"role": "user", "content": big}], [], None)
    assert s.bodies == [hashlib.sha256(payload).hexdigest()]


async def _first_then_with(c: Any, messages: list[dict[str, Any]]) -> Any:
    return [i async for i in c.stream_turn(messages, [])][-1]


@pytest.mark.parametrize("python", ["/nonexistent/python", "/bin/false"])
def test_a_relay_that_cannot_start_leaves_requests_here(server, monkeypatch, python: str) -> None:
    base, s = server
    s.hold = False
    monkeypatch.setattr(sys, "executable", python)
    relay.start("http://127.0.0.1/")  # never raises
    try:
        result = asyncio.run(_first_then(_client(base), None))
        assert isinstance(result, TurnResponse) and result.text == "first "
        assert relay.current() is None
    finally:
        relay.stop()


def test_flue_relay_off_keeps_every_request_here(monkeypatch) -> None:
    monkeypatch.setenv("FLUE_RELAY", "off")
    relay.start("http://127.0.0.1/")
    assert relay.current() is None


def test_a_frame_past_its_bound_is_refused_unread() -> None:
    async def read() -> Any:
        reader = asyncio.StreamReader()
        reader.feed_data(relay.FRAME.pack(b"D", relay.MAX_FRAME + 1))
        with pytest.raises(relay.RelayFailure) as caught:
            await relay._frame(reader)
        return caught.value

    assert asyncio.run(read()).kind == "transport"


def _parent(work: Path, script: str, **env: str) -> subprocess.Popen[str]:
    """A flue-like process in `work` that starts the relay and runs `script`."""
    code = textwrap.dedent(
        """
        import asyncio, os, sys, time
        from flue_tui.model import relay
        from flue_tui.model.clients import client_for
        relay.start(sys.argv[1])
        """
    ) + textwrap.dedent(script)
    full = {**os.environ, "PYTHONPATH": str(ROOT), **{k: v for k, v in env.items() if k != "BASE"}}
    return subprocess.Popen(
        [
            sys.executable,
            "-P",
            "-c",
            code,
            env.get("BASE", "http://127.0.0.1/"),
        ],  # -P: as the `flue` script, no cwd on the path
        cwd=work,
        env=full,
        stdout=subprocess.PIPE,
        text=True,
    )


def test_the_relay_ends_with_flue_even_by_sigkill(tmp_path: Path) -> None:
    proc = _parent(tmp_path, "print(relay.current().proc.pid, flush=True)\ntime.sleep(120)\n")
    assert proc.stdout is not None
    pid = int(proc.stdout.readline())
    assert not _gone(pid)
    proc.kill()
    proc.wait(30)
    _eventually(lambda: _gone(pid), "the relay gone after flue's SIGKILL")


def test_a_turn_through_the_relay_takes_nothing_from_a_cloned_repository(tmp_path: Path, fakellm) -> None:
    """httpx is never imported by flue's own process; the relay's environment holds no key; a
    repository's `httpx.py` (or any module) in the working directory is never run."""
    fakellm.script([Turn(text="Through the relay.")])
    marker = tmp_path / "ran"
    for name in ("httpx.py", "json.py", "flue_tui.py"):
        (tmp_path / name).write_text(f"open({str(marker)!r}, 'w').write('{name}')\n")
    proc = _parent(
        tmp_path,
        """
        try:  # unreadable once the relay has hardened itself (non-dumpable): the key is out of reach
            environ = open(f"/proc/{relay.current().proc.pid}/environ", "rb").read()
        except PermissionError:
            environ = b""
        c = client_for("openai/gpt-4.1", api_base=sys.argv[1])
        async def go():
            return [i async for i in c.stream_turn([{"role": "user", "content": "hi"}], [])][-1].text
        print(json.dumps({"text": asyncio.run(go()), "httpx": "httpx" in sys.modules,
                          "key": b"sk-relay-secret" in environ, "relayed": relay.current() is not None}))
        """.replace("json.dumps", "__import__('json').dumps"),
        BASE=fakellm.base_url,
        OPENAI_API_KEY="sk-relay-secret",
    )
    out, _ = proc.communicate(timeout=120)
    assert json.loads(out.splitlines()[-1]) == {
        "text": "Through the relay.",
        "httpx": False,
        "key": False,
        "relayed": True,
    }
    assert not marker.exists()


def test_a_stopped_relay_is_given_up_and_not_left_stopped(server, relayed) -> None:
    """SIGSTOP'd, it would hold every request until the idle timeout and, its control socket full,
    the event loop itself: the next request goes from here, and the relay is killed."""
    base, s = server
    s.hold = False
    assert relayed._wait_ready()
    os.kill(relayed.proc.pid, signal.SIGSTOP)
    # Stopped once the kernel has had it take the signal: a request handed over before that waits
    # for the idle timeout (as a relay stopped mid-request does); the next one is sent from here.
    _eventually(lambda: relay._stopped(relayed.proc.pid), "the relay stopped")
    try:
        result = asyncio.run(_first_then(_client(base), None))
        assert isinstance(result, TurnResponse) and result.text == "first "
        assert relay.current() is None
        _eventually(lambda: _gone(relayed.proc.pid) or relayed.proc.poll() is not None, "the stopped relay killed")
    finally:
        try:
            os.kill(relayed.proc.pid, signal.SIGCONT)
        except ProcessLookupError:
            pass


def test_a_stopped_relay_still_ends_with_flue(tmp_path: Path) -> None:
    """Stopped, it never reads its control socket's end: PDEATHSIG takes it along instead (set by
    its boot line, before it says it is ready)."""
    proc = _parent(
        tmp_path, "relay.current()._wait_ready()\nprint(relay.current().proc.pid, flush=True)\ntime.sleep(120)\n"
    )
    assert proc.stdout is not None
    pid = int(proc.stdout.readline())
    os.kill(pid, signal.SIGSTOP)
    proc.kill()
    proc.wait(30)
    try:
        _eventually(lambda: _gone(pid), "the stopped relay gone after flue's SIGKILL")
    finally:
        try:
            os.kill(pid, signal.SIGCONT)
        except ProcessLookupError:
            pass


def test_an_empty_pythonpath_entry_does_not_bring_the_repository_in(tmp_path: Path, fakellm) -> None:
    """`export PYTHONPATH=$PYTHONPATH:/x` with none set gives ":/x", whose empty entry is the
    working directory: the relay is given only the absolute entries."""
    fakellm.script([Turn(text="Through the relay.")])
    marker = tmp_path / "ran"
    (tmp_path / "httpx.py").write_text(f"open({str(marker)!r}, 'w').write('httpx')\n")  # flue itself never imports it
    proc = _parent(
        tmp_path,
        """
        c = client_for("openai/gpt-4.1", api_base=sys.argv[1])
        async def go():
            return [i async for i in c.stream_turn([{"role": "user", "content": "hi"}], [])][-1].text
        print(asyncio.run(go()), relay.current() is not None)
        """,
        BASE=fakellm.base_url,
        OPENAI_API_KEY="sk-relay-secret",
        PYTHONPATH=f":{ROOT}",
    )
    out, _ = proc.communicate(timeout=120)
    assert out.split()[-4:] == ["Through", "the", "relay.", "True"]
    assert not marker.exists()
