"""``tonk serve`` settles the garbage collector once started (``service.server``): the objects of
start-up frozen out of its sight, the young generation collected far less often than Python's
default (a request makes thousands of short-lived objects)."""

from __future__ import annotations

import gc

from tonk.service.server import GC_THRESHOLDS, settle_collector


def test_settle_collector_freezes_start_up_and_raises_the_thresholds():
    before = gc.get_threshold()
    try:
        settle_collector()
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold() == GC_THRESHOLDS
        assert GC_THRESHOLDS[0] > before[0]
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
