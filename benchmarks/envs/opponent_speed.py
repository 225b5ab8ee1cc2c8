"""The vector env's opponents at env speed: learner steps per second of ``AmazonsVectorEnv`` with a
batched opponent beside self-play and beside one Python agent per game, all in one run.

    NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 python3 benchmarks/envs/opponent_speed.py
    python3 benchmarks/envs/opponent_speed.py --sizes 6 --seconds 2 --threads 1 2 4

Rows (64 games unless ``--envs``; actions from ``sample_legal_actions()``, default ``copy=True``):
* ``self-play``: no opponent, every step a move of one side (the reference of the random rows).
* ``random`` (batched: ``UniformRandom``, a numba pick from the legal lists) and ``random agents``
  (a list of 64 ``random`` agents, one ``select_move(board)`` per game in Python).
* ``uct:sims=N`` batched (``uct_tree.forest``: every game's search in one numba call, on 1, 2, ...
  threads) and ``uct:sims=N agents`` (one ``uct`` agent per game, the per-game path; by default an
  agent keeps the subtree of the position two plies on, so its simulations expand fewer nodes:
  ``reuse=false agents`` run the batched opponent's own search, a fresh tree each move). The
  agents' proven-move shortcut (``prove``) is off: the batched search has none.

Each rate counts the learner's steps (an opponent's replies happen inside them). The rows of a
board size run in turns of ``--seconds`` slices, so that a load that changes during the run hits
them alike; the rates are per wall-clock second and per CPU second of this process (CPU time
counts every thread: for the thread rows, read the wall rate; on a machine shared with other jobs
the wall rates of several threads are bounded by the cores left free). The ratios the targets ask
for are printed last: batched random / self-play, batched uct / uct agents (one thread), and the
uct rate on K threads / on one.

Then where the batched uct's time goes (``--profile-steps`` learner steps of a fresh env, every
``--profile-every``-th position its opponent searched): CPU microseconds per root of
``search_roots`` (the batch, one call, one thread), of ``uct_tree.run`` called once per root
(the agent's search of it, without the agent's Python) and of ``endgame.count_fill`` at the root
(the filling-phase check and count both paths make; a root in the filling phase is not searched),
the simulations and evaluator calls per root, and one evaluator call's time on the roots.
"""

from __future__ import annotations

import argparse
import time
from typing import Any, Callable

import numpy as np
from numba import njit

from amazons_env import core
from amazons_env.envs.batch_opponents import BatchGames, BatchOpponent
from amazons_env.envs.kernels.game import SIDE
from amazons_env.envs.vector_env import AmazonsVectorEnv

from agents import make
from agents.batch_opponents import BatchUCT, batch_opponent
from agents.search import uct_tree as T
from agents.search.agent import SearchAgent
from agents.search.endgame import DEFAULT_BUDGET, count_fill
from agents.search.move_order import Position
from agents.search.uct_tree.forest import Forest, Slice, scratch, search_roots


def _runner(envs: AmazonsVectorEnv) -> Callable[[float], tuple[int, float, float]]:
    """Step ``envs`` for about ``seconds``; returns (steps, wall s, CPU s)."""
    envs.reset(seed=0)

    def run(seconds: float) -> tuple[int, float, float]:
        steps, wall0, cpu0 = 0, time.perf_counter(), time.process_time()
        while time.perf_counter() - wall0 < seconds:
            for _ in range(8):
                envs.step(envs.sample_legal_actions())
            steps += 8 * envs.num_envs
        return steps, time.perf_counter() - wall0, time.process_time() - cpu0

    return run


def measure(rows: dict[str, Callable], seconds: float, rounds: int) -> dict[str, dict[str, float]]:
    """Every row in turns, ``rounds`` slices of ``seconds`` each (after one warm-up slice each)."""
    for run in rows.values():
        run(min(seconds, 0.5))
    totals = {name: [0, 0.0, 0.0] for name in rows}
    for _ in range(rounds):
        for name, run in rows.items():
            for k, value in enumerate(run(seconds)):
                totals[name][k] += value
    return {name: {"wall": s / w, "cpu": s / c if c > 0 else float("nan")} for name, (s, w, c) in totals.items()}


class _Recording(BatchOpponent):
    """``BatchUCT``, keeping every ``every``-th position it searches, with its seed."""

    def __init__(self, opponent: BatchUCT, every: int) -> None:
        self.opponent, self._seen = opponent, 0
        self.kept: list[tuple[np.ndarray, ...]] = []  # (cells, queens, nq, sides, seeds) of each call
        choose = opponent.choose

        def recording(games: BatchGames, which: np.ndarray, seeds: np.ndarray, out: np.ndarray) -> None:
            picked = (self._seen + np.arange(len(which))) % every == 0
            self._seen += len(which)
            keep = which[picked]
            self.kept.append(
                (games.cells[keep], games.queens[keep], games.nq[keep], games.meta[keep, SIDE], seeds[picked])
            )
            choose(games, which, seeds, out)

        opponent.choose = recording  # type: ignore[method-assign]

    def act(self, games: BatchGames, which: np.ndarray, out: np.ndarray) -> None:
        self.opponent.act(games, which, out)

    def seed(self, seed: int) -> None:
        self.opponent.seed(seed)


@njit
def _root_fills(cells, queens, nq, dirs):
    """``count_fill`` of each position at the agents' budget; returns how many are separated."""
    bounds, first = np.empty((2, 3), np.int64), np.empty((2, 3), np.int64)
    separated = 0
    for k in range(cells.shape[0]):
        separated += count_fill(cells[k].copy(), queens[k].copy(), nq[k].copy(), dirs, DEFAULT_BUDGET, bounds, first)
    return separated


@njit
def _evaluate_all(kernel, cells, queens, nq, sides, dirs, params):
    total = 0.0
    for k in range(cells.shape[0]):
        total += kernel(cells[k], queens[k], nq[k], sides[k], dirs, params)
    return total


def _cpu(work: Callable[[], Any], count: int, repeats: int = 2) -> float:
    """The least CPU microseconds per item of ``work()`` over ``count`` items (after one warm-up)."""
    work()
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best / count * 1e6


def profile(size: int, spec: str, steps: int, every: int) -> None:
    """Where the batched uct's time goes (module docstring), printed."""
    opponent = batch_opponent(spec, size)
    assert isinstance(opponent, BatchUCT)
    recording = _Recording(opponent, every)
    envs = AmazonsVectorEnv(64, size, opponent=recording)
    envs.reset(seed=1)
    for _ in range(steps):
        envs.step(envs.sample_legal_actions())
    cells, queens, nq, sides, seeds = (np.concatenate(part) for part in zip(*recording.kept))
    sides, n, dirs = sides.astype(np.int64), len(cells), core.directions(size + 2)
    cfg, sims, rows, evaluator = opponent.config, opponent.sims, opponent.rows, opponent.agent.evaluator
    kernel, params, buffers = evaluator.kernel, evaluator.params_for(size), scratch(size)
    ni, nf, out = np.empty((rows, T.NI), np.int32), np.empty((rows, T.NF)), np.zeros((n, 3), np.int64)
    batch, forest = Slice(cells, queens, nq, sides, np.arange(n), 0, n, dirs), Forest(ni, nf, 0, rows)
    batched = _cpu(lambda: search_roots(batch, kernel, params, cfg, forest, sims, seeds, buffers, out), n)
    st, recorded, budget = np.zeros(T.NST, np.int64), T.leaves.buffers(0, size), T.Budget(sims, np.full(2, 1 << 62), 0)
    counts = np.zeros(2, np.int64)

    def single() -> None:
        counts[:] = 0
        for k in range(n):
            st[:] = 0
            T.new_root(ni, nf, st)
            st[T.RNG] = seeds[k]
            position = Position(cells[k].copy(), queens[k].copy(), nq[k].copy(), dirs)
            tree = T.Tree(ni, nf, st)
            counts[0] += T.run(position, int(sides[k]), kernel, params, cfg, tree, budget, buffers, recorded)
            counts[1] += st[T.EVALS]

    run = _cpu(single, n)
    fills = _cpu(lambda: _root_fills(cells, queens, nq, dirs), n)
    one_eval = _cpu(lambda: _evaluate_all(kernel, cells, queens, nq, sides, dirs, params), n, 5)
    filling, (played, evals) = _root_fills(cells, queens, nq, dirs), counts / n
    print(f"  where {spec} (batched) spends its time: {n} roots, {filling} in the filling phase; CPU us per root")
    print(f"    search_roots (the batch, 1 thread)      {batched:9.1f}")
    print(
        f"    uct_tree.run, one root per call         {run:9.1f}  ({played:.1f} simulations, {evals:.0f} evaluations)"
    )
    print(f"    endgame.count_fill at the root          {fills:9.1f}")
    print(f"    evaluations x one evaluation's time     {evals * one_eval:9.1f}  ({one_eval:.2f} us one, at the roots)")
    print(f"  search_roots / (run + count_fill): {batched / (run + fills):.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[6, 10])
    parser.add_argument("--envs", type=int, default=64)
    parser.add_argument("--sims", type=int, default=100)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--seconds", type=float, default=2.0, help="length of one slice of a row")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--profile-steps", type=int, default=200, help="learner steps recorded for the profile (0: none)"
    )
    parser.add_argument("--profile-every", type=int, default=10, help="every k-th searched position profiled")
    args = parser.parse_args()
    b, sims = args.envs, args.sims
    print(f"{b} games per env, learner steps per second (wall | CPU of this process), {args.rounds} x {args.seconds} s")
    for size in args.sizes:
        rows: dict[str, Any] = {
            "self-play": _runner(AmazonsVectorEnv(b, size)),
            "random (batched)": _runner(AmazonsVectorEnv(b, size, opponent="random")),
            "random agents": _runner(AmazonsVectorEnv(b, size, opponent=[make("random") for _ in range(b)])),
        }
        for threads in args.threads:
            spec = f"uct:sims={sims}" + (f",threads={threads}" if threads > 1 else "")
            rows[f"uct:sims={sims} (batched, {threads} thread{'s' * (threads > 1)})"] = _runner(
                AmazonsVectorEnv(b, size, opponent=spec)
            )
        for reuse in ("", ",reuse=false"):
            agents = [make(f"uct:sims={sims}{reuse}") for _ in range(b)]
            for agent in agents:  # the same search as the batched one, which has no proven-move shortcut
                assert isinstance(agent, SearchAgent)
                agent.prove = 0
            rows[f"uct:sims={sims}{reuse} agents"] = _runner(AmazonsVectorEnv(b, size, opponent=agents))
        rates = measure(rows, args.seconds, args.rounds)
        print(f"\n{size}x{size}")
        for name, rate in rates.items():
            print(f"  {name:34s} {rate['wall']:>12,.0f} | {rate['cpu']:>12,.0f}")
        uct = [name for name in rates if name.startswith("uct") and "batched" in name]
        print(
            f"  random (batched) / self-play: {rates['random (batched)']['cpu'] / rates['self-play']['cpu']:.2f} (CPU)"
        )
        one = rates[uct[0]]
        for reuse in ("", ",reuse=false"):
            per_game = rates[f"uct:sims={sims}{reuse} agents"]["cpu"]
            print(f"  uct batched (1 thread) / uct:sims={sims}{reuse} agents: {one['cpu'] / per_game:.2f} (CPU)")
        for name in uct[1:]:
            print(f"  {name} / 1 thread: {rates[name]['wall'] / one['wall']:.2f} (wall)")
        if args.profile_steps:
            profile(size, f"uct:sims={sims}", args.profile_steps, args.profile_every)


if __name__ == "__main__":
    main()
