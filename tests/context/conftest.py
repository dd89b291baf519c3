from __future__ import annotations

from pathlib import Path

import pytest

from flue_tui.config.settings import Settings
from flue_tui.runtime.wiring import Runtime


@pytest.fixture
def runtime_for(fakellm, monkeypatch: pytest.MonkeyPatch):
    """A real Runtime for a cwd, talking to the scripted server through litellm."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")

    def make(cwd: Path, **kw) -> Runtime:
        if "permission_mode" not in kw and not kw.get("interactive"):
            kw["permission_mode"] = "yolo"  # the scripted calls run; a test of questions picks its mode
        settings = Settings(model="openai/fake", cwd=str(cwd), api_base=fakellm.base_url, retry_base_ms=5, **kw)
        return Runtime(settings)

    return make


def write_skill(root: Path, directory: str, frontmatter: str, body: str = "Do the thing.") -> Path:
    path = root / ".agents" / "skills" / directory / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{frontmatter}\n---\n\n{body}\n")
    return path
