"""One piece of work on a thread of its own, so that a window keeps handling its events while an
engine thinks.

The thread is a daemon: closing the window in the middle of a long search ends the program at
once instead of waiting for the search. The work's exception, if it raises, comes back from
``result()`` in the thread that asks, where it can be reported like any other.

>>> job = Job(lambda: 6 * 7)
>>> job.result(), job.done()
(42, True)
>>> Job(lambda: 1 // 0).result()
Traceback (most recent call last):
...
ZeroDivisionError: integer division or modulo by zero
"""

from __future__ import annotations

import threading
from typing import Callable, Generic, Optional, TypeVar

__all__ = ["Job"]

T = TypeVar("T")


class Job(Generic[T]):
    """``work()`` running on a daemon thread, started at construction."""

    def __init__(self, work: Callable[[], T]) -> None:
        self._work = work
        self._value: list[T] = []  # the return value, once there is one (None is a value too)
        self._error: Optional[BaseException] = None
        self._thread = threading.Thread(target=self._run, name="amazons-job", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._value.append(self._work())
        except BaseException as error:  # noqa: BLE001 - handed to the asking thread by result()
            self._error = error

    def done(self) -> bool:
        """Whether the work has finished (returned or raised)."""
        return not self._thread.is_alive()

    def result(self) -> T:
        """The work's return value, waiting for it; re-raises the work's exception."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value[0]
