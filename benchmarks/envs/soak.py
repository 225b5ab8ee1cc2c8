"""Soak test: a million random env steps with the invariants checked at every step.

    python3 benchmarks/envs/soak.py                       # 1,000,000 steps, 10x10, 64 games at once
    python3 benchmarks/envs/soak.py --steps 100000 --size 6

Runs ``AmazonsVectorEnv`` with uniformly random legal actions (and, with probability
``--illegal``, an arbitrary action, usually illegal) and checks, for every game at every step:

* mask == legal list: the mask equals the (from, to) pairs (queen phase) or the arrow squares
  (arrow phase) of ``core.generate_moves`` run on the position before the turn, and the env's
  list of legal actions (used by ``sample_legal_actions``) holds each of them once; a finished
  game's mask is all ones until its reset;
* planes == board: every observation plane against the core arrays (queens, arrows, phase,
  shooter, vacated square, reach planes, colour);
* rewards: 0 on every non-final step; a game ends exactly when the side to move has no move,
  with +1 for the side that moved (its opponent's -1 makes each game sum to zero), or with -1
  for an illegal action; ``infos["rewards"]`` (per colour) is [0, 0] before the end and +1 for
  the winner, -1 for the loser on the last step;
* every finished game replayed move by move through ``Board.push`` (legality-checked) reaches
  the same final position and the same winner.

Prints steps/s and the number of violations (must be 0); exits 1 if there are any.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import NamedTuple, Optional

import numpy as np
from numba import njit
from tqdm import tqdm

from amazons_env import Board, core
from amazons_env.envs.actions import actions_to_move
from amazons_env.envs.kernels import game as K
from amazons_env.envs.kernels.batch import Outcomes
from amazons_env.envs.planes import NUM_PLANES
from amazons_env.envs.vector_env import AmazonsVectorEnv


@njit(cache=True)
def _reach_ref(cells, queens, nq, side, dirs, pub, nn, out):
    out[:] = 0
    for i in range(nq[side]):
        q = queens[side, i]
        for d in range(8):
            s = q + dirs[d]
            while cells[s] == core.EMPTY:
                out[pub[s]] = 1
                s += dirs[d]


class Scratch(NamedTuple):
    """The checks' working arrays: one game's padded ``cells``, its ``moves`` (``core.generate_moves``),
    a ``plane`` and each game's violation ``codes``."""

    cells: np.ndarray
    moves: np.ndarray
    plane: np.ndarray
    codes: np.ndarray


@njit(cache=True)
def check_game(games, i, geometry, out, scratch):
    """0 if game ``i``'s observation (``out.obs[i]``: ``[NUM_PLANES, N*N]``) and mask are right,
    else a violation code."""
    cells, queens, nq, meta = games.cells[i], games.queens[i], games.nq[i], games.meta[i]
    dirs, pad, pub, nn = geometry.dirs, geometry.pad, geometry.pub, geometry.nn
    obs, mask, legal = out.obs[i], out.masks[i], out.legal[i]
    side = meta[K.SIDE]
    if meta[K.DONE] != 0:  # a finished game's mask shows every action until its reset (pgx's convention)
        return 0 if mask.all() else 1
    # the position before the turn, to list the full legal moves with the rules core
    before = scratch.cells
    before[:] = cells
    sq_queens = queens.copy()
    phase = meta[K.PHASE]
    if phase == 1:
        before[meta[K.DST]] = core.EMPTY
        before[meta[K.SRC]] = side + 1
        sq_queens[side, meta[K.QIDX]] = meta[K.SRC]
    moves = scratch.moves
    n = core.generate_moves(before, sq_queens, nq, side, dirs, moves)
    expected = np.zeros(nn * nn, np.int8)
    for k in range(n):
        if phase == 0:
            expected[pub[moves[k, 0]] * nn + pub[moves[k, 1]]] = 1
        elif moves[k, 0] == meta[K.SRC] and moves[k, 1] == meta[K.DST]:
            expected[pub[moves[k, 1]] * nn + pub[moves[k, 2]]] = 1
    if not np.array_equal(expected, mask):
        return 2
    other = side ^ 1
    for sq in range(nn):
        c = cells[pad[sq]]
        if obs[0, sq] != (c == side + 1) or obs[1, sq] != (c == other + 1) or obs[2, sq] != (c == core.ARROW):
            return 3
        if obs[3, sq] != phase or obs[8, sq] != side:
            return 4
        if obs[4, sq] != (phase == 1 and pad[sq] == meta[K.DST]):
            return 5
        if obs[5, sq] != (phase == 1 and pad[sq] == meta[K.SRC]):
            return 5
    listed = np.zeros(nn * nn, np.int8)
    for k in range(meta[K.NLEGAL]):
        listed[legal[k]] += 1
    if not np.array_equal(listed, mask):
        return 12
    targets = np.zeros(nn, np.int8)
    for a in range(nn * nn):
        if mask[a]:
            targets[a % nn] = 1
    if not np.array_equal(targets, obs[6]):
        return 6
    _reach_ref(cells, queens, nq, other, dirs, pub, nn, scratch.plane)
    if not np.array_equal(scratch.plane, obs[7]):
        return 7
    return 0


@njit(cache=True)
def check_batch(games, geometry, out, outcomes, was_done, scratch):
    """Check every game (``scratch.codes[i]``: game ``i``'s violation code); ``was_done[i]``: game
    ``i`` had ended before this step (autoreset step). Returns the number of bad games."""
    bad = 0
    rewards, terminated, illegal = outcomes.rewards, outcomes.terminated, outcomes.illegal
    for i in range(games.cells.shape[0]):
        code = check_game(games, i, geometry, out, scratch)
        meta = games.meta[i]
        if code == 0:
            has = core.has_move(games.cells[i], games.queens[i], games.nq[i], meta[K.SIDE], geometry.dirs)
            if was_done[i]:
                if rewards[i] != 0 or terminated[i]:
                    code = 8
            elif illegal[i]:
                if rewards[i] != -1.0 or not terminated[i]:
                    code = 9
            elif terminated[i]:
                if rewards[i] != 1.0 or has or meta[K.PHASE] != 0:
                    code = 10
            elif rewards[i] != 0 or (meta[K.PHASE] == 0 and not has):
                code = 11
        scratch.codes[i] = code
        if code:
            bad += 1
    return bad


def main(argv: Optional[list[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=1_000_000, help="env steps in total (default 1,000,000)")
    parser.add_argument("--size", type=int, default=10)
    parser.add_argument("--envs", type=int, default=64, help="games stepped together")
    parser.add_argument("--illegal", type=float, default=0.002, help="probability of an arbitrary action")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    size, nn, b = args.size, args.size**2, args.envs
    envs = AmazonsVectorEnv(b, size=size, copy=False)
    rng = np.random.default_rng(args.seed)
    obs, infos = envs.reset(seed=args.seed)
    moves = np.empty((core.max_moves(size, core.MAX_QUEENS), 3), np.int64)
    scratch = Scratch(np.empty_like(envs._games.cells[0]), moves, np.zeros(nn, np.int8), np.zeros(b, np.int64))
    codes = scratch.codes
    was_done = np.zeros(b, np.bool_)
    histories: list[list[int]] = [[] for _ in range(b)]
    violations = games = replayed = 0
    examples: list[str] = []
    steps = 0
    start = time.perf_counter()
    with tqdm(total=args.steps, unit="step", unit_scale=True, mininterval=2) as bar:
        while steps < args.steps:
            actions = envs.sample_legal_actions()
            arbitrary = rng.random(b) < args.illegal
            actions[arbitrary] = rng.integers(nn * nn, size=int(arbitrary.sum()))
            obs, rewards, terminated, truncated, infos = envs.step(actions)
            # what the env returned (views of its buffers: copy=False) beside its own arrays
            out = K.Observations(obs.reshape(b, NUM_PLANES, nn), infos["action_mask"], envs._out.legal)
            outcomes = Outcomes(rewards, terminated, infos["illegal_action"], infos["rewards"])
            bad = check_batch(envs._games, envs._geometry, out, outcomes, was_done, scratch)
            bad += _colour_rewards_wrong(infos["rewards"], terminated, envs._games.meta[:, K.WINNER], codes)
            if bad:
                violations += bad
                examples.extend(f"step {steps}: game {i} violation code {codes[i]}" for i in np.flatnonzero(codes))
            for i in range(b):
                if was_done[i]:
                    histories[i] = []
                    continue
                histories[i].append(int(actions[i]))
                if terminated[i]:
                    games += 1
                    if not infos["illegal_action"][i]:
                        violations += _replay_differs(histories[i], size, envs, i)
                        replayed += 1
            was_done[:] = terminated
            steps += b
            bar.update(b)
    elapsed = time.perf_counter() - start
    print(
        f"{steps:,} steps ({games:,} games, {replayed:,} replayed through Board.push) on {size}x{size} "
        f"in {elapsed:.1f} s: {steps / elapsed:,.0f} steps/s with every check"
    )
    print(f"violations: {violations}")
    for line in examples[:10]:
        print("  " + line)
    sys.exit(1 if violations else 0)


def _colour_rewards_wrong(
    colour_rewards: np.ndarray, terminated: np.ndarray, winners: np.ndarray, codes: np.ndarray
) -> int:
    """Games whose per-colour rewards are not [0, 0] (running) or +1/-1 for winner/loser (just
    ended); their ``codes`` get 20."""
    expected = np.zeros_like(colour_rewards)
    ended = np.flatnonzero(terminated)
    expected[ended, winners[ended]] = 1.0
    expected[ended, 1 - winners[ended]] = -1.0
    wrong = (colour_rewards != expected).any(axis=1)
    codes[wrong] = 20
    return int(wrong.sum())


def _replay_differs(actions: list[int], size: int, envs: AmazonsVectorEnv, i: int) -> int:
    """Replay a finished game through the legality-checked Board; 1 if it disagrees with the env."""
    board = Board(size)
    try:
        for k in range(0, len(actions), 2):
            board.push(actions_to_move(actions[k], actions[k + 1], size))
    except (ValueError, IndexError):
        return 1
    winner = board.winner  # set once the game is over
    if winner is None or not np.array_equal(board.cells, envs._games.cells[i]):
        return 1
    return 0 if int(winner) == int(envs._games.meta[i, K.WINNER]) else 1


if __name__ == "__main__":
    main()
