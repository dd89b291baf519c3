"""The one place where concrete parts are wired together for a run."""

from __future__ import annotations

from flue_tui.agent.prompt import compose_system_prompt
from flue_tui.agent.session import Session
from flue_tui.config import ConfigError, Settings


def build_session(settings: Settings) -> Session:
    from flue_tui.model.litellm_client import LiteLLMClient
    from flue_tui.sandbox.local import LocalSandbox
    from flue_tui.tools import builtin_tools

    if not settings.model:
        raise ConfigError(
            "No model configured: set ANTHROPIC_API_KEY or OPENAI_API_KEY (or another provider's key), "
            "or pass --model provider/model.")
    sandbox = LocalSandbox(settings.cwd, env=dict(settings.extra_env) or None)
    model = LiteLLMClient(settings.model, api_base=settings.api_base)
    return Session(model=model, tools=builtin_tools(sandbox), system_prompt=compose_system_prompt(settings.cwd),
                   cwd=settings.cwd, max_turns=settings.max_turns, retry_base_ms=settings.retry_base_ms)
