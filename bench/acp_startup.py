"""`flue --acp` start-up against `flue -p`, on the same prompt and scripted server, in the same run.

    uv run python bench/acp_startup.py [ROUNDS]

Per round, alternating: wall time from process start to (a) the `initialize` answer and (b) the
first `agent_message_chunk` of a one-prompt session (raw JSON-RPC lines, no client library in the
way); and for `flue -p --output-format stream-json --include-partial-messages`, to (a) its first
line (the init message) and (b) its first text delta. Prints medians and the ACP/print ratios.
"""

from __future__ import annotations

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
FLUE = str(Path(sys.executable).with_name("flue"))
PROMPT = "Say hello."


def _env(url: str, home: str) -> dict[str, str]:
    return {**os.environ, "OPENAI_BASE_URL": url, "OPENAI_API_KEY": "sk-bench", "FLUE_HOME": home}


def acp_round(url: str, home: str, cwd: str) -> tuple[float, float]:
    began = time.perf_counter()
    proc = subprocess.Popen(
        [FLUE, "--acp", "--model", "openai/fake", "--no-session-persistence"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=_env(url, home),
        cwd=cwd,
    )
    assert proc.stdin is not None and proc.stdout is not None

    def send(obj: dict) -> None:
        proc.stdin.write((json.dumps(obj) + "\n").encode())  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]

    def answer(request_id: int) -> dict:
        while True:
            msg = json.loads(proc.stdout.readline())  # type: ignore[union-attr]
            if msg.get("id") == request_id and "method" not in msg:
                return msg

    send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}})
    answer(0)
    initialized = time.perf_counter() - began
    send({"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": cwd, "mcpServers": []}})
    sid = answer(1)["result"]["sessionId"]
    prompt = [{"type": "text", "text": PROMPT}]
    send({"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": {"sessionId": sid, "prompt": prompt}})
    chunk = 0.0
    while True:
        msg = json.loads(proc.stdout.readline())
        update = (msg.get("params") or {}).get("update") or {}
        if update.get("sessionUpdate") == "agent_message_chunk" and not chunk:
            chunk = time.perf_counter() - began
        if msg.get("id") == 2:
            break
    proc.stdin.close()
    proc.wait(60)
    return initialized, chunk


def cancel_latency(url: str, home: str, cwd: str) -> float:
    """session/cancel during a stream the server holds: seconds until the prompt answers."""
    proc = subprocess.Popen(
        [FLUE, "--acp", "--model", "openai/fake", "--no-session-persistence"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=_env(url, home),
        cwd=cwd,
    )
    assert proc.stdin is not None and proc.stdout is not None

    def send(obj: dict) -> None:
        proc.stdin.write((json.dumps(obj) + "\n").encode())  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]

    def read() -> dict:
        return json.loads(proc.stdout.readline())  # type: ignore[union-attr]

    send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}})
    while read().get("id") != 0:
        pass
    send({"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": cwd, "mcpServers": []}})
    while (msg := read()).get("id") != 1:
        pass
    sid = msg["result"]["sessionId"]
    prompt = [{"type": "text", "text": "hold"}]
    send({"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": {"sessionId": sid, "prompt": prompt}})
    while ((read().get("params") or {}).get("update") or {}).get("sessionUpdate") != "agent_message_chunk":
        pass
    began = time.perf_counter()
    send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": sid}})
    while (msg := read()).get("id") != 2:
        pass
    took = time.perf_counter() - began
    assert msg["result"]["stopReason"] == "cancelled", msg
    proc.stdin.close()
    proc.wait(60)
    return took


def print_round(url: str, home: str, cwd: str) -> tuple[float, float]:
    began = time.perf_counter()
    proc = subprocess.Popen(
        [
            FLUE,
            "-p",
            PROMPT,
            "--model",
            "openai/fake",
            "--no-session-persistence",
            "--output-format",
            "stream-json",
            "--include-partial-messages",
            "--verbose",
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=_env(url, home),
        cwd=cwd,
    )
    assert proc.stdout is not None
    first = delta = 0.0
    for line in proc.stdout:
        now = time.perf_counter() - began
        first = first or now
        msg = json.loads(line)
        event = msg.get("event") or {}
        if msg.get("type") == "stream_event" and (event.get("delta") or {}).get("type") == "text_delta":
            delta = delta or now
    proc.wait(60)
    return first, delta


def main() -> int:
    from tests.fakellm import FakeLLM, Turn

    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    acp: list[tuple[float, float]] = []
    printed: list[tuple[float, float]] = []
    with tempfile.TemporaryDirectory() as tmp, FakeLLM() as llm:
        llm.script(
            [
                Turn(match="hold", text="word " * 40, stall_after=4, stall=60),
                Turn(text="Hello from the scripted model, a short answer.", repeat=2 * rounds + 2),
            ]
        )
        home, cwd = os.path.join(tmp, "home"), os.path.join(tmp, "work")
        os.makedirs(home), os.makedirs(cwd)
        acp_round(llm.base_url, home, cwd)  # warm the disk cache for both
        for _ in range(rounds):
            printed.append(print_round(llm.base_url, home, cwd))
            acp.append(acp_round(llm.base_url, home, cwd))
        cancelled = cancel_latency(llm.base_url, home, cwd)
    sdk = subprocess.run(
        [
            sys.executable,
            "-c",
            "import time; t = time.perf_counter(); import acp.agent.connection; print(time.perf_counter() - t)",
        ],
        capture_output=True,
        text=True,
    )
    a_init, a_chunk = (statistics.median(x) for x in zip(*acp, strict=True))
    p_init, p_chunk = (statistics.median(x) for x in zip(*printed, strict=True))
    print(f"rounds: {rounds} (medians, wall clock)")
    print(f"flue --acp: start → initialize answered     {a_init * 1000:8.0f} ms")
    print(f"flue -p:    start → first line (init)        {p_init * 1000:8.0f} ms")
    print(f"ratio acp/print, first answer                {a_init / p_init:8.2f}")
    print(f"flue --acp: start → first agent_message_chunk {a_chunk * 1000:7.0f} ms")
    print(f"flue -p:    start → first text delta          {p_chunk * 1000:7.0f} ms")
    print(f"ratio acp/print, first text                  {a_chunk / p_chunk:8.2f}")
    print(
        f"import of the ACP SDK alone (fresh process)   {float(sdk.stdout or 'nan') * 1000:7.0f} ms (most of the difference)"
    )
    print(f"session/cancel mid-stream → cancelled answer {cancelled * 1000:8.1f} ms (target 250 ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
