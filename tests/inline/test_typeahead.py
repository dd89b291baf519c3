"""Keys typed while inline mode is busy outside a model turn (here `/undo` restoring files) wait,
unechoed, for the next prompt, and their Enter sends them. Before, the terminal was left in its
cooked mode there: the text was echoed into the output and Enter arrived as Ctrl+J, a newline in
the prompt, so the message was never sent (seen as a CI timeout when the machine was slow)."""

from __future__ import annotations

import shutil
import stat
from pathlib import Path

from tests.fakellm import Turn
from tests.inline.conftest import CTRL_C

SLOW_S = 120.0


def _held_git(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A `git` for the checkpoint store (FLUE_GIT) that waits while `hold` exists, saying so in `waiting`."""
    hold, waiting, wrapper = tmp_path / "hold", tmp_path / "waiting", tmp_path / "git-held"
    real = shutil.which("git")
    assert real is not None
    wrapper.write_text(
        "#!/bin/sh\n"
        f'if [ -e "{hold}" ]; then : > "{waiting}"; while [ -e "{hold}" ]; do sleep 0.05; done; fi\n'
        f'exec "{real}" "$@"\n'
    )
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    return hold, waiting, wrapper


def test_a_prompt_typed_during_a_slow_command_is_sent_whole(inline, fakellm, work: Path, tmp_path: Path):
    hold, waiting, git = _held_git(tmp_path)
    fakellm.script([Turn(text="Got the typed-ahead message.")])
    term = inline(env={"FLUE_GIT": str(git)})
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt", timeout=SLOW_S)
    term.send("!echo made > made.txt\r")
    term.wait_for("exit 0", timeout=SLOW_S)
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt again")

    hold.touch()
    term.send("/undo\r")
    term.wait(lambda t: waiting.exists(), what="/undo waiting on git", timeout=SLOW_S)
    term.send("typed while undoing\r")  # /undo is still running: the prompt is not reading
    hold.unlink()
    term.wait_for("Files are back", timeout=SLOW_S)
    term.wait_for("Got the typed-ahead message.", timeout=SLOW_S)
    assert fakellm.requests[-1]["messages"][-1]["content"] == "typed while undoing"
    assert not (work / "made.txt").exists()
    # Shown once, as a prompt line, never echoed raw into the output.
    shown = [ln for ln in term.lines() if "typed while undoing" in ln]
    assert shown and all(ln.startswith("›") for ln in shown), term.text()
    term.send(CTRL_C)
    term.send(CTRL_C)
    assert term.exit_code() == 0
