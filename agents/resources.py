"""What the machine has, for options that ask for a share of it: the cores this process may run on
and the memory still available, so that an agent refuses what the machine cannot give with a
message that says why, before it allocates, instead of a ``MemoryError`` traceback at its first
move or threads that only take turns on two cores.

``most_threads()`` is the most search threads an agent accepts: twice the cores (a thread
waiting on memory leaves its core to another), and at least ``LEAST_MOST_THREADS``, so that a
search's split over threads can be run and tested on any machine. ``reserve(nbytes, what)``
refuses an allocation larger than the memory available now (``ResourceError``, a run-time
failure: the same options may work on a bigger machine or a quieter moment).

>>> cores() >= 1 and most_threads() >= LEAST_MOST_THREADS
True
>>> reserve(1 << 60, "a tree of 2**60 bytes")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
agents.resources.ResourceError: a tree of 2**60 bytes needs 1073741824.0 GiB of memory; ... available
"""

from __future__ import annotations

import os
from typing import Optional

from amazons_env.errors import AmazonsRuntimeError, InvalidArgumentError

__all__ = [
    "ResourceError",
    "cores",
    "most_threads",
    "check_threads",
    "available_memory",
    "reserve",
    "LEAST_MOST_THREADS",
]

#: ``most_threads`` is never below this, whatever the cores
LEAST_MOST_THREADS = 4


class ResourceError(AmazonsRuntimeError):
    """The machine has not enough of what an agent asks for (memory); the message says how much
    it asked for and how much there is."""


def cores() -> int:
    """The cores this process may run on (its CPU affinity where the system tells it)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # no affinity on this system
        return max(1, os.cpu_count() or 1)


def most_threads() -> int:
    """The most threads a search accepts here (module docstring)."""
    return max(LEAST_MOST_THREADS, 2 * cores())


def check_threads(threads: object, name: str = "threads") -> int:
    """``threads`` as a count of threads this machine can run (0: the library's own setting), or
    ``InvalidArgumentError`` naming the option ``name`` and why.

    >>> check_threads(1), check_threads(0)
    (1, 0)
    >>> check_threads(10_000, "net_threads")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    amazons_env.errors.InvalidArgumentError: net_threads=10000: more than this machine can run at once (...)
    """
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 0:
        raise InvalidArgumentError(f"{name}={threads!r}: must be a whole number >= 0")
    if threads > most_threads():
        raise InvalidArgumentError(
            f"{name}={threads}: more than this machine can run at once ({cores()} cores; at most "
            f"{most_threads()} threads: agents.resources.most_threads)"
        )
    return threads


def available_memory() -> Optional[int]:
    """Bytes of memory available to a new allocation now (Linux's ``MemAvailable``, else the
    free physical pages), or ``None`` where the system does not say."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def reserve(nbytes: int, what: str) -> None:
    """Refuse (``ResourceError`` naming ``what``) an allocation of ``nbytes`` larger than the
    memory available now; nothing where the system does not say how much there is."""
    available = available_memory()
    if available is not None and nbytes > available:
        raise ResourceError(
            f"{what} needs {nbytes / (1 << 30):.1f} GiB of memory; {available / (1 << 30):.1f} GiB available"
        )
