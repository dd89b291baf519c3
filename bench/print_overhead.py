"""`flue -p` against the scripted server versus a bare litellm script making the same streamed call.

Both run as fresh processes, alternately, so machine noise hits both alike. Also times
`flue --version` / `flue --help` (no litellm import on those paths). Run: uv run python bench/print_overhead.py
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fakellm import FakeLLM, Turn  # noqa: E402

BARE = """
import asyncio, os, sys
os.environ.update(LITELLM_MODE="PRODUCTION", LITELLM_OFFLINE_MODE="true", LITELLM_LOCAL_MODEL_COST_MAP="True")
import litellm
async def main():
    stream = await litellm.acompletion(model="openai/fake", messages=[{"role": "user", "content": "hi"}],
                                       stream=True, stream_options={"include_usage": True}, num_retries=0)
    async for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            sys.stdout.write(chunk.choices[0].delta.content)
    print()
asyncio.run(main())
"""


def timed(cmd: list[str], env: dict[str, str], cwd: str) -> float:
    began = time.perf_counter()
    out = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - began
    if out.returncode != 0:
        raise SystemExit(f"{cmd} failed: {out.stderr}")
    return elapsed


def main(rounds: int = 7) -> None:
    flue = shutil.which("flue") or str(Path(sys.executable).parent / "flue")
    with FakeLLM(loop_script=True) as llm, tempfile.TemporaryDirectory() as work:
        llm.script([Turn(text="Hello from the scripted model, a short answer.")])
        env = dict(os.environ, OPENAI_BASE_URL=llm.base_url, OPENAI_API_KEY="sk-bench", FLUE_HOME=work)
        flue_times, bare_times = [], []
        for _ in range(rounds):
            flue_times.append(timed([flue, "-p", "hi", "--model", "openai/fake"], env, work))
            bare_times.append(timed([sys.executable, "-c", BARE], env, work))
        version = [timed([flue, "--version"], env, work) for _ in range(rounds)]
        helps = [timed([flue, "--help"], env, work) for _ in range(rounds)]
    ratios = [f / b for f, b in zip(flue_times, bare_times, strict=True)]
    print(f"flue -p          median {statistics.median(flue_times) * 1000:8.0f} ms")
    print(f"bare litellm     median {statistics.median(bare_times) * 1000:8.0f} ms")
    print(f"ratio (median of per-round ratios) {statistics.median(ratios):.3f}   target <= 1.15")
    print(f"flue --version   median {statistics.median(version) * 1000:8.0f} ms   target <= 150 ms")
    print(f"flue --help      median {statistics.median(helps) * 1000:8.0f} ms   target <= 150 ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 7)
