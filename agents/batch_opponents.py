"""Batched opponents for ``AmazonsVectorEnv``: every game's reply in one numba call.

``batch_opponent(spec, size, num_threads)`` is the factory the vector env finds through the
``amazons_env.batch_opponents`` entry point (``amazons_env.envs.opponents``); it returns None for
a spec it has no batched form of, and the env then gives each game its own agent.

* ``random``: ``amazons_env.envs.batch_opponents.UniformRandom`` (a random queen move, then a
  random arrow: it needs only the env's legal lists, so it lives with the env).
* ``greedy`` (options ``eval``, an evaluator with a numba kernel, default ``territory``; ``kq``, the
  queen moves kept before arrows are scored, default 0 = all): the one-ply territory greedy. Each
  game's move is the best of ``move_order.candidates`` (every queen move scored by the
  evaluation after it, the best ``kq`` kept, each of their arrows scored after the whole move):
  with ``kq=0`` the move maximising the evaluation after it. Deterministic (ties: the order the
  candidates list them in).
* ``uct:sims=N`` (and ``uct``'s other options): ``uct_tree.forest.search_roots``, the ``uct``
  agent's search of each game's position from a fresh tree. Only with a node budget: ``uct``
  with ``time`` (or no budget, 1 s a move) stays one agent per game, whose games depend on the
  machine's load and are therefore not reproducible. ``threads=K`` (or the env's ``num_threads``,
  whichever is larger) searches chunks of the games on ``K`` threads, each taking the next chunk
  when done (``search_roots`` releases the GIL); the seeds of the searches come from the
  opponent's generator, so the moves do not depend on the threads. In the filling phase the
  search plays the agent's filling move (``endgame.filling_move``) in the same numba call.

>>> from amazons_env.envs.vector_env import AmazonsVectorEnv
>>> envs = AmazonsVectorEnv(8, size=6, opponent="uct:sims=20")
>>> type(envs._replies.opponent).__name__
'BatchUCT'
>>> _ = envs.reset(seed=0)
>>> obs, rewards, terminated, truncated, infos = envs.step(envs.sample_legal_actions())
>>> obs, rewards, terminated, truncated, infos = envs.step(envs.sample_legal_actions())
>>> infos["move_number"].tolist() == [2] * 8   # every game: our move and uct's reply
True
"""

from __future__ import annotations

import queue
from concurrent.futures import ThreadPoolExecutor, wait
from typing import Any, Callable, Optional

import numpy as np
from numba import njit, types

from amazons_env import Board
from amazons_env.envs.batch_opponents import BatchGames, BatchOpponent, UniformRandom
from amazons_env.envs.kernels.game import PHASE, SIDE
from amazons_env.errors import AmazonsRuntimeError

from agents.evaluation.evaluator import KERNEL_TYPE, Evaluator, make_evaluator
from agents.options import OptionError
from agents.registry import make, parse_spec
from agents.search import uct_tree as T
from agents.search.move_order import candidates
from agents.search.uct import UCT
from agents.search.uct_tree.expansion import BUFFERS_TYPE
from agents.search.uct_tree.forest import SLICE_TYPE, Forest, Slice, scratch, search_roots

__all__ = ["batch_opponent", "WholeMoves", "BatchGreedy", "BatchUCT", "greedy_moves"]

#: rows of one game's tree at most (a root of ``uct:sims=N`` needs at most ``1 + N * MAX_KIDS``)
MAX_TREE_ROWS = 1 << 16
#: chunks of a batch per thread, taken in turn (``WholeMoves.slices``)
CHUNKS_PER_THREAD = 4
GREEDY_OPTIONS = ("eval", "kq")


def batch_opponent(spec: str, size: int, num_threads: int = 1) -> Optional[BatchOpponent]:
    """The batched opponent of ``spec`` (module docstring), None if it has none."""
    name, options = parse_spec(spec)
    if name == "random":
        unknown = set(options) - {"seed"}
        if unknown:
            raise OptionError(f"spec {spec!r}: random takes only seed=, not {', '.join(sorted(unknown))}")
        return UniformRandom(options.get("seed"))
    if name == "greedy":
        unknown = set(options) - set(GREEDY_OPTIONS)
        if unknown:
            raise OptionError(f"spec {spec!r}: greedy takes {', '.join(GREEDY_OPTIONS)}, not {', '.join(unknown)}")
        kq = options.get("kq", 0)
        if isinstance(kq, bool) or not isinstance(kq, int) or kq < 0:
            raise OptionError(f"spec {spec!r}: kq={kq!r} must be a whole number >= 0")
        return BatchGreedy(make_evaluator(options.get("eval", "territory")), kq, size, num_threads)
    if name == "uct" and "sims" in options and "time" not in options:
        agent = make(spec)
        assert isinstance(agent, UCT)
        return BatchUCT(agent, size, max(num_threads, agent.threads))
    return None


class WholeMoves(BatchOpponent):
    """A batched opponent that chooses whole moves in the queen phase (``choose``: padded
    ``(from, to, arrow)`` of each game listed) and plays their arrows in the arrow phase, its
    work split in slices over ``threads`` threads."""

    def __init__(self, size: int, threads: int) -> None:
        self.size, self.threads = size, threads
        self._rng = np.random.default_rng()
        self._pending = np.zeros(0, np.int64)  # each game's arrow action, grown to the env's games
        self._pool: Optional[ThreadPoolExecutor] = None

    def choose(self, games: BatchGames, which: np.ndarray, seeds: np.ndarray, out: np.ndarray) -> None:
        """Write the move of each game ``which[k]`` into ``out[k]`` (padded squares)."""
        raise NotImplementedError

    def slices(self, count: int, work: Callable[[int, int, int], None]) -> None:
        """``work(lo, hi, thread)`` over ``0..count`` on ``threads`` threads, the first here: one slice
        on one thread, else ``CHUNKS_PER_THREAD`` contiguous chunks per thread, each thread taking the
        next chunk when it is done with one (a root in the filling phase, or at a game's start, costs
        many of the others: equal halves would leave one thread waiting for the other)."""
        threads = max(1, min(self.threads, count))
        if threads == 1:
            work(0, count, 0)
            return
        chunks = min(count, threads * CHUNKS_PER_THREAD)
        bounds = [count * c // chunks for c in range(chunks + 1)]
        left: queue.SimpleQueue[int] = queue.SimpleQueue()  # each chunk goes to the one thread that takes it
        for c in range(chunks):
            left.put(c)

        def worker(thread: int) -> None:
            while True:
                try:
                    c = left.get_nowait()
                except queue.Empty:
                    return
                work(bounds[c], bounds[c + 1], thread)

        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.threads - 1, thread_name_prefix="batch-opponent")
        others = [self._pool.submit(worker, thread) for thread in range(1, threads)]
        try:
            worker(0)
        finally:  # an error leaves only once no thread is working on this batch's arrays any more
            wait(others)
        for future in others:
            future.result()

    def act(self, games: BatchGames, which: np.ndarray, out: np.ndarray) -> None:
        if len(self._pending) < games.meta.shape[0]:
            self._pending = np.zeros(games.meta.shape[0], np.int64)
        if games.meta[which[0], PHASE] != 0:
            out[which] = self._pending[which]
            return
        moves = np.empty((len(which), 3), np.int64)
        self.choose(games, which, self._rng.integers(1, 1 << 62, size=len(which)), moves)
        if (moves < 0).any():  # a search that found no move in a running game: a bug, never a silent pass
            game = int(which[np.argmax(moves.min(1) < 0)])
            raise AmazonsRuntimeError(f"{type(self).__name__} found no move in game {game}")
        public, nn = games.pub, games.size * games.size
        frm, to, arrow = public[moves[:, 0]], public[moves[:, 1]], public[moves[:, 2]]
        out[which] = frm * nn + to
        self._pending[which] = to * nn + arrow

    def seed(self, seed: int) -> None:
        self._rng = np.random.default_rng(seed)

    def get_state(self) -> Any:
        return self._rng.bit_generator.state, self._pending.copy()

    def set_state(self, state: Any) -> None:
        self._rng.bit_generator.state, pending = state
        self._pending = np.array(pending)


_GREEDY_ARGS = (SLICE_TYPE, KERNEL_TYPE, types.float64[::1], types.int64, BUFFERS_TYPE, types.int64[:, ::1])


# typed with the kernel's first-class type, as the searches are (``evaluator``: cached once for
# every evaluator); nogil: slices of a batch run on threads
@njit(types.void(*_GREEDY_ARGS), cache=True, nogil=True)
def greedy_moves(games, kernel, params, kq, buffers, out):
    """``out[k]``: the best candidate move (padded squares) of game ``games.games[k]`` for ``k`` in
    ``games.lo .. games.hi`` (``move_order.candidates`` with ``kq`` queen moves kept; ``buffers``
    from ``uct_tree.scratch``, without a deadline)."""
    for k in range(games.lo, games.hi):
        g = games.games[k]
        cells, queens, nq = games.cells[g].copy(), games.queens[g].copy(), games.nq[g].copy()
        # > 0 moves: the game is running
        candidates(cells, queens, nq, games.sides[g], games.dirs, kernel, params, kq, buffers.lists, buffers.stats)
        out[k, :] = buffers.lists.moves[0, :]


class BatchGreedy(WholeMoves):
    """``greedy``: the one-ply territory greedy (module docstring)."""

    def __init__(self, evaluator: Evaluator, kq: int, size: int, threads: int = 1) -> None:
        if evaluator.kernel is None:
            raise OptionError(f"greedy: eval={evaluator.name!r} has no numba kernel")
        super().__init__(size, threads)
        self.evaluator, self.kq = evaluator, kq
        self._scratch = [scratch(size) for _ in range(threads)]

    def choose(self, games: BatchGames, which: np.ndarray, seeds: np.ndarray, out: np.ndarray) -> None:
        position = (games.cells, games.queens, games.nq, np.ascontiguousarray(games.meta[:, SIDE]), which)
        kernel, params = self.evaluator.kernel, self.evaluator.params_for(self.size)

        def work(lo: int, hi: int, thread: int) -> None:
            greedy_moves(Slice(*position, lo, hi, games.dirs), kernel, params, self.kq, self._scratch[thread], out)

        self.slices(len(which), work)


class BatchUCT(WholeMoves):
    """``uct:sims=N``: ``agent``'s search (its options) of every game's position from a fresh tree
    (module docstring)."""

    def __init__(self, agent: UCT, size: int, threads: int = 1) -> None:
        super().__init__(size, threads)
        assert agent.limit.simulations is not None  # batch_opponent makes one for sims= specs only
        self.agent, self.sims = agent, int(agent.limit.simulations)
        # the vector env's games start from ``Board(size)``: its queens, as the agent counts them; one thread per tree
        self.config = agent.search_config(size, int(Board(size).queen_counts.max()))
        self.rows = min(MAX_TREE_ROWS, 1 + self.sims * self.config.max_kids)
        self._trees: tuple[np.ndarray, np.ndarray] = (np.empty((0, T.NI), np.int32), np.empty((0, T.NF)))
        self._scratch = [scratch(size) for _ in range(threads)]

    def choose(self, games: BatchGames, which: np.ndarray, seeds: np.ndarray, out: np.ndarray) -> None:
        ni, nf = self._trees
        need = self.threads * self.rows  # one tree per thread, reused for each of its games
        if ni.shape[0] < need:
            ni, nf = self._trees = np.empty((need, T.NI), np.int32), np.empty((need, T.NF))
        position = (games.cells, games.queens, games.nq, np.ascontiguousarray(games.meta[:, SIDE]), which)
        kernel, params = self.agent.evaluator.kernel, self.agent.evaluator.params_for(self.size)

        def work(lo: int, hi: int, thread: int) -> None:
            forest = Forest(ni, nf, thread * self.rows, self.rows)
            games_slice = Slice(*position, lo, hi, games.dirs)
            search_roots(games_slice, kernel, params, self.config, forest, self.sims, seeds, self._scratch[thread], out)

        self.slices(len(which), work)
