"""What a `flue -p` turn costs after `import litellm`, piece by piece (CPU of this process).

    uv run python bench/first_call.py

Imports litellm the way flue does (not timed), then times: the first and second flue turn against
the scripted server (in its own process), and the work litellm does inside them that a run does not
need: loading tiktoken and counting the prompt's tokens for a cost estimate at stream start (every
turn, over the whole conversation), model-info lookups, and flue's own cost lookup per usage chunk.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def cpu_ms(fn: Callable[[], Any], repeat: int = 1) -> float:
    began = time.process_time()
    for _ in range(repeat):
        fn()
    return (time.process_time() - began) * 1000 / repeat


def conversation(chars: int) -> list[dict[str, str]]:
    """A coding-agent-like history of about `chars` characters (one ~4k-character message per turn)."""
    text = ("def handler(event):\n    return {'status': 200, 'body': event.get('path', '/')}\n" * 60)[:4000]
    out = [{"role": "system", "content": "You are a coding agent." * 40}]
    while sum(len(m["content"]) for m in out) < chars:
        out.append({"role": "user" if len(out) % 2 else "assistant", "content": text})
    return out


async def turns(url: str, n: int) -> list[float]:
    from flue_tui.model.litellm_client import LiteLLMClient

    client = LiteLLMClient("openai/fake", api_base=url, api_key="sk-bench")
    out = []
    for _ in range(n):
        began = time.process_time()
        async for _item in client.stream_turn([{"role": "user", "content": "hi"}], []):
            pass
        out.append((time.process_time() - began) * 1000)
    return out


def main() -> int:
    began = time.process_time()
    from flue_tui.model.loader import get_litellm

    litellm = get_litellm()
    print(f"import litellm (flue's get_litellm)         {(time.process_time() - began) * 1000:8.0f} ms CPU")
    script = ROOT / ".flue-bench" / "first_call.json"
    script.parent.mkdir(exist_ok=True)
    script.write_text('[{"text": "Hello from the scripted model, a short answer."}]')
    server = subprocess.Popen([sys.executable, "-m", "tests.fakellm", "--script", str(script), "--loop"],
                              cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip().removeprefix("FAKELLM_URL=")
        first, second, third = asyncio.run(turns(url, 3))
    finally:
        server.terminate()
        server.wait(10)
    print(f"first flue turn (short reply)               {first:8.1f} ms CPU")
    print(f"second / third turn                         {second:8.1f} / {third:.1f} ms CPU")
    print(f"first-call overhead (first - third)         {first - third:8.1f} ms CPU")

    # Below: each piece on its own, in a fresh state where it matters. The tiktoken load already
    # happened in the first turn above, so it is timed in a child process.
    load = subprocess.run([sys.executable, "-c", LOAD_TIKTOKEN], capture_output=True, text=True, cwd=ROOT)
    print(f"tiktoken cl100k load (first cost estimate)  {float(load.stdout.strip() or 'nan'):8.1f} ms CPU")
    small = [{"role": "user", "content": "hi"}]
    print(f"prompt token count, 1 short message         {cpu_ms(lambda: litellm.token_counter(model='openai/fake', messages=small), 50):8.2f} ms CPU per turn")
    for chars in (40_000, 400_000):
        conv = conversation(chars)
        ms = cpu_ms(lambda conv=conv: litellm.token_counter(model="openai/fake", messages=conv), 3)
        print(f"prompt token count, {chars // 1000:>3}k-character history    {ms:8.1f} ms CPU per turn")
    for model in ("openai/fake", "anthropic/claude-sonnet-4-5"):
        def info(model: str = model) -> None:
            try:
                litellm.get_model_info(model)
            except Exception:
                pass  # unmapped: the lookup still costs what it costs
        print(f"get_model_info({model:<28}) {cpu_ms(info, 200) * 1000:8.0f} µs per call")
        print(f"cost_per_token({model:<28}) "
              f"{cpu_ms(lambda m=model: _cost(litellm, m), 200) * 1000:8.0f} µs per call")
    return 0


def _cost(litellm: Any, model: str) -> None:
    try:
        litellm.cost_per_token(model=model, prompt_tokens=1000, completion_tokens=100)
    except Exception:
        pass


LOAD_TIKTOKEN = """
import os, time
os.environ.update(LITELLM_MODE="PRODUCTION", LITELLM_OFFLINE_MODE="true", LITELLM_LOCAL_MODEL_COST_MAP="True")
import litellm
began = time.process_time()
litellm.token_counter(model="openai/fake", messages=[{"role": "user", "content": "hi"}])
print((time.process_time() - began) * 1000)
"""


if __name__ == "__main__":
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
    raise SystemExit(main())
