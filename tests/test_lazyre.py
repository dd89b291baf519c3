"""core/lazyre.py: a pattern compiled at its first use, behaving as the compiled pattern."""

from __future__ import annotations

import re

import pytest

from flue_tui.core.lazyre import lazy


def test_a_lazy_pattern_compiles_at_its_first_use_not_before() -> None:
    broken = lazy("(unclosed")  # made at import time in a module: nothing compiled yet
    with pytest.raises(re.error):
        broken.search("x")


def test_a_lazy_pattern_answers_as_the_compiled_one() -> None:
    text = "Error: rate limit\x1b[31m hit, 429"
    for pattern, flags in ((r"rate.?limit|429", 0), (r"(\x1b\[[0-9;]*m)", 0), (r"^error", re.IGNORECASE)):
        eager, deferred = re.compile(pattern, flags), lazy(pattern, flags)
        assert deferred.search(text).span() == eager.search(text).span()  # type: ignore[union-attr]
        assert deferred.sub("_", text) == eager.sub("_", text)
        assert deferred.findall(text) == eager.findall(text)
        assert deferred.pattern == pattern and deferred.flags == eager.flags
    assert lazy(rb"[ \t]*").match(b"  x").end() == 2  # type: ignore[union-attr]


def test_a_lazy_pattern_copies_and_pickles_as_a_pattern_would() -> None:
    import copy
    import pickle

    deferred = lazy(r"a+b")
    for other in (copy.copy(deferred), copy.deepcopy(deferred), pickle.loads(pickle.dumps(deferred))):
        assert other.fullmatch("aab") and not other.fullmatch("b")
    assert deferred.fullmatch("ab")  # the original too, compiled or not
