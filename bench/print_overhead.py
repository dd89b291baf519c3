"""`flue -p` against the scripted server versus a bare litellm script making the same streamed call.

All run as fresh processes, alternately, so machine noise hits them alike: flue -p, a bare litellm
script, a bare `import litellm` and a minimal openai-SDK script doing the same request (wall time and
CPU, user+sys of the child). Also times `flue --version` / `flue --help` (no litellm import on those
paths). Run: uv run python bench/print_overhead.py [rounds]
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fakellm import FakeLLM, Turn

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

IMPORT_ONLY = """
import os
os.environ.update(LITELLM_MODE="PRODUCTION", LITELLM_OFFLINE_MODE="true", LITELLM_LOCAL_MODEL_COST_MAP="True")
import litellm
"""

OPENAI_SDK = """
import asyncio, os, sys
import openai
async def main():
    client = openai.AsyncOpenAI(base_url=os.environ["OPENAI_BASE_URL"], max_retries=0)
    stream = await client.chat.completions.create(model="fake", messages=[{"role": "user", "content": "hi"}],
                                                  stream=True, stream_options={"include_usage": True})
    async for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            sys.stdout.write(chunk.choices[0].delta.content)
    print()
asyncio.run(main())
"""

CPU: dict[str, list[float]] = {}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(cmd: list[str], env: dict[str, str], cwd: str, label: str = "") -> float:
    cpu = _children_cpu()
    began = time.perf_counter()
    out = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - began
    if label:
        CPU.setdefault(label, []).append(_children_cpu() - cpu)
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
            flue_times.append(timed([flue, "-p", "hi", "--model", "openai/fake"], env, work, "flue -p"))
            bare_times.append(timed([sys.executable, "-c", BARE], env, work, "bare litellm"))
            timed([sys.executable, "-c", IMPORT_ONLY], env, work, "import litellm")
            timed([sys.executable, "-c", OPENAI_SDK], env, work, "openai SDK")
        version = [timed([flue, "--version"], env, work) for _ in range(rounds)]
        helps = [timed([flue, "--help"], env, work) for _ in range(rounds)]
    ratios = [f / b for f, b in zip(flue_times, bare_times, strict=True)]
    print(f"flue -p          median {statistics.median(flue_times) * 1000:8.0f} ms")
    print(f"bare litellm     median {statistics.median(bare_times) * 1000:8.0f} ms")
    print(f"ratio (median of per-round ratios) {statistics.median(ratios):.3f}   target <= 1.15")
    cpu = {label: statistics.median(values) for label, values in CPU.items()}
    for label, value in cpu.items():
        print(f"CPU {label:<16} median {value * 1000:8.0f} ms")
    for label in ("import litellm", "bare litellm", "openai SDK"):
        print(f"CPU ratio flue -p / {label:<16} {cpu['flue -p'] / cpu[label]:.2f}")
    print(f"flue --version   median {statistics.median(version) * 1000:8.0f} ms   target <= 150 ms")
    print(f"flue --help      median {statistics.median(helps) * 1000:8.0f} ms   target <= 150 ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 7)
