#!/usr/bin/env bash
# The GitHub Action's step (action.yml `exec`s it after installing flue): finds the Python that runs
# flue and becomes run.py on it. `exec`, never a child: this shell was started with the step's
# environment, keys included, and /proc/PID/environ shows a process's environment as it was at
# exec time whatever the shell unsets later; an ancestor of flue holding it there would hand the
# keys to every command the agent runs. run.py scrubs its own copy first thing. Runs the same
# outside GitHub (the tests do): set INPUT_* and GITHUB_OUTPUT (a file), with `flue` on PATH.
set -euo pipefail

here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
fail() {
    echo "flue action: $*" >&2
    exit 2
}

flue_bin=$(command -v flue) || fail "flue is not on PATH"
# flue's own interpreter (its entry point's #! line): run.py uses flue's procguard and redaction,
# so what is hidden from commands and what counts as a secret are decided in one place.
python="${FLUE_PYTHON:-}"
if [[ -z "$python" ]]; then
    IFS= read -r shebang <"$flue_bin" || true
    python=${shebang#\#!}
fi
[[ -x "$python" ]] || fail "cannot find the Python that runs $flue_bin (set FLUE_PYTHON)"
exec "$python" "$here/run.py" "$flue_bin"
