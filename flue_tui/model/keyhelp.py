"""The one wording of "flue has no key for its model": `-p`, the CLI, the app and inline mode reuse it.

The same sentences either as one paragraph (`no_key_help`, for a one-line error on stderr) or one a
line (`no_key_lines`, the app's and inline mode's no-key screen). Plain text, no litellm: importing
it never loads the provider library.
"""

from __future__ import annotations

from flue_tui.core.providers import ROWS

_ADVISED = [row.key_var for row in ROWS if row.advised]
KEY_VARS_SHOWN = f"{', '.join(_ADVISED[:-1])} or {_ADVISED[-1]}"

# What else works without a hosted key; the same sentences under every no-key message.
ALTERNATIVES = (
    "For a local OpenAI-compatible server (llama.cpp, vLLM, LM Studio) set OPENAI_BASE_URL "
    "(e.g. http://localhost:8080/v1) and use --model openai/<name>.",
    "For Ollama pass --model ollama_chat/<model> (/model ollama_chat/<model> in the app; "
    "OLLAMA_HOST if it is not on localhost:11434).",
    "`flue doctor` checks the setup.",
)


def no_key_lines(model: str | None, var: str | None) -> list[str]:
    """Which key to set (or that no model is configured), then the alternatives: one sentence each."""
    if model and var:
        first = (
            f"No API key for {model}: set {var} (e.g. `export {var}=...`) "
            "or choose another model with --model provider/model (/model in the app)."
        )
    else:
        first = (
            f"No model configured: set {KEY_VARS_SHOWN} (or another provider's key), or pass --model provider/model."
        )
    return [first, *ALTERNATIVES]


def no_key_help(model: str | None, var: str | None) -> str:
    """The same as one paragraph."""
    return " ".join(no_key_lines(model, var))
