"""Where batches of independent work run: processes on this machine, or a Ray cluster.

``run_tasks(fn, tasks, workers, backend, address)`` calls ``fn(*task)`` for every task and yields
``(task, result)`` pairs **as they finish** (not in order), so that the caller writes each result
where it belongs (the arena's results JSON, a self-play shard and its manifest) the moment it
exists: a run stopped in any way loses only the tasks still running, and the caller's resume
logic (skip what the file already holds) completes it. A task is a tuple of plain values (agent
spec strings, seeds, indices, sizes) and ``fn`` a module-level function of this package (or a
``functools.partial`` of one), so any process that has the package installed can run it, and
the same task gives the same result on either backend. ``shared``: one more value passed first to
every call, ``fn(shared, *task)`` (a net's weights as bytes, say): Ray stores it once in its object
store, where every node fetches it once, instead of sending it with every task; the local backend
sends it with each task.

* ``backend="local"`` (the default): ``workers`` spawned processes of this machine
  (``agents.arena.processes.worker_pool``: they end with this process), or this process when
  ``workers`` is 1, there is a single task, or the call comes from the top level of a script
  without a ``__main__`` guard (``agents.arena.processes.pool_allowed``). ``workers=None``: one
  per CPU core.
* ``backend="ray"``: one Ray task per task (1 CPU each), on the cluster at ``address``
  (``"auto"``, ``"ray://HOST:10001"`` or ``"HOST:6379"``), or on a local Ray instance started for
  this process when ``address`` is None; at most ``workers`` run at once (None: as many as the
  cluster schedules). An existing connection (``ray.init`` called before) is used as it is.
  A Ray worker that dies has its task retried (``max_retries``); leaving the loop early (an
  error, Ctrl-C, or SIGTERM, which raises ``KeyboardInterrupt`` here as with the local pool)
  cancels the tasks still queued or running. A ``fn`` whose tasks need more than a CPU says so in
  its attribute ``ray_resources`` (Ray's resource options, e.g. ``{"num_gpus": 0.25}``: four
  tasks share a GPU, and they run only on the nodes that have one); the local backend ignores it.
  Ray is an optional extra: ``pip install "amazons[ray]"``.

>>> [result for _, result in run_tasks(abs, [(-3,), (4,)], workers=1)]
[3, 4]
>>> import os.path
>>> [result for _, result in run_tasks(os.path.join, [("a",), ("b",)], workers=1, shared="data")]
['data/a', 'data/b']
>>> check_backend("slurm", None)
Traceback (most recent call last):
    ...
agents.arena.backends.BackendError: backend='slurm': choose one of local, ray
"""

from __future__ import annotations

import argparse
import os
import signal
import threading
from concurrent.futures import as_completed
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Optional, Sequence, TypeVar

from amazons_env.errors import AmazonsRuntimeError, InvalidArgumentError

from agents.arena.processes import pool_allowed, worker_pool

__all__ = [
    "BACKENDS",
    "BackendError",
    "WorkerError",
    "check_backend",
    "run_tasks",
    "ray_module",
    "add_backend_arguments",
]

BACKENDS = ("local", "ray")
RAY_MISSING = 'backend "ray" needs Ray: pip install "amazons[ray]" (or pip install ray) on every node'

T = TypeVar("T")
Task = Sequence[Any]


class BackendError(InvalidArgumentError):
    """A backend option that cannot be used: an unknown name, a bad address, or Ray not installed."""


class WorkerError(AmazonsRuntimeError):
    """A worker process that died (killed, or out of memory), a Ray worker or node lost for good,
    or a Ray cluster that cannot be reached: the run failed, not its input."""


def check_backend(backend: Any, address: Any) -> None:
    """Refuse an unknown ``backend``, an ``address`` that is not a non-empty string (or None) or
    given without ``backend="ray"``, and ``backend="ray"`` where Ray is not installed; nothing is
    started."""
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise BackendError(f"backend={str(backend)[:100]!r}: choose one of {', '.join(BACKENDS)}")
    if address is not None:
        if not isinstance(address, str) or not address.strip() or len(address) > 1000 or "\0" in address:
            raise BackendError(f"ray address {str(address)[:100]!r}: give HOST:PORT, ray://HOST:PORT or auto")
        if backend != "ray":
            raise BackendError(f"ray address {address[:100]!r} given with backend={backend!r}: add backend ray")
    if backend == "ray":
        ray_module()


def add_backend_arguments(parser: argparse.ArgumentParser) -> None:
    """``--backend`` and ``--ray-address`` (read back as ``args.backend`` and ``args.ray_address``)."""
    parser.add_argument(
        "--backend",
        choices=BACKENDS,
        default="local",
        help="where games run: local processes (default) or a Ray cluster (pip install "
        "'amazons[ray]'); results land in the same files, the same seeds give the same games",
    )
    parser.add_argument(
        "--ray-address",
        default=None,
        metavar="ADDR",
        help="with --backend ray: the cluster (HOST:6379 from `ray start --head`, "
        "ray://HOST:10001, or auto); default: a local Ray instance",
    )


def ray_module():
    """The ``ray`` module, or ``BackendError`` saying how to install it."""
    try:
        import ray
    except ImportError:
        raise BackendError(RAY_MISSING) from None
    return ray


_NOTHING = object()


def run_tasks(
    fn: Callable[..., T],
    tasks: Sequence[Task],
    workers: Optional[int] = None,
    backend: str = "local",
    address: Optional[str] = None,
    shared: Any = _NOTHING,
) -> Iterator[tuple[Task, T]]:
    """``(task, fn(*task))`` (or ``fn(shared, *task)``) for every task, in order of completion
    (see the module docstring)."""
    check_backend(backend, address)
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise BackendError(f"workers={workers!r}: must be a whole number >= 1")
    tasks = list(tasks)
    lead = () if shared is _NOTHING else (shared,)
    if backend == "ray":
        yield from _ray_tasks(fn, tasks, workers, address, lead)
    elif workers == 1 or len(tasks) <= 1 or not pool_allowed():
        for task in tasks:
            yield task, fn(*lead, *task)
    else:
        yield from _pool_tasks(fn, tasks, workers, lead)


def _pool_tasks(
    fn: Callable[..., T], tasks: list[Task], workers: Optional[int], lead: tuple
) -> Iterator[tuple[Task, T]]:
    with worker_pool(min(workers or os.cpu_count() or 1, len(tasks))) as pool:
        futures = {pool.submit(fn, *lead, *task): task for task in tasks}
        try:
            for future in as_completed(futures):
                yield futures[future], future.result()
        except BrokenProcessPool:
            raise WorkerError(
                f"a worker process of {getattr(fn, '__name__', 'the run')} died (killed, or out of memory)"
            ) from None


def _connect(address: Optional[str]):
    """The ``ray`` module, connected: to ``address``, or a new local instance; an existing
    connection is kept (later calls of the same process reuse it; Ray closes it at exit)."""
    ray = ray_module()
    if not ray.is_initialized():
        try:
            ray.init(address=address, include_dashboard=False, log_to_driver=False, configure_logging=False)
        except ConnectionError as error:
            raise WorkerError(
                f"cannot connect to the Ray cluster at {address!r}: {error} (a cluster started with "
                "token authentication needs RAY_AUTH_MODE=token here too, and its token in "
                "~/.ray/auth_token or RAY_AUTH_TOKEN)"
            ) from None
    return ray


def _call(fn: Callable[..., T], *args: Any) -> T:
    """A Ray task's body: any picklable callable (a partial too), not only a plain function."""
    return fn(*args)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signal.Signals(signum).name}")


@contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    """SIGTERM raises ``KeyboardInterrupt`` inside the block (Ray's own handler would abort the
    driver with a core dump instead of letting it cancel its tasks and exit cleanly)."""
    if threading.current_thread() is not threading.main_thread():  # handlers live in the main thread
        yield
        return
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _ray_tasks(
    fn: Callable[..., T], tasks: list[Task], workers: Optional[int], address: Optional[str], lead: tuple
) -> Iterator[tuple[Task, T]]:
    if not tasks:
        return
    ray = _connect(address)
    # one CPU per task (Ray then sets OMP_NUM_THREADS=1 in it); a task whose worker process dies
    # is run again, up to 3 times, before the run stops with the error
    name = getattr(fn, "__name__", None) or getattr(getattr(fn, "func", None), "__name__", "task")
    resources = getattr(fn, "ray_resources", {})
    remote = ray.remote(num_cpus=1, max_retries=3)(_call).options(name=name, **resources)  # titled ray::NAME
    # stored once; Ray passes each task the values (a partial's arguments, shared weights) themselves
    lead = tuple(ray.put(value) for value in (fn, *lead))
    limit = len(tasks) if workers is None else workers
    queue = iter(tasks)
    running: dict[Any, Task] = {}

    def submit() -> None:
        for task in queue:
            running[remote.remote(*lead, *task)] = task
            if len(running) >= limit:
                break

    with _sigterm_interrupts():
        try:
            submit()
            while running:
                done, _ = ray.wait(list(running), num_returns=1)
                task = running.pop(done[0])
                try:
                    result = ray.get(done[0])
                except ray.exceptions.RayTaskError as error:  # fn raised: raise the same error here
                    raise error.as_instanceof_cause() from None
                except ray.exceptions.RayError as error:  # a worker or node lost for good
                    raise WorkerError(f"a Ray task of {name} failed: {error}") from None
                submit()
                yield task, result
        finally:  # an error, Ctrl-C, SIGTERM or an abandoned loop: nothing keeps running for this run
            for ref in running:
                ray.cancel(ref, force=True)
