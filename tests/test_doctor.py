"""`flue doctor` against a healthy setup and a broken one."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

from flue_tui.cli.doctor import run_doctor
from flue_tui.config.settings import ollama_model
from flue_tui.model.relay import RELAYED


def checks(capsys, *argv: str) -> tuple[int, dict[str, list[dict]]]:
    code = run_doctor(["--json", "--timeout", "2", *argv])
    by_name: dict[str, list[dict]] = {}
    for item in json.loads(capsys.readouterr().out):
        by_name.setdefault(item["check"], []).append(item)
    return code, by_name


def test_healthy_setup(fakellm, monkeypatch, capsys, tmp_path, _isolated_home):
    monkeypatch.setenv("OPENAI_BASE_URL", fakellm.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.chdir(tmp_path)
    code, found = checks(capsys, "--model", "openai/fake")
    assert code == 0, found
    assert found["model"][0]["detail"] == "openai/fake (from flag)"
    assert found["key"][0]["detail"] == "OPENAI_API_KEY is set"
    assert found["endpoint"][0]["status"] == "ok" and "answered (200)" in found["endpoint"][0]["detail"]
    assert found["rg"][0]["status"] == "ok"


def test_broken_setup_names_each_fix(monkeypatch, capsys, tmp_path, _isolated_home):
    monkeypatch.setenv("FLUE_RG", "none")
    monkeypatch.chdir(tmp_path)
    db = tmp_path / "sessions.db"
    db.write_bytes(b"SQLite format 3\x00" + b"\x13" * 4096)
    code, found = checks(capsys, "--model", "anthropic/claude-sonnet-4-5", "--db", str(db))
    assert code == 1
    assert found["rg"][0]["status"] == "warn" and "apt-get install ripgrep" in found["rg"][0]["fix"]
    assert found["key"][0] == {
        "status": "fail",
        "check": "key",
        "detail": "ANTHROPIC_API_KEY is not set",
        "fix": "export ANTHROPIC_API_KEY=...",
    }
    assert found["sessions"][0]["status"] == "fail"
    assert found["sessions"][0]["fix"] == f"move it aside (mv {db} {db}.bad); flue starts a fresh one"


def test_unreachable_endpoint_and_bad_config(monkeypatch, capsys, tmp_path, _isolated_home):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".flue").mkdir()
    (tmp_path / ".flue" / "config.toml").write_text("max_turns = -1\n")
    code, found = checks(capsys)
    assert code == 1
    assert any("max_turns must be a whole number" in c["detail"] for c in found["config"])
    (tmp_path / ".flue" / "config.toml").write_text("max_turns = 5\n")
    code, found = checks(capsys)
    assert code == 1 and found["model"][0]["detail"] == "openai/default (from default for the key that is set)"
    assert found["endpoint"][0]["status"] == "fail"
    assert found["endpoint"][0]["detail"].startswith("cannot reach http://127.0.0.1:9/v1 within 2 s")


def test_ollama_default_model_when_a_server_answers():
    class Tags(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - http.server's naming
            body = json.dumps({"models": [{"name": "qwen3:8b"}, {"name": "llama3"}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Tags)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        assert ollama_model(f"http://127.0.0.1:{server.server_port}") == "ollama_chat/qwen3:8b"
    finally:
        server.shutdown()
    assert ollama_model("http://127.0.0.1:9") is None


def test_ollama_path_needs_no_key_and_reports_num_ctx(fakeollama, monkeypatch, capsys, tmp_path, _isolated_home):
    monkeypatch.delenv("OLLAMA_API_BASE", raising=False)
    monkeypatch.setenv("OLLAMA_HOST", fakeollama.base_url)
    monkeypatch.chdir(tmp_path)
    code, found = checks(capsys)  # no key, no model: the Ollama default
    assert found["model"][0]["detail"] == "ollama_chat/qwen3:8b (from default for the key that is set)"
    assert found["key"][0] == {"status": "ok", "check": "key", "detail": "none needed for Ollama", "fix": ""}
    assert found["endpoint"][0]["status"] == "ok"
    assert found["ollama"][0]["detail"] == "qwen3:8b is installed; requests carry num_ctx 32768"
    code, found = checks(capsys, "--model", "ollama_chat/llama9")
    assert code == 1 and found["ollama"][0]["fix"] == "ollama pull llama9"


def test_doctor_names_the_path_and_the_setting_that_forces_litellm(
    fakellm, monkeypatch, capsys, tmp_path, _isolated_home
):
    monkeypatch.setenv("OPENAI_BASE_URL", fakellm.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.chdir(tmp_path)
    _, found = checks(capsys, "--model", "openai/fake")
    assert found["path"][0]["detail"] == f"direct (OpenAI chat completions, {fakellm.base_url}/chat/completions)"
    assert found["relay"][0]["detail"] == RELAYED
    monkeypatch.setenv("FLUE_RELAY", "off")
    _, found = checks(capsys, "--model", "openai/fake")
    assert found["relay"][0]["detail"] == "off (FLUE_RELAY): every request from flue's own process"
    monkeypatch.delenv("FLUE_RELAY")
    _, found = checks(capsys, "--model", "gemini/gemini-2.5-pro")
    assert found["path"][0]["detail"] == "litellm (gemini is served through litellm)"
    assert "relay" not in found  # litellm's requests never go through it
    monkeypatch.setenv("FLUE_TRANSPORT", "litellm")
    _, found = checks(capsys, "--model", "openai/fake")
    assert found["path"][0]["detail"] == "litellm (transport = litellm)"
    monkeypatch.delenv("FLUE_TRANSPORT")
    monkeypatch.setenv("FLUE_TRANSPORT", "sideways")
    code, found = checks(capsys, "--model", "openai/fake")
    assert code == 1 and any("FLUE_TRANSPORT" in c["detail"] for cs in found.values() for c in cs), found


def test_a_file_of_tables_is_not_called_empty(monkeypatch, capsys, tmp_path, _isolated_home):
    """Issue 30: a config.toml of three [mcp_servers] tables (and [permissions]) read "no settings"."""
    from flue_tui.config.paths import config_file

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FLUE_RG", "none")
    user = config_file()
    user.parent.mkdir(parents=True, exist_ok=True)
    servers = "".join(f'[mcp_servers.s{i}]\ncommand = "{tmp_path}/missing-{i}"\n' for i in range(3))
    user.write_text(servers + '[permissions]\nallow = ["Read"]\n')
    (tmp_path / ".flue").mkdir()
    (tmp_path / ".flue" / "config.toml").write_text("# nothing yet\n")
    _, found = checks(capsys, "--model", "openai/fake")
    details = [c["detail"] for c in found["config"]]
    assert f"{user}: [mcp_servers] (3 servers), [permissions]" in details
    assert f"{tmp_path / '.flue' / 'config.toml'}: no settings" in details


def test_bytecode_fix_fits_the_install():
    """A tool install is told `uv tool install --compile-bytecode`, never `uv sync` (issue 24)."""
    from flue_tui.cli.doctor import bytecode_fix

    editable = '{"url":"file:///home/me/flue-tui","dir_info":{"editable":true}}'
    assert bytecode_fix(editable).startswith("uv sync --compile-bytecode")
    from_path = '{"url":"file:///home/me/flue-tui","dir_info":{}}'
    assert bytecode_fix(from_path) == "uv tool install --compile-bytecode --reinstall /home/me/flue-tui"
    from_git = '{"url":"https://example.com/flue-tui.git","vcs_info":{"vcs":"git","commit_id":"abc"}}'
    assert (
        bytecode_fix(from_git) == "uv tool install --compile-bytecode --reinstall git+https://example.com/flue-tui.git"
    )
    for broken in (None, "", "not json", "[1]", '{"url": 3}'):
        assert bytecode_fix(broken) == "uv tool install --compile-bytecode --reinstall flue-tui"
