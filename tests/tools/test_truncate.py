"""JS string helpers: UTF-16 lengths and slices, trim, number formatting, quoting, head/tail cuts."""

from __future__ import annotations

import random

import pytest

from flue_tui.core.jsstr import len16
from flue_tui.tools.truncate import (
    HeadLines,
    js_number,
    js_trim,
    shell_quote,
    slice16,
    truncate_head,
    truncate_tail,
)


def test_len16_counts_astral_as_two():
    assert len16("abc") == 3
    assert len16("é€") == 2
    assert len16("😀") == 2
    assert len16("a😀b") == 4


def test_slice16_by_units():
    assert slice16("a😀b", 0, 3) == "a😀"
    assert slice16("a😀b", -1) == "b"
    assert slice16("a😀b", -3) == "😀b"
    # A cut through a surrogate pair leaves one unit, shown as U+FFFD.
    assert slice16("a😀b", 0, 2) == "a\ufffd"
    assert slice16("a😀b", 2) == "\ufffdb"
    assert slice16("abc", 5) == ""


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (5, "5"),
        (5.0, "5"),
        (0.5, "0.5"),
        (30, "30"),
        (-2.5, "-2.5"),
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (1e-7, "1e-7"),
        (0.000001, "0.000001"),
        (0.1 + 0.2, "0.30000000000000004"),
        (123456789.0, "123456789"),
        (-0.0, "0"),
        (float("nan"), "NaN"),
        (float("inf"), "Infinity"),
    ],
)
def test_js_number(value, text):
    assert js_number(value) == text


def test_js_trim_uses_js_whitespace():
    assert js_trim("\ufeff \u3000x\u2028\n") == "x"
    # Python's strip() would remove these; JS trim() does not.
    assert js_trim("\x1cx\x85") == "\x1cx\x85"


def test_shell_quote():
    assert shell_quote("a b") == "'a b'"
    assert shell_quote("it's") == "'it'\\''s'"
    assert shell_quote("") == "''"


def test_truncate_head_rules():
    assert truncate_head(["a", "b"], 2, 2000, 51200) == ("a\nb", False, 2)
    assert truncate_head(["a", "b", "c"], 3, 2, 51200) == ("a\nb", True, 2)
    assert truncate_head(["aaaa", "bb"], 2, 10, 6) == ("aaaa", True, 1)  # 4 + 1 + 2 > 6
    assert truncate_head(["aaaaaaaa"], 1, 10, 6) == ("aaaaaa", True, 0)
    assert truncate_head([], 0, 10, 6) == ("", False, 0)


def test_truncate_tail_rules():
    assert truncate_tail("a\nb", 2000, 51200) == ("a\nb", False)
    assert truncate_tail("1\n2\n3", 2, 51200) == ("2\n3", True)
    assert truncate_tail("abcdef", 10, 4) == ("cdef", True)
    assert truncate_tail("x\n" + "y" * 10, 2, 4) == ("yyyy", True)


def _reference(text: str, max_lines: int, cap: int) -> tuple[list[str], int]:
    lines = js_trim(text).split("\n")
    return [line[:cap] for line in lines[:max_lines]], len(lines)


@pytest.mark.parametrize("seed", range(60))
def test_head_lines_matches_trim_split(seed):
    rng = random.Random(seed)
    alphabet = ["a", "bb", " ", "\n", "\t", "\u3000", "😀", "\n\n\n", "     "]
    text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 400)))
    hl = HeadLines(max_lines=4, line_cap=5, fold_at=rng.choice([3, 10, 1 << 20]))
    pos = 0
    while pos < len(text):
        n = rng.randint(1, 9)
        hl.feed(text[pos : pos + n])
        pos += n
    head, total = _reference(text, 4, 5)
    assert hl.head() == head
    assert hl.total == total
    assert hl.empty == (js_trim(text) == "")
