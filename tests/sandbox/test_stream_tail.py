"""The bounded stream tail must format exactly like the full output would."""

from __future__ import annotations

import random

import pytest

from flue_tui.sandbox.local import TAIL_KEEP
from flue_tui.sandbox.tail import StreamTail
from flue_tui.tools.bash import format_bash_text


def _random_stream(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(0, 12)):
        kind = rng.random()
        if kind < 0.35:
            parts.append(" " * rng.choice([1, 10, 40_000, 90_000, 150_000]))
        elif kind < 0.5:
            parts.append("\n" * rng.choice([1, 3, 1500, 3000, 80_000]))
        elif kind < 0.6:
            parts.append(" \t\n\u3000\ufeff" * rng.randint(1, 20_000))
        elif kind < 0.8:
            parts.append("".join(rng.choice("ab😀 \n") for _ in range(rng.randint(1, 2000))))
        else:
            parts.append("word\n" * rng.randint(1, 30_000))
    return "".join(parts)


def _feed(text: str, rng: random.Random) -> str:
    tail = StreamTail(TAIL_KEEP)
    pos = 0
    while pos < len(text):
        size = rng.choice([1, 7, 4096, 65536, 262144])
        tail.feed(text[pos : pos + size])
        pos += size
    return tail.value()


@pytest.mark.parametrize("seed", range(40))
def test_bounded_tail_formats_like_full_output(seed):
    rng = random.Random(seed)
    out, err = _random_stream(rng), _random_stream(rng)
    code = rng.choice([0, 2])
    bounded_out, bounded_err = _feed(out, rng), _feed(err, rng)
    assert len(bounded_out) <= len(out) + 1 and len(bounded_out) < 3 * TAIL_KEEP + 600_000
    assert format_bash_text(bounded_out, bounded_err, code) == format_bash_text(out, err, code)


def test_short_output_is_kept_whole():
    tail = StreamTail(TAIL_KEEP)
    for piece in ("  a", "b \n", "\n "):
        tail.feed(piece)
    assert tail.value() == "  ab \n\n "


def test_leading_whitespace_after_dropped_content_is_not_trimmed_away():
    text = "A" + " " * 300_000 + "x"
    rng = random.Random(1)
    assert format_bash_text(_feed(text, rng), "", 0) == format_bash_text(text, "", 0)
    assert format_bash_text(text, "", 0) == " " * 51199 + "x"
