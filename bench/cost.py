"""What prompt caching saves: a 40-turn Anthropic session through `flue -p`, caching on vs off.

The session (issue 14): system prompt + tools ~6k tokens, the context growing ~3k tokens per turn
(~400 output tokens plus a ~2.6k-token tool result), 40 model turns. It runs through the real CLI
and litellm against the strict Anthropic stand-in (tests/fakellm/anthropic.py), which counts its
prompt cache the way the API does; the cost is the json result's `total_cost_usd`, priced by
litellm's map for claude-sonnet-4-5. Run: uv run python bench/cost.py  (target: ratio >= 4)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fakellm import Call, FakeAnthropic, Turn
from tests.fakellm.script import generated_words

TURNS = 40
PREFIX_TOKENS = 6000
OUTPUT_TOKENS = 400
RESULT_TOKENS = 2600
MODEL = "anthropic/claude-sonnet-4-5"


def script(files: list[str]) -> list[Turn]:
    words = "".join(generated_words(OUTPUT_TOKENS * 4 // 6))  # ~4 characters a token in the stand-in
    turns = [Turn(text=words, calls=[Call("read", {"path": path})]) for path in files]
    return [*turns, Turn(text=words)]


def run(work: Path, llm: FakeAnthropic, cache: bool, pad: str) -> dict:
    files = []
    for n in range(TURNS - 1):
        path = work / f"notes_{n:02d}.txt"
        lines = [" ".join(generated_words(12, after="x"))[:70] + f" {n}.{i}" for i in range(RESULT_TOKENS * 4 // 80)]
        path.write_text("\n".join(lines) + "\n")
        files.append(str(path))
    llm.script(script(files))
    env = dict(os.environ, ANTHROPIC_API_BASE=llm.base_url, ANTHROPIC_API_KEY="sk-ant-bench",
               FLUE_HOME=str(work / "home"), FLUE_PROMPT_CACHE="true" if cache else "false")
    for var in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "FLUE_MODEL"):
        env.pop(var, None)
    proc = subprocess.run([sys.executable, "-m", "flue_tui", "-p", "read the notes one by one", "--model", MODEL,
                           "--output-format", "json", "--max-turns", str(TURNS + 5), "--append-system-prompt", pad],
                          capture_output=True, text=True, cwd=work, env=env, timeout=900)
    if proc.returncode != 0 or llm.rejections:
        raise SystemExit(f"run failed ({proc.returncode}): {proc.stderr[-2000:]} {llm.rejections[:1]}")
    return json.loads(proc.stdout)


def prefix_tokens(work: Path, llm: FakeAnthropic) -> int:
    """How big flue's own system prompt and tools are, from one short calibration request."""
    llm.script(Turn(text="ok"))
    env = dict(os.environ, ANTHROPIC_API_BASE=llm.base_url, ANTHROPIC_API_KEY="sk-ant-bench",
               FLUE_HOME=str(work / "home"))
    subprocess.run([sys.executable, "-m", "flue_tui", "-p", "hi", "--model", MODEL], capture_output=True,
                   cwd=work, env=env, timeout=300, check=True)
    usage = llm.usages[-1]
    return usage["input_tokens"] + usage["cache_read_input_tokens"] + usage["cache_creation_input_tokens"]


def main() -> int:
    results = {}
    for cache in (False, True):
        with tempfile.TemporaryDirectory() as tmp, FakeAnthropic() as llm:
            work = Path(tmp)
            own = prefix_tokens(work, llm)
            # Pad flue's own prefix up to the issue's ~6k-token stable prefix.
            missing = max(0, PREFIX_TOKENS - own)
            pad = " ".join(generated_words(missing))[: missing * 4]  # the stand-in counts 4 characters a token
            results[cache] = run(work, llm, cache, pad)
            usages = llm.usages[1:]
            first = usages[0]
            prefix = first["input_tokens"] + first["cache_read_input_tokens"] + first["cache_creation_input_tokens"]
        label = "on " if cache else "off"
        obj = results[cache]
        u = obj["usage"]
        print(f"caching {label}: ${obj['total_cost_usd']:.2f} over {obj['num_turns']} turns "
              f"(input {u['input_tokens']:,}, cache read {u['cache_read_input_tokens']:,}, "
              f"cache write {u['cache_creation_input_tokens']:,}, output {u['output_tokens']:,}; "
              f"first prompt {prefix:,} tokens, last "
              f"{sum(usages[-1][k] for k in ('input_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens')):,})")
    ratio = results[False]["total_cost_usd"] / results[True]["total_cost_usd"]
    print(f"caching saves: ratio {ratio:.1f}x cheaper (target >= 4)")
    return 0 if ratio >= 4 else 1


if __name__ == "__main__":
    raise SystemExit(main())
