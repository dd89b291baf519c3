"""core/heap.py: the collector held off during start-up never stays off."""

from __future__ import annotations

import gc
import time

import pytest

from flue_tui.core import heap


@pytest.fixture(autouse=True)
def collector_on():
    heap.release_collections()
    gc.enable()
    yield
    heap.release_collections()
    gc.enable()


def test_hold_then_freeze_runs_the_collector_again():
    heap.hold_collections()
    assert not gc.isenabled()
    heap.hold_collections()  # a second hold changes nothing
    heap.freeze_startup()
    assert gc.isenabled()
    gc.unfreeze()


def test_a_start_that_hangs_gets_the_collector_back(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(heap, "HOLD_LIMIT_S", 0.05)
    heap.hold_collections()
    deadline = time.monotonic() + 60
    while not gc.isenabled() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert gc.isenabled()


def test_a_collector_turned_off_by_someone_else_stays_off():
    gc.disable()
    heap.hold_collections()
    heap.release_collections()
    assert not gc.isenabled()


def test_after_start_up_the_young_generation_is_collected_less_often():
    before = gc.get_threshold()
    try:
        gc.set_threshold(700, before[1], before[2])
        heap.freeze_startup()
        assert gc.get_threshold() == (heap.YOUNG_THRESHOLD, before[1], before[2])
        gc.set_threshold(50_000, before[1], before[2])  # a higher one someone chose stays
        heap.freeze_startup()
        assert gc.get_threshold()[0] == 50_000
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
