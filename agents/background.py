"""One piece of work on a thread of its own: the game window's engine move (so that the window
keeps handling its events) and the engine protocol's thought (``agents.pondering.Thinking``).

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

    def __init__(
        self, work: Callable[[], T], then: Optional[Callable[[], None]] = None, name: str = "amazons-job"
    ) -> None:
        self._work = work
        self._then = then  # called on the thread once the work has ended (its value or error kept)
        self._value: list[T] = []  # the return value, once there is one (None is a value too)
        self._error: Optional[BaseException] = None
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._value.append(self._work())
        except BaseException as error:  # noqa: BLE001 - handed to the asking thread by result()
            self._error = error
        if self._then is not None:
            self._then()

    def done(self) -> bool:
        """Whether the work has finished (returned or raised)."""
        return not self._thread.is_alive()

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Wait up to ``timeout`` seconds (``None``: as long as it takes); whether it has ended."""
        self._thread.join(timeout)
        return self.done()

    def result(self) -> T:
        """The work's return value, waiting for it (except in ``then``, on the thread itself: it
        has it); re-raises the work's exception."""
        if threading.current_thread() is not self._thread:
            self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value[0]
