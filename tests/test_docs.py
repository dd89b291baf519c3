"""The README stays short and every relative link in it and in docs/ leads somewhere (issue 24)."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
TOPICS = "app headless sessions permissions models mcp configuration skills troubleshooting acp ci".split()
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
CODE = re.compile(r"`[^`\n]*`")


def prose(text: str) -> str:
    """The text outside code blocks and code spans, where a `[x](y)` is a link."""
    return CODE.sub("", FENCE.sub("", text))


def anchors(page: Path) -> set[str]:
    """GitHub's heading ids: lower case, punctuation dropped, spaces as hyphens."""
    found = set()
    for line in prose(page.read_text(encoding="utf-8") + "\n").splitlines():
        match = re.match(r"#{1,6}\s+(.*)", line)
        if match:
            title = match.group(1).strip().lower().replace("`", "")
            found.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return found


def links(page: Path) -> list[str]:
    return LINK.findall(prose(page.read_text(encoding="utf-8")))


def test_readme_fits_on_a_screen_or_two():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines; the reference belongs in docs/"


def test_readme_links_every_topic_page():
    targets = set(links(ROOT / "README.md"))
    for topic in TOPICS:
        assert (ROOT / "docs" / f"{topic}.md").is_file(), f"docs/{topic}.md is missing"
        assert f"docs/{topic}.md" in targets, f"README.md does not link docs/{topic}.md"


def test_contributor_commands_stay_visible():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "uv run flue" in text and "uv run pytest" in text


def test_user_pages_show_the_installed_command():
    """`uv run flue` inside a user's own uv project syncs that project; users type `flue`."""
    for page in PAGES:
        if page.name in ("README.md", "architecture.md", "streaming.md"):
            continue
        text = page.read_text(encoding="utf-8")
        # Naming the phrase itself (`uv run flue`, as troubleshooting does) is fine; showing it run is not.
        shown = re.findall(r"uv run flue(?!`)", text) + [m[0] for m in FENCE.finditer(text) if "uv run flue" in m[0]]
        assert not shown, page.name


def test_every_relative_link_resolves():
    broken = []
    for page in PAGES:
        for target in links(page):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto: — not ours to check offline
                continue
            path, _, anchor = target.partition("#")
            dest = (page.parent / unquote(path)).resolve() if path else page
            if not dest.exists() or not dest.is_relative_to(ROOT):
                broken.append(f"{page.relative_to(ROOT)}: {target}")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
    assert not broken, "broken links:\n" + "\n".join(broken)


def test_link_checker_sees_a_broken_link(tmp_path):
    """The checker itself: a missing file and a missing heading are both caught."""
    page = tmp_path / "x.md"
    page.write_text("# Top\n\n[a](missing.md) [b](#top) [c](#nope) `[d](code.md)`\n```\n[e](f.md)\n```\n")
    assert links(page) == ["missing.md", "#top", "#nope"]
    assert anchors(page) == {"top"}


# A code span naming a file or directory of ours: `runtime/handle.py`, `core/`, `tests/x.py`, `AGENTS.md`.
NAMED_PATH = re.compile(r"`((?:[\w.-]+/)+(?:[\w.-]+\.(?:py|md|toml|json|yml|sh))?|[\w.-]+\.(?:py|md|toml|yml))`")


def named_paths(text: str) -> list[str]:
    return NAMED_PATH.findall(text)


def missing_paths(text: str, root: Path) -> list[str]:
    """Paths as the page writes them: from the repository root, or inside the package (`core/…`)."""
    return [p for p in named_paths(text) if not (root / p).exists() and not (root / "flue_tui" / p).exists()]


def test_the_architecture_page_names_only_files_that_exist():
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert len(named_paths(text)) > 40  # the checker sees the page's paths
    assert missing_paths(text, ROOT) == []


def test_the_path_checker_sees_a_missing_file(tmp_path):
    (tmp_path / "flue_tui" / "core").mkdir(parents=True)
    (tmp_path / "flue_tui" / "core" / "a.py").write_text("")
    (tmp_path / "AGENTS.md").write_text("")
    text = "`core/` `core/a.py` `core/gone.py` `AGENTS.md` `tests/x.py` `Session.prompt` `flue -p`"
    assert missing_paths(text, tmp_path) == ["core/gone.py", "tests/x.py"]
