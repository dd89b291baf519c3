"""One row per model provider: what flue knows of it beyond what litellm does.

Every table keyed by a provider's name reads its row here: the variable holding its key
(model/keys.py), how an error names it (model/errors.py), the model picked when only its key is set
(config/settings.py), the host `flue doctor` reaches (cli/doctor.py), the no-key advice
(model/keyhelp.py). Adding a provider is one row, plus its wire under model/ if it has one of its
own. A provider without a row (litellm knows hundreds) keeps its key in `<PROVIDER>_API_KEY`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Provider:
    name: str  # litellm's prefix: the `openai` of `openai/gpt-4.1`
    label: str  # how a sentence names it: "OpenAI returned 429 ..."
    key_var: str = ""  # the one documented variable holding its key; "": `<NAME>_API_KEY` is assumed
    host: str = ""  # its public API, which `flue doctor` reaches; "" when it has no one address
    default_model: str = ""  # picked when no model is configured and only this key is set
    advised: bool = False  # named in the no-key advice's short list of keys to set


# Order matters twice: the first row whose key is set picks the default model, and the advised
# keys are listed in this order.
ROWS = (
    Provider(
        "anthropic",
        "Anthropic",
        "ANTHROPIC_API_KEY",
        "https://api.anthropic.com",
        "anthropic/claude-sonnet-4-5",
        advised=True,
    ),
    Provider("openai", "OpenAI", "OPENAI_API_KEY", "https://api.openai.com/v1", "openai/gpt-4.1", advised=True),
    Provider(
        "gemini",
        "Gemini",
        "GEMINI_API_KEY",
        "https://generativelanguage.googleapis.com",
        "gemini/gemini-2.5-pro",
        advised=True,
    ),
    Provider(
        "openrouter",
        "OpenRouter",
        "OPENROUTER_API_KEY",
        "https://openrouter.ai/api/v1",
        "openrouter/anthropic/claude-sonnet-4.5",
        advised=True,
    ),
    Provider("groq", "Groq", "GROQ_API_KEY"),
    Provider("mistral", "Mistral", "MISTRAL_API_KEY"),
    Provider("deepseek", "DeepSeek", "DEEPSEEK_API_KEY"),
    Provider("xai", "xAI", "XAI_API_KEY"),
    Provider("together_ai", "Together AI", "TOGETHERAI_API_KEY"),
    # Named in errors only: their credentials are litellm's to find (Ollama needs none).
    Provider("vertex_ai", "Vertex AI"),
    Provider("bedrock", "Bedrock"),
    Provider("azure", "Azure OpenAI"),
    Provider("ollama", "Ollama"),
    Provider("ollama_chat", "Ollama"),
)
BY_NAME = {row.name: row for row in ROWS}


def provider(name: str) -> Provider:
    """The row of `name`; a provider without one is named by its prefix."""
    row = BY_NAME.get(name)
    return row if row is not None else Provider(name, name.capitalize())


def key_var(name: str) -> str:
    """The variable that holds `name`'s key: its documented one, else `<NAME>_API_KEY`."""
    return provider(name).key_var or f"{name.upper()}_API_KEY"


KEYED = tuple(row for row in ROWS if row.key_var)  # the providers whose key variable is worth naming
