"""The numba searches' clock read two ways, measured side by side: ``agents.time.clock.now_ns``
(``clock_gettime(CLOCK_MONOTONIC)`` called from the compiled code, no GIL: what every kernel
reads where ``DIRECT``) and ``object_mode_ns`` (``time.perf_counter_ns`` through numba's object
mode, which takes the GIL: the fallback elsewhere, and what the alpha-beta and study kernels read
before issue 38).

    NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 python3 benchmarks/search/clock_reads.py
    NUMBA_NUM_THREADS=1 python3 benchmarks/search/clock_reads.py --reads 200000 --seconds 0.5 --repeats 5

Two figures per clock, each the median of ``--repeats`` runs, the two clocks interleaved:

* ``ns/read``: a compiled loop of ``--reads`` readings, its wall time per reading;
* ``work beside Python``: a ``nogil`` kernel that does units of work and reads the clock every
  ``CHECK_EVERY`` units, as a search checks its deadline, runs ``--seconds`` on the clock while
  a Python thread computes (an opponent's Python search, an engine loop); its units, as a share of
  the units it does in the same time alone. With the GIL-taking clock each reading waits for the
  Python thread to let go of the GIL (up to its switch interval).

The last column is the ratio object mode / direct (ns per read) and direct / object mode (work
beside Python). ``DIRECT`` false: both rows read the same object-mode clock.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from typing import Callable

from numba import njit

from agents.time.clock import CHECK_EVERY, DIRECT, monotonic_ns, object_mode_ns


def _reader(clock: Callable[[], int]) -> Callable[[int], int]:
    @njit(nogil=True)
    def read(n):  # pragma: no cover - compiled
        total = 0
        for _ in range(n):
            total += clock()
        return total

    return read


def _worker(clock: Callable[[], int]) -> Callable[[int], int]:
    @njit(nogil=True)
    def work(until):  # pragma: no cover - compiled
        units, x = 0, 1
        while True:
            for _ in range(CHECK_EVERY):  # a unit: a few hundred nanoseconds of arithmetic
                for k in range(64):
                    x = (x * 1103515245 + 12345 + k) & 0x7FFFFFFF
                units += 1
            if clock() >= until:
                return units + (x & 0)

    return work


def _busy(stop: threading.Event) -> None:
    while not stop.is_set():
        sum(i * i for i in range(200))


def measure(reads: int, seconds: float, repeats: int) -> dict[str, dict[str, float]]:
    clocks = {"direct (no GIL)": monotonic_ns if DIRECT else object_mode_ns, "object mode (GIL)": object_mode_ns}
    readers = {name: _reader(clock) for name, clock in clocks.items()}
    workers = {name: _worker(clock) for name, clock in clocks.items()}
    for name in clocks:  # compile outside the timing
        readers[name](10)
        workers[name](0)
    per_read: dict[str, list[float]] = {name: [] for name in clocks}
    beside: dict[str, list[float]] = {name: [] for name in clocks}
    for _ in range(repeats):
        for name in clocks:  # interleaved: a change in the machine's load falls on both
            start = time.perf_counter_ns()
            readers[name](reads)
            per_read[name].append((time.perf_counter_ns() - start) / reads)
            alone = workers[name](time.perf_counter_ns() + int(seconds * 1e9))
            stop = threading.Event()
            thread = threading.Thread(target=_busy, args=(stop,))
            thread.start()
            try:
                crowded = workers[name](time.perf_counter_ns() + int(seconds * 1e9))
            finally:
                stop.set()
                thread.join()
            beside[name].append(crowded / max(alone, 1))
    return {
        name: {"ns_per_read": statistics.median(per_read[name]), "work_beside_python": statistics.median(beside[name])}
        for name in clocks
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reads", type=int, default=1_000_000, help="readings per timed loop (default 1000000)")
    parser.add_argument("--seconds", type=float, default=0.5, help="seconds of work per run (default 0.5)")
    parser.add_argument("--repeats", type=int, default=5, help="runs per clock, interleaved (default 5)")
    args = parser.parse_args(argv)
    print(
        f"DIRECT={DIRECT} (perf_counter: {time.get_clock_info('perf_counter').implementation}), "
        f"switch interval {sys.getswitchinterval() * 1000:g} ms, CHECK_EVERY={CHECK_EVERY}"
    )
    rows = measure(args.reads, args.seconds, args.repeats)
    direct, objmode = rows["direct (no GIL)"], rows["object mode (GIL)"]
    print("| clock | ns/read | work beside Python (share of alone) |")
    print("|---|---|---|")
    for name, row in rows.items():
        print(f"| {name} | {row['ns_per_read']:.0f} | {row['work_beside_python']:.3f} |")
    print(
        f"| ratio | object mode / direct: {objmode['ns_per_read'] / direct['ns_per_read']:.1f}x | "
        f"direct / object mode: {direct['work_beside_python'] / max(objmode['work_beside_python'], 1e-9):.1f}x |"
    )


if __name__ == "__main__":
    main()
