#!/usr/bin/env bash
# The GitHub Action's work (action.yml calls it after installing flue): `flue -p` with the inputs,
# then the step outputs and the exported session. Inputs arrive as INPUT_* variables and are only
# ever passed as single arguments, never spliced into shell text, so a prompt with quotes, `$(…)`
# or newlines stays a prompt. Runs the same outside GitHub (the tests do): set INPUT_* and
# GITHUB_OUTPUT (a file), with `flue` on PATH.
set -euo pipefail

here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
fail() {
    echo "flue action: $*" >&2
    exit 2
}

[[ -n "${GITHUB_OUTPUT:-}" ]] || fail "GITHUB_OUTPUT is not set (a file the step outputs are written to)"
[[ -n "${INPUT_PROMPT//[[:space:]]/}" ]] || fail "the prompt input is empty"
flue_bin=$(command -v flue) || fail "flue is not on PATH"
# The interpreter flue runs on (its entry point's #! line): the output helper uses flue's own
# redaction, so what counts as a secret is decided in one place.
python="${FLUE_PYTHON:-}"
if [[ -z "$python" ]]; then
    IFS= read -r shebang <"$flue_bin" || true
    python=${shebang#\#!}
fi
[[ -x "$python" ]] || fail "cannot find the Python that runs $flue_bin (set FLUE_PYTHON)"

temp="${RUNNER_TEMP:-${TMPDIR:-/tmp}}"
# The job's sessions and config live apart from anything on the runner, unless the workflow chose.
export FLUE_HOME="${FLUE_HOME:-$temp/flue-home}"
mkdir -p -- "$FLUE_HOME"
cd -- "${INPUT_WORKING_DIRECTORY:-.}" || fail "working-directory does not exist: ${INPUT_WORKING_DIRECTORY:-.}"

args=(-p "$INPUT_PROMPT" --output-format json)
[[ -n "${INPUT_MODEL:-}" ]] && args+=(--model "$INPUT_MODEL")
[[ -n "${INPUT_PERMISSION_MODE:-}" ]] && args+=(--permission-mode "$INPUT_PERMISSION_MODE")
[[ -n "${INPUT_ALLOWED_TOOLS:-}" ]] && args+=(--allowed-tools "$INPUT_ALLOWED_TOOLS")
[[ -n "${INPUT_MAX_BUDGET_USD:-}" ]] && args+=(--max-budget-usd "$INPUT_MAX_BUDGET_USD")
[[ -n "${INPUT_SESSION:-}" ]] && args+=(--session "$INPUT_SESSION")
result_file="$temp/flue-result-$$.json"
if [[ -n "${INPUT_ARGS:-}" ]]; then # split as a shell would, without running anything
    "$python" "$here/outputs.py" split "$INPUT_ARGS" >"$result_file" || exit 2
    while IFS= read -r -d '' word; do args+=("$word"); done <"$result_file"
fi
status=0
flue "${args[@]}" </dev/null >"$result_file" || status=$?

# Export the run's session (redacted by `flue sessions export`) for upload-artifact, then write
# the outputs (redacted again by the helper). The session id is flue's own, checked before use.
session_file=""
session_id=$("$python" "$here/outputs.py" session-id "$result_file")
if [[ -n "$session_id" ]]; then
    session_file="$temp/flue-session-$session_id.json"
    rm -f -- "$session_file"
    if ! flue sessions export "$session_id" --format json -o "$session_file" >/dev/null; then
        echo "flue action: the session $session_id could not be exported" >&2
        session_file=""
    fi
fi
"$python" "$here/outputs.py" write "$result_file" "$session_file" "$status" >>"$GITHUB_OUTPUT"
rm -f -- "$result_file"
exit "$status"
