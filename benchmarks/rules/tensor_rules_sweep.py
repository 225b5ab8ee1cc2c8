"""The torch rules (``amazons_env.tensor``) against the numba envs over many random positions of
every size 4..12; prints the positions checked and the mismatch count (the target is 0).

    python3 benchmarks/rules/tensor_rules_sweep.py                     # >= 100,000 positions on CPU
    python3 benchmarks/rules/tensor_rules_sweep.py --per-size 2000 --device cuda
    python3 benchmarks/rules/tensor_rules_sweep.py --fixed-queens      # the accelerators' path, on CPU

Two sources of positions per size, alternating the action encoding by size:
* played: ``--games`` games in ``AmazonsVectorEnv`` (the numba kernels) and in one
  ``TensorState`` batch, stepped in lock-step with the vector env's random legal actions (one in
  200 replaced by a random, mostly illegal, action); each live game's step is one position: its
  observation planes, mask, rewards, termination and winner must be equal. Finished games
  restart on both.
* layouts: random layouts (1..12 queens a side, random arrows, either side to move) through
  ``AmazonsEnv.reset(options={"position": ...})``: planes and mask, then one random legal queen
  step and one arrow step compared the same way.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from amazons_env import Board
from amazons_env.core import MAX_QUEENS
from amazons_env.envs.actions import num_actions
from amazons_env.envs.gym_env import AmazonsEnv
from amazons_env.envs.vector_env import AmazonsVectorEnv
from amazons_env.tensor import from_boards, initial_state, observe, reach, step, where


def played(size: int, encoding: str, games: int, positions: int, device: str, rng: np.random.Generator):
    """(positions checked, mismatching positions) of lock-step random play."""
    envs = AmazonsVectorEnv(games, size, action_encoding=encoding, mask_dtype="bool", autoreset_mode="Disabled")
    obs, infos = envs.reset(seed=int(rng.integers(2**31)))
    start = initial_state(games, size, device)
    state = start
    checked = bad = 0
    high = num_actions(size, encoding)
    while checked < positions:
        ours_obs, ours_mask = observe(state, encoding)
        same = (ours_obs.cpu().numpy() == obs).all(axis=(1, 2, 3))
        same &= (ours_mask.cpu().numpy() == infos["action_mask"]).all(axis=1)
        same &= state.phase.cpu().numpy() == infos["phase"]
        same &= state.move_number.cpu().numpy() == infos["move_number"]
        actions = envs.sample_legal_actions()
        wild = rng.random(games) < 0.005
        actions[wild] = rng.integers(high, size=int(wild.sum()))
        obs, _, terminated, _, infos = envs.step(actions)
        state, rewards, done = step(state, torch.from_numpy(actions).to(device), encoding)
        same &= (rewards.cpu().numpy() == infos["rewards"]).all(axis=1)
        same &= done.cpu().numpy() == terminated
        same &= np.where(terminated, state.winner.cpu().numpy(), -1) == np.where(terminated, infos["winner"], -1)
        checked += games
        bad += int((~same).sum())
        if terminated.any():
            final = observe(state, encoding)[0].cpu().numpy()
            bad += int((final[terminated] != obs[terminated]).any(axis=(1, 2, 3)).sum())
            obs, infos = envs.reset(options={"reset_mask": terminated.copy()})
            state = where(torch.from_numpy(terminated).to(device), start, state)
    return checked, bad


def random_layout(size: int, rng: np.random.Generator) -> Board:
    squares = rng.permutation(size * size).tolist()
    most = min(MAX_QUEENS, size * size // 2 - 1)
    white, black = int(rng.integers(1, most + 1)), int(rng.integers(1, most + 1))
    arrows = int(rng.integers(0, size * size - white - black + 1))
    w, b = white, white + black
    return Board.from_squares(size, squares[:w], squares[w:b], squares[b : b + arrows], int(rng.integers(2)))


def layouts(size: int, encoding: str, count: int, device: str, rng: np.random.Generator):
    """(positions checked, mismatching positions) of random layouts and two steps from each (a
    legal queen move, then an arrow: legal but for one in 20)."""
    boards = [random_layout(size, rng) for _ in range(count)]
    over = np.array([board.is_game_over() for board in boards])
    state = from_boards(boards, device)
    bad = int((state.terminated.cpu().numpy() != over).sum())
    live = np.flatnonzero(~over)
    env = AmazonsEnv(size, action_encoding=encoding, mask_dtype="bool")
    # per live board and checkpoint: planes, mask, rewards, terminated, winner
    expected = []
    actions = np.zeros((2, count), np.int64)
    for g in live:
        obs, info = env.reset(options={"position": boards[g]})
        rows = [(obs, info["action_mask"], np.zeros(2), False, -1)]
        for k in range(2):
            legal = np.flatnonzero(info["action_mask"])
            wild = k == 1 and rng.random() < 0.05
            actions[k, g] = rng.integers(num_actions(size, encoding)) if wild else rng.choice(legal)
            obs, _, terminated, _, info = env.step(int(actions[k, g]))
            rows.append((obs, info["action_mask"], info["rewards"], terminated, info.get("winner", -1)))
        expected.append(rows)
    state = state._replace(terminated=state.terminated.clone())
    rewards = torch.zeros(count, 2)
    for k in range(3):
        obs, mask = (x.cpu().numpy() for x in observe(state, encoding))
        got = (rewards.cpu().numpy(), state.terminated.cpu().numpy(), state.winner.cpu().numpy())
        for row, g in enumerate(live):
            want = expected[row][k]
            same = (obs[g] == want[0]).all() and (mask[g] == want[1]).all() and (got[0][g] == want[2]).all()
            bad += int(not (same and got[1][g] == want[3] and got[2][g] == want[4]))
        if k < 2:
            state, rewards, _ = step(state, torch.from_numpy(actions[k]).to(device), encoding)
    return count + 2 * len(live), bad


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-size", type=int, default=10_000, help="played positions per size")
    parser.add_argument("--layouts", type=int, default=2_000, help="random layouts per size")
    parser.add_argument("--games", type=int, default=256, help="games played in lock-step")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--fixed-queens", action="store_true", help="MAX_QUEENS queen columns on any device, as on accelerators"
    )
    args = parser.parse_args()
    if args.fixed_queens:
        reach.queen_bound = lambda device: MAX_QUEENS  # what reach.queen_bound gives off the CPU
    rng = np.random.default_rng(args.seed)
    total = mismatches = 0
    began = time.perf_counter()
    for size in range(4, 13):
        encoding = ("flat", "lines")[size % 2]
        checked, bad = played(size, encoding, args.games, args.per_size, args.device, rng)
        more, worse = layouts(size, encoding, args.layouts, args.device, rng)
        total, mismatches = total + checked + more, mismatches + bad + worse
        shown = f"{size:2d}x{size:<2d} {encoding:5s}: {checked:7,d} played + {more:6,d} layout positions"
        print(f"{shown}, {bad + worse} mismatches")
    columns = "fixed queen columns" if args.fixed_queens else "queen columns as on this device"
    took = time.perf_counter() - began
    print(f"{total:,d} positions on {args.device} ({columns}), {mismatches} mismatches ({took:.0f} s)")


if __name__ == "__main__":
    main()
