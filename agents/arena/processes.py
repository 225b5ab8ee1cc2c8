"""Worker processes that die with their parent, and a process pool that stops them on any exit.

A killed parent (SIGKILL, or a plain ``kill``) must not leave its workers running: they would
go on writing into the output folder, maybe beside a rerun. ``die_with_parent`` (a pool
initializer, or a call at the start of an initializer) makes sure they do not:

* on Linux, ``prctl(PR_SET_PDEATHSIG, SIGKILL)``: the kernel kills the worker when its parent dies;
* everywhere, a daemon thread waits on ``multiprocessing.parent_process()``'s sentinel (a pipe
  that closes when the parent dies) and ends the worker then;
* the worker ignores SIGINT (Ctrl-C reaches the whole process group: the parent alone decides
  what to do, so the workers print no tracebacks) and takes SIGTERM's default action.

``worker_pool(n)`` is a ``ProcessPoolExecutor`` with that initializer whose ``with`` block turns
a SIGTERM of the parent into ``KeyboardInterrupt`` and, when left by an exception (Ctrl-C,
SIGTERM, an error), terminates the workers at once instead of waiting for their running jobs.

>>> with worker_pool(1) as pool:
...     pool.submit(abs, -3).result()
3
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from typing import Iterator

__all__ = ["die_with_parent", "worker_pool", "stop_pool"]

_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def _exit_when_parent_dies(parent: multiprocessing.process.BaseProcess) -> None:
    parent.join()  # returns when the parent's sentinel pipe closes: the parent is gone
    os._exit(1)


def die_with_parent() -> None:
    """Make the calling worker process end when its parent process ends (see the module docstring)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a forked worker inherits the parent's handler
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):  # no usable libc: the watchdog thread below still works
            pass
    parent = multiprocessing.parent_process()
    if parent is not None:  # also covers a parent that died before prctl took effect
        threading.Thread(target=_exit_when_parent_dies, args=(parent,), name="die-with-parent",
                         daemon=True).start()


def stop_pool(pool: ProcessPoolExecutor) -> None:
    """Cancel ``pool``'s queued jobs and terminate its workers now (their running jobs are lost)."""
    terminate = getattr(pool, "terminate_workers", None)  # Python 3.14+
    if terminate is not None:
        terminate()
        return
    # before 3.14 the executor only offers to wait for running jobs; its process table is the
    # way to end them now (a private attribute, present since Python 3.2)
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(10)


def _raise_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signal.Signals(signum).name}")


@contextmanager
def worker_pool(workers: int) -> Iterator[ProcessPoolExecutor]:
    """A ``ProcessPoolExecutor`` of ``workers`` processes running ``die_with_parent`` first; see the
    module docstring for what leaving the ``with`` block does."""
    main = threading.current_thread() is threading.main_thread()  # signal handlers live in the main thread
    previous = signal.signal(signal.SIGTERM, _raise_interrupt) if main else None
    pool = ProcessPoolExecutor(workers, initializer=die_with_parent)
    try:
        yield pool
    except BaseException:
        stop_pool(pool)
        raise
    else:
        pool.shutdown(wait=True)
    finally:
        if main:
            signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)
