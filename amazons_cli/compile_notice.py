"""A line on stderr while numba compiles kernels: the first run of a command is otherwise silent
for minutes.

The rules core, the searches and the evaluators are numba kernels, compiled to machine code the
first time they run and cached on disk (``NUMBA_CACHE_DIR``, else ``__pycache__`` beside the
sources): later runs load them in a moment. ``compile_notice`` listens to numba's compile events
(which fire only for a kernel not in the cache) and, at the first of a kernel that will be cached,
prints why the wait, then counts the kernels compiled: in place on a terminal, as one closing
line elsewhere (``tests/cli/test_cli.py`` runs a command with an empty cache, then again).

>>> import io
>>> from numba import njit
>>> out = io.StringIO()
>>> with compile_notice(out):
...     _ = njit(lambda x: x + 1)(1)  # no cache: it compiles on every run, which is no news
>>> out.getvalue()
''
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from typing import Any, Iterator, Optional, TextIO

from numba.core import config, event
from numba.core.caching import NullCache

__all__ = ["compile_notice", "CompileNotice", "compiled_once"]

OURS = ("amazons_env", "agents", "training", "amazons_cli", "__main__")  # the packages whose kernels are counted
ERASE = "\r\033[K"  # back to the start of the line and clear it (a terminal's progress line)


def compiled_once(dispatcher: Any) -> bool:
    """Whether a compilation of ``dispatcher`` is news: a kernel of ours that numba caches on disk.
    numba's own templates are not ours, and a kernel it cannot cache (the ``objmode`` block that
    reads the clock) compiles on every run, so saying it happens once would be wrong."""
    module = getattr(getattr(dispatcher, "py_func", None), "__module__", None) or ""
    cache = getattr(dispatcher, "_cache", None)
    return module.partition(".")[0] in OURS and cache is not None and not isinstance(cache, NullCache)


class CompileNotice(event.Listener):
    """Counts the cached kernels of ours that numba compiles (those a kernel calls included) and
    reports them on ``out``; ``finish`` writes the closing line if any compiled."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.live = out.isatty()  # a terminal: one line rewritten in place; else the first and last lines
        self.lock = threading.Lock()  # kernels may compile on the engine's thread as well
        self.started: Optional[float] = None
        self.kernels = 0

    def on_start(self, data: event.Event) -> None:
        if self.started is None and compiled_once((data.data or {}).get("dispatcher")):
            with self.lock:
                if self.started is None:
                    self.started = time.perf_counter()
                    where = getattr(config, "CACHE_DIR", "") or "__pycache__ beside the sources"
                    self.write(
                        "First run: numba compiles the kernels this command uses to machine code, once "
                        f"(cached in {where}; later runs load them in seconds)..."
                    )

    def on_end(self, data: event.Event) -> None:
        if self.started is not None and compiled_once((data.data or {}).get("dispatcher")):
            with self.lock:
                self.kernels += 1
                if self.live:
                    self.write(f"{ERASE}compiling: {self.summary()}", end="")

    def summary(self) -> str:
        assert self.started is not None  # a kernel compiled
        plural = "" if self.kernels == 1 else "s"
        return f"{self.kernels} numba kernel{plural} in {time.perf_counter() - self.started:.0f} s"

    def finish(self) -> None:
        if self.started is not None:
            self.write(f"{ERASE if self.live else ''}Compiled {self.summary()}; cached, so later runs skip this.")

    def write(self, text: str, end: str = "\n") -> None:
        try:
            print(text, end=end, file=self.out, flush=True)
        except (OSError, ValueError):  # a closed or broken stderr: the notice is not worth a failure
            pass


@contextlib.contextmanager
def compile_notice(out: Optional[TextIO] = None) -> Iterator[CompileNotice]:
    """Report numba's compilations on ``out`` (default ``sys.stderr``) while the block runs."""
    notice = CompileNotice(sys.stderr if out is None else out)
    event.register("numba:compile", notice)
    try:
        yield notice
    finally:
        event.unregister("numba:compile", notice)
        notice.finish()
