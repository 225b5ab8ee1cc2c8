"""The searches' clock, margin, deadline and frozen heap (``agents.time``): the numba clock reads
``perf_counter`` (GIL-free where it can), the margin keeps back what returning a move takes,
and the heap is frozen for a block only.

No test here asserts on wall time (the machine is shared); ``benchmarks/search/clock_reads.py`` measures
the clock's readings and ``benchmarks/search/clock.py`` how much of ``time=T`` each agent uses."""

from __future__ import annotations

import gc
import threading
import time

import pytest
from numba import njit

from amazons_env import Board

from agents import make
from agents.arena import play_game
from agents.time.clock import DIRECT, NEVER, as_ns, monotonic_ns, now_ns, object_mode_ns
from agents.time.deadline import DEADLINE_LAST, DEADLINE_STOP, Deadline
from agents.time.heap import freeze_survivors, frozen_heap
from agents.time.margin import Margin


def test_both_clocks_read_the_perf_counter():
    before = time.perf_counter_ns()
    assert before <= now_ns() <= object_mode_ns() <= time.perf_counter_ns()
    if DIRECT:
        assert now_ns is monotonic_ns and before <= monotonic_ns() <= time.perf_counter_ns()
    else:
        assert now_ns is object_mode_ns
    start = time.perf_counter()
    margin = Margin()
    assert start < margin.stop(start, 0.5) < start + 0.5
    assert as_ns(start) < as_ns(margin.stop(start, 0.5)) < as_ns(float("inf")) == NEVER


@pytest.mark.skipif(not DIRECT, reason="the clock is read through object mode on this platform")
def test_a_nogil_kernel_reads_the_clock_while_another_thread_holds_the_gil():
    """A kernel that reads ``now_ns`` runs on while a Python thread computes: it finishes its
    readings though the Python thread never lets go of the GIL for long."""

    @njit(nogil=True)
    def spin(until):  # pragma: no cover - compiled
        reads = 0
        while now_ns() < until:
            reads += 1
        return reads

    spin(0)  # compiled before the race
    stop = threading.Event()

    def busy() -> None:
        while not stop.is_set():
            sum(range(100))

    thread = threading.Thread(target=busy)
    thread.start()
    try:
        reads = spin(time.perf_counter_ns() + 50_000_000)
    finally:
        stop.set()
        thread.join()
    assert reads > 1000


def test_margin_keeps_back_how_late_searches_return():
    margin = Margin()
    margin.returned(time.perf_counter() - 0.1)  # a search that returned 0.1 s after its stop
    assert margin.late >= 0.1
    assert margin.stop(0.0, 1.0) <= 0.99 - 0.1
    assert margin.stop(0.0, 0.1) > 0.075  # lateness keeps back at most a fifth of the time
    margin.returned(time.perf_counter() + 5)  # finished early: the lateness fades
    assert 0.09 <= margin.late < 0.1


def test_time_before_the_deadline_holds_is_not_lateness():
    margin = Margin()
    stop = time.perf_counter() - 2.0  # the deadline passed during an unbounded first iteration
    margin.returned(stop, bounded_from=time.perf_counter())
    assert margin.late < 0.5  # only the return after the iteration counts
    margin.returned(stop)  # told nothing, the whole overrun counts
    assert margin.late >= 2.0


def test_a_moved_deadline_is_what_a_kernel_reads():
    deadline = Deadline(1.0)
    assert int(deadline.ns[DEADLINE_STOP]) == int(deadline.ns[DEADLINE_LAST]) == NEVER
    deadline.move(2.0, 3.0)
    assert (int(deadline.ns[DEADLINE_STOP]), int(deadline.ns[DEADLINE_LAST])) == (as_ns(2.0), as_ns(3.0))
    deadline.halt()
    assert deadline.halted and deadline.passed() and deadline.ns[DEADLINE_STOP] <= now_ns()


def test_frozen_heap_freezes_for_the_block_only():
    """A nested block neither freezes what is new nor unfreezes. The count is read as at most what
    was frozen, never equal to it: a frozen object that another thread releases leaves the count."""
    assert gc.get_freeze_count() == 0
    with frozen_heap():
        frozen = gc.get_freeze_count()
        assert frozen > 0
        new = [[i] for i in range(1000)]  # a nested freeze would take these in
        with frozen_heap():  # nested: left as it is
            assert 0 < gc.get_freeze_count() <= frozen
        assert 0 < gc.get_freeze_count() <= frozen and len(new) == 1000
    assert gc.get_freeze_count() == 0


def test_freeze_survivors_adds_to_a_frozen_heap_only():
    freeze_survivors()  # outside a frozen block: nothing
    assert gc.get_freeze_count() == 0
    with frozen_heap():
        before = gc.get_freeze_count()
        kept = [[i] for i in range(1000)]  # what a move loaded and keeps
        freeze_survivors()
        assert gc.get_freeze_count() >= before + len(kept)
    assert gc.get_freeze_count() == 0


def test_arena_games_are_played_with_the_heap_frozen():
    seen = []

    class Spy(type(make("random"))):
        def select_move(self, board):
            seen.append(gc.get_freeze_count())
            return super().select_move(board)

    play_game(Spy(seed=1), Spy(seed=2), Board(5))
    assert seen and min(seen) > 0 and gc.get_freeze_count() == 0
