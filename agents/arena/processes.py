"""Worker processes: the one home of the pools that the arena and self-play run their games in.

Workers are **spawned** (a clean interpreter each: no inherited threads of numba or torch, whose
locks a forked child could find held) and use one core each (``OMP_NUM_THREADS=1`` unless set).
A killed parent (SIGKILL, or a plain ``kill``) must not leave its workers running: they would go
on writing into the output folder, maybe beside a rerun. ``die_with_parent`` (the pool's
initializer) makes sure they do not:

* on Linux, ``prctl(PR_SET_PDEATHSIG, SIGKILL)``: the kernel kills the worker when its parent dies;
* everywhere, a daemon thread waits on ``multiprocessing.parent_process()``'s sentinel (a pipe
  that closes when the parent dies) and ends the worker then;
* the worker ignores SIGINT (Ctrl-C reaches the whole process group: the parent alone decides
  what to do, so the workers print no tracebacks) and takes SIGTERM's default action.

``worker_pool(n)`` is a ``ProcessPoolExecutor`` of spawned workers with that initializer whose
``with`` block turns a SIGTERM of the parent into ``KeyboardInterrupt`` and, when left by an
exception (Ctrl-C, SIGTERM, an error, an abandoned loop), terminates the workers at once instead
of waiting for their running jobs.

A spawned worker imports the ``__main__`` script again: a script that starts workers from its
top level, outside ``if __name__ == "__main__":``, would start them again in every worker.
``pool_allowed()`` finds such a call (from the script's source) so that the caller plays in its
own process instead, with a one-line warning.

>>> with worker_pool(1) as pool:
...     pool.submit(abs, -3).result()
3
"""

from __future__ import annotations

import ast
import ctypes
import multiprocessing
import os
import signal
import sys
import threading
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from types import FrameType
from typing import Iterator, Optional

from amazons_env.errors import AmazonsRuntimeError

__all__ = ["die_with_parent", "worker_pool", "stop_pool", "pool_allowed", "UNGUARDED"]

UNGUARDED = (
    'a script that calls the arena or self-play at its top level needs `if __name__ == "__main__":` '
    "around the call to use worker processes (they import the script again)"
)

_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def _exit_when_parent_dies(parent: multiprocessing.process.BaseProcess) -> None:
    parent.join()  # returns when the parent's sentinel pipe closes: the parent is gone
    os._exit(1)


def die_with_parent() -> None:
    """Make the calling worker process end when its parent process ends, ignore Ctrl-C and use
    one core (see the module docstring): the initializer of ``worker_pool``'s workers."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core per worker, also for torch
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a forked worker inherits the parent's handler
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):  # no usable libc: the watchdog thread below still works
            pass
    parent = multiprocessing.parent_process()
    if parent is not None:  # also covers a parent that died before prctl took effect
        threading.Thread(target=_exit_when_parent_dies, args=(parent,), name="die-with-parent", daemon=True).start()


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
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"), initializer=die_with_parent)
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


def pool_allowed() -> bool:
    """Whether worker processes may be started for the current call: False, after a one-line
    warning on stderr, when the call comes from the top level of a ``__main__`` script outside an
    ``if __name__ == "__main__":`` block (every spawned worker would run it again); inside a
    worker re-running such a script, ``AmazonsRuntimeError``."""
    if not _unguarded_main_call():
        return True
    if getattr(sys.modules.get("__main__"), "__name__", "") == "__mp_main__":
        raise AmazonsRuntimeError(UNGUARDED)  # a spawned worker importing the script again
    print(f"amazons: {UNGUARDED}; playing in this process", file=sys.stderr)
    return False


def _unguarded_main_call() -> bool:
    """Whether this call comes from the top level of a ``__main__`` script, outside an
    ``if __name__ == "__main__":`` block. Found from the call's line in the script's source."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    frame: Optional[FrameType] = sys._getframe(1)
    while frame is not None and not (frame.f_globals is vars(main) and frame.f_code.co_name == "<module>"):
        frame = frame.f_back
    if path is None or frame is None:
        return False  # an interactive session, or the script's top level has finished running
    try:
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
    except (OSError, ValueError, SyntaxError):
        return False
    line = frame.f_lineno
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.If)
            and node.lineno <= line <= (node.end_lineno or node.lineno)
            and "__main__" in ast.unparse(node.test)
            and "__name__" in ast.unparse(node.test)
        ):
            return False
    return True
