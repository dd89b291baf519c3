"""The frontmatter read without PyYAML (context/frontmatter._simple) is PyYAML's reading, or it
declines: on every frontmatter this repository holds, and on lines made to trip it."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import yaml

from flue_tui.context.frontmatter import _FENCE_RE, SkillFormatError, _simple, split_frontmatter

ROOT = Path(__file__).resolve().parents[2]
TRICKY = [
    "description: a: b", "k: #c", 'k: "q"', "k: v # c", "k: 'v'", "k: [a]", "k: {a: 1}", "k: &a x", "k: *a",
    "k: !t x", "k: |", "k: >", "k: %x", "k: @x", "k: `x", "k: v\tw", "k: v:", "k: -v", "k: ? x", "k: :x",
    "k:  two  spaces  ", "k: yes", "k: null", "k: 1.5", "k: ~", "k: a\u00a0b", "k: é and 🎉", "k: a,b", "k: a]b",
    "k: a}b", "k: a#b", "k: v\r", "k: v\x07", "k: it's (fine), really.", "a: 1\na: 2", "a: 1\n b: 2",
    "a: 1\n\nb: 2", "- a", "k:", "k:v", "K_2-x: v", "2k: v", "k: v\n# comment", "k: v\n...", "k: ---",
    "k: a - b", "k: a -b", "k: v\\n", "k: \\x41", "k: a\ufeffb", "k: a\u2028b",
    # line breaks YAML knows and str.split("\n") does not: NEL, LS, PS, a CR alone
    "k: a\x85b", "a: 1\x85b: 2", "a: 1\u2028b: 2", "a: 1\u2029b: 2", "a: 1\rb: 2", "k: \x85",
    # BOMs and other invisible or control characters, in the key's place and the value's
    "\ufeffk: v", "k: \ufeffv", "k: v\x00", "k: v\x0b", "k: v\x0c", "k: v\x7f", "k: a\u200bb", "k: a\u00adb",
    "k: \ue000", "k: \ufffe", "k: \uffff", "k: a\u3000b", "k: \u2003v", "k:\u00a0v", "k: \u00a0v", "k\u0301: v",
    # YAML's simple keys stop at 1024 characters (a longer one is PyYAML's and libyaml's error)
    "k" * 1024 + ": v", "k" * 1025 + ": v", "a" * 1025 + "b: v", "k: " + "v" * 100_000,
    # keys YAML reads specially, duplicates, keys only \\w reads as a name
    "<<: v", "? k: v", "?: v", "k: v\n<<: w", "a: 1\nA: 2", "k: 1\nk: 1", "kä: v", "k١: v", "k²: v", "𝑘: v",
    "ǅ: v", "ª: v", "k·x: v", "_: v", "k-: v",
    # values
    "k: \U0001f600x", "k: v  ", "k: a  #b", "k: a:b", "k: a::b", "k: http://x", "k: a\t", "k: '", "k: v'",
    'k: v"', "k: v%", "k: v @", "k: v`", "k: ---x", "k: ...", "k: a\n---", "k: ⅷ", "k: " + "x: " * 10,
    # blank and whitespace-only lines around
    "k: v\n", "\nk: v", "k: v\n ", "k: v\n\t",
    # a huge file: twenty thousand lines
    "\n".join(f"k{i}: v" for i in range(20_000)),
]  # fmt: skip


def _files() -> list[Path]:
    found = []
    for base in ("skills", "tests", "flue_tui", ".claude", ".agents"):
        if (ROOT / base).is_dir():
            found += sorted((ROOT / base).rglob("*.md"))
    return found


def _agrees(block: str) -> None:
    simple = _simple(block)
    if simple is None:
        return
    for loader in (yaml.BaseLoader, getattr(yaml, "CBaseLoader", yaml.BaseLoader)):
        assert yaml.load(block, Loader=loader) == simple, block  # noqa: S506 - BaseLoader builds no objects


def test_every_frontmatter_here_reads_as_pyyaml_reads_it() -> None:
    blocks = []
    for path in _files():
        match = _FENCE_RE.match(path.read_text(encoding="utf-8", errors="replace").lstrip("\ufeff"))
        if match:
            blocks.append(match.group(1))
    assert len(blocks) >= 5
    for block in blocks:
        _agrees(block)
    assert sum(_simple(b) is not None for b in blocks) >= 4  # the packaged skills at least


@pytest.mark.parametrize("block", TRICKY, ids=[repr(b)[:40] for b in TRICKY])
def test_lines_made_to_trip_it_read_as_pyyaml_reads_them_or_go_to_pyyaml(block: str) -> None:
    try:
        _agrees(block)
    except yaml.YAMLError:
        assert _simple(block) is None  # what PyYAML refuses is never read here


def test_random_lines_read_as_pyyaml_reads_them_or_go_to_pyyaml() -> None:
    rng = random.Random(28)
    alphabet = "ab -:#'\"[]{},&*!|>%@`?~.\t\\/()é🎉\u00a0"
    for _ in range(3000):
        lines = [
            rng.choice(["name", "description", "k", "a-b", "x_1"])
            + rng.choice([": ", ":  ", ":"])
            + "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
            for _ in range(rng.randint(1, 3))
        ]
        try:
            _agrees("\n".join(lines))
        except yaml.YAMLError:
            assert _simple("\n".join(lines)) is None


@pytest.mark.parametrize("lenient", [False, True])
def test_a_key_longer_than_yaml_allows_is_flues_invalid_yaml_error(lenient: bool) -> None:
    """A 1025-character key: PyYAML refuses it, so Flue's text says so (before, it was read here)."""
    text = f"---\nname: x\ndescription: d\n{'k' * 1025}: v\n---\nbody"
    with pytest.raises(SkillFormatError, match=r"^\[flue\] Skill p/SKILL\.md has invalid YAML frontmatter\. "):
        split_frontmatter(text, "p/SKILL.md", lenient=lenient)
    assert split_frontmatter(text.replace("k" * 1025, "k" * 1024), "p/SKILL.md", lenient=lenient)[0]["k" * 1024] == "v"
