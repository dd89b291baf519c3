"""Settings and their precedence; where files live is config/paths.py's to say."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from flue_tui.config.errors import ConfigError
from flue_tui.core.providers import ROWS

if TYPE_CHECKING:
    from flue_tui.config.project import Held
    from flue_tui.config.trust import Snapshot

# With no model configured, the first provider whose key is set picks the default.
DEFAULT_MODELS = tuple((row.key_var, row.default_model) for row in ROWS if row.default_model)


def default_model() -> str | None:
    """The lowest layer: a sensible model for whichever provider key is set, else a local server."""
    for var, model in DEFAULT_MODELS:
        if os.environ.get(var):
            return model
    if os.environ.get("OPENAI_BASE_URL"):
        return "openai/default"
    return ollama_model()


def ollama_model(url: str | None = None, timeout: float = 0.3) -> str | None:
    """The first model of an Ollama server on localhost, if one answers at once."""
    import json
    import urllib.request

    from flue_tui.config.endpoints import base_url

    base = url or base_url()
    try:
        with urllib.request.urlopen(f"{base.rstrip('/')}/api/tags", timeout=timeout) as response:
            models = json.load(response).get("models") or []
    except (OSError, ValueError):
        return None
    names = [m.get("name") for m in models if isinstance(m, dict) and m.get("name")]
    return f"ollama_chat/{names[0]}" if names else None


@dataclass(frozen=True, slots=True)
class Settings:
    """One run's settings, a value: a change while flue runs (/model, /effort, /mode, trusting the
    project) is a SessionHandle method that replaces them (runtime/handle.py), never a mutation."""

    model: str | None = None
    cwd: str = field(default_factory=os.getcwd)
    max_turns: int | None = None
    api_base: str | None = None
    # Flue's retry back-off base (2 s); tunable so tests of the retry path stay fast.
    retry_base_ms: float = 2000.0
    extra_env: dict[str, str] = field(default_factory=dict)
    system_prompt_file: str | None = None
    system_prompt: str | None = None  # --system-prompt TEXT (Claude Code's; "" means no built-in instructions)
    append_system_prompt: str | None = None
    # Permissions (flue_tui/permissions): None means the config files' mode, else ask (in `flue -p`
    # too, where what would ask is refused); `interactive` is the app, inline, --plain and ACP.
    permission_mode: str | None = None
    interactive: bool = False
    allowed_tools: list[str] = field(default_factory=list)
    disallowed_tools: list[str] = field(default_factory=list)
    # --tools: the built-in tools offered (None: all), in every front end and to every sub-agent.
    tools: frozenset[str] | None = None
    # --fallback-model: the root session's model when the main one is overloaded or unavailable.
    fallback_model: str | None = None
    sandbox: str = "local"  # "local" (Flue's local()) or "workspace" (contained, bubblewrap)
    allow_network: bool = False
    add_dirs: list[str] = field(default_factory=list)
    setting_sources: tuple[str, ...] | None = (
        None  # --setting-sources user,project,local (None: all)  # --add-dir: more roots for --sandbox workspace
    )
    auto_compact: bool = True
    compaction_model: str | None = None
    # Overrides the model's context window (litellm's map knows nothing of local models).
    context_window: int | None = None
    # Thinking (off/low/medium/high, through litellm's reasoning_effort) and the reply limit.
    effort: str | None = None
    max_output_tokens: int | None = None
    # Anthropic-served models get cache breakpoints (flue_tui/model/caching.py) unless this is off.
    prompt_cache: bool = True
    # Which path model requests take (model/route.py): "auto", or "litellm" for every model.
    transport: str = "auto"
    # USD per million tokens, for a model litellm cannot price (or to override its price).
    input_price: float | None = None
    output_price: float | None = None
    max_budget_usd: float | None = None
    # Provider-fault bounds: seconds without a chunk before a request is retried, and the most
    # characters one reply may stream before it is cut like an output-limit cut.
    idle_timeout: float = 120.0
    max_reply_chars: int = 2_000_000
    json_schema: dict | None = None
    # A turn's end is announced (OSC 9 + BEL, ui/notify.py) when the user looks elsewhere.
    notify: bool = True
    ui_mode: str = "tui"  # "tui", "inline" or "plain"
    theme: str | None = None
    # Where each configured value came from (for `flue doctor`): key -> file path or "environment".
    sources: dict[str, str] = field(default_factory=dict)
    # The project's .flue/config.toml may loosen protection only once trusted (config/project.py):
    # --trust-project for this run, or trust stored when the user said yes.
    trust_project: bool = False
    project_trusted: bool = False
    # The project file as read once for the trust decision: what applies is parsed from these bytes.
    project_read: Snapshot | None = None
    project_held: list[Held] = field(default_factory=list)  # loosening [env] waiting for trust
    project_never: list[str] = field(default_factory=list)  # [env] names never taken from a project
    # A config file that could not be read, skipped (config/files.Unreadable): one sentence each.
    skipped_files: tuple[str, ...] = ()
    # MCP servers (flue_tui/mcp): --mcp-config files or JSON; --strict-mcp-config uses only those.
    mcp_config: list[str] = field(default_factory=list)
    strict_mcp_config: bool = False
    settings_hooks: dict | None = None  # --settings' "hooks" object (flue_tui/hooks/config.py checks it)
    # --settings' permission rules {"allow"|"deny"|"ask": [...]}, Claude Code's syntax (permissions/claude.py)
    settings_permissions: dict | None = None
    sdk_hooks: bool = False  # --input-format stream-json: the Agent SDK may register hooks at initialize
    overrides: dict[str, object] = field(default_factory=dict)  # the flags, so reloaded() can re-read the files

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        """defaults < ~/.config/flue/config.toml < .flue/config.toml < FLUE_* environment < flags."""
        from flue_tui.config import trust
        from flue_tui.config.files import layers, reads
        from flue_tui.config.project import PROJECT_CONFIG

        values: dict[str, object] = {}
        cwd = str(overrides.get("cwd") or os.getcwd())
        from flue_tui.config.text import utf8_text

        # The model is told where it works, and sessions are stored by directory: a name that is not
        # UTF-8 cannot be sent or stored, so it stops the start in one sentence, not the first turn.
        utf8_text(f"The working directory {os.fsencode(cwd).decode('utf-8', 'replace')}", cwd)
        if not os.path.isdir(cwd):
            if os.path.exists(cwd):
                raise ConfigError(f"Working directory is not a directory: {cwd}")
            raise ConfigError(f"Working directory does not exist: {cwd}")
        setting_sources = overrides.get("setting_sources")  # --setting-sources: which files are read
        chosen = tuple(setting_sources) if isinstance(setting_sources, (list, tuple)) else None
        # Read once: the bytes judged trusted are the bytes parsed (config, permissions, pending).
        project = trust.read(cwd, PROJECT_CONFIG) if reads(chosen, "project") else None
        trusted = bool(overrides.get("trust_project")) or (project is not None and project.state == "trusted")
        held: list[Held] = []
        never: list[str] = []
        extra_env: dict[str, str] = {}
        sources: dict[str, str] = {}
        skipped: list[str] = []
        for layer in layers(cwd, trusted=trusted, sources=chosen, project_read=project):
            if layer.skipped is not None:
                skipped.append(layer.skipped)
            held.extend(layer.held)
            never.extend(layer.never)
            for key, value in layer.values.items():
                attr = {"env": "extra_env", "ui.mode": "ui_mode", "ui.theme": "theme"}.get(key, key)
                if attr == "extra_env":
                    extra_env = {**extra_env, **value}
                    value = extra_env
                values[attr] = value
                sources[key] = layer.source
        if os.environ.get("FLUE_RETRY_BASE_MS"):
            try:
                values["retry_base_ms"] = float(os.environ["FLUE_RETRY_BASE_MS"])
            except ValueError:
                raise ConfigError("FLUE_RETRY_BASE_MS must be a number of milliseconds.") from None
        for key, value in overrides.items():
            if value is not None:
                values[key] = value
                sources[key] = "flag"
        values["cwd"] = os.path.abspath(str(values.get("cwd") or cwd))
        if values.get("model") is None:
            values["model"] = default_model()
        unknown = set(values) - set(cls.__dataclass_fields__)
        if unknown:  # what setattr on a slotted instance refused before: a programming error, not input
            raise AttributeError(f"Settings has no field {sorted(unknown)[0]!r}")
        return cls(
            **values,  # type: ignore[arg-type]  # checked above: only Settings' own fields
            overrides=dict(overrides),
            project_trusted=trusted,
            project_read=project,
            project_held=held,
            project_never=never,
            skipped_files=tuple(skipped),
            sources=sources,
        )

    def reloaded(self) -> Settings:
        """The files read again with the same flags (after the user trusted the project)."""
        return Settings.from_env(**self.overrides)
