"""A heap that the garbage collector leaves alone while moves are timed: ``frozen_heap``.

A full collection of Python's cyclic garbage collector scans every object in the process (with
numba's dispatchers and torch's modules loaded, a large part of a move's time), and one that falls
at a search's deadline overruns the move by that much. Whoever times moves (the arena,
``benchmarks/search/clock.py``, the engine loops of ``amazons engine``) runs a game inside
``frozen_heap()``, which keeps the collector off the objects that already exist, and calls
``freeze_survivors()`` right after a move is answered (off the clock), which adds what the move
loaded (an agent built at its first ``go``, a net).

>>> with frozen_heap():
...     gc.get_freeze_count() > 0
True
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator

__all__ = ["frozen_heap", "freeze_survivors"]


@contextmanager
def frozen_heap() -> Iterator[None]:
    """Collect the garbage, then freeze the surviving objects for the ``with`` block (module
    docstring); they are unfrozen after it. Nothing is done inside a block that is already frozen
    (ours or the caller's ``gc.freeze()``)."""
    if gc.get_freeze_count():
        yield
        return
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def freeze_survivors() -> None:
    """Inside ``frozen_heap``: collect the garbage the last move left and freeze what survives,
    so that the next move starts with nothing for a full collection to scan. Call it between
    moves, off the clock: it scans only what is not frozen yet. Outside a frozen block it does
    nothing."""
    if gc.get_freeze_count():
        gc.collect()
        gc.freeze()
