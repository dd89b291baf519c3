"""The app and inline mode with a direct-path model (openai/ against the stand-in): the first
prompt is answered and litellm is never imported. A real run in a pseudo-terminal; the child
writes the modules it ended with from an atexit handler (exit_now runs them)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.fakellm import Turn
from tests.inline.conftest import Term

# The child: `flue ARGS`, and at exit the names of the provider libraries it imported.
PROBE = """
import atexit, runpy, sys
out = sys.argv.pop(1)
def report():
    with open(out, "w") as f:
        f.write(" ".join(sorted({m.split(".")[0] for m in sys.modules} & {"litellm", "openai", "tiktoken"})) or "none")
atexit.register(report)
sys.argv[0] = "flue"
runpy.run_module("flue_tui", run_name="__main__")
"""


@pytest.mark.parametrize("transport", ["auto", "litellm"])
@pytest.mark.parametrize("mode", ["app", "inline"])
def test_a_direct_model_answers_without_loading_litellm(
    fakellm, flue_env, tmp_path: Path, mode: str, transport: str
) -> None:
    """FLUE_TRANSPORT=litellm is the control: the same run through litellm shows it loaded."""
    fakellm.script([Turn(text="Hello from the wire.")])
    report = tmp_path / "modules.txt"
    work = tmp_path / "work"
    work.mkdir()
    args = ["--inline"] if mode == "inline" else []
    env = {k: v for k, v in flue_env.items() if k != "NO_COLOR"}
    env["TERM"] = "xterm-256color"
    env["FLUE_TRANSPORT"] = transport
    term = Term(
        [sys.executable, "-c", PROBE, str(report), *args, "--model", "openai/fake", "say hello"],
        env=env,
        cwd=work,
        rows=30,
        cols=100,
    )
    try:
        term.wait_for("Hello from the wire.", timeout=120)  # generous: a loaded box
        if mode == "inline":
            term.wait(lambda t: "›" in term.prompt_line(), what="the prompt")
        term.send("/quit\r")
        assert term.exit_code() == 0
    finally:
        term.close()
    loaded = report.read_text().split()
    assert loaded == ["none"] if transport == "auto" else "litellm" in loaded
