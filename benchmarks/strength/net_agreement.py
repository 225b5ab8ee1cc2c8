"""How often a policy-value net's first choice is the move a search played: held-out agreement.

For each ``--weights`` net and board size, over every position where ``--player`` (an agent spec
prefix, e.g. ``uct`` or the ``uci:`` spec of an engine run from a worktree) moved in the arena
results files ``--results`` (games the net never trained on), it prints

* **queen move top-1**: the net's most probable slide (the factorised policy summed over its
  arrows) is the slide played;
* **whole move top-1**: its most probable whole move is the move played;
* **NLL**: the mean negative log-probability of the move played (nats; a uniform policy over
  ``M`` legal moves scores ``log M``, printed beside it).

The policy is the training code's (``agents.nets.policy_value.move_log_probs``, the log-softmax
of the slide over the legal slides plus that of the arrow over the slide's legal arrows), so the
figures are what the net was trained to do. A few thousand positions take seconds on one core.

    python3 benchmarks/strength/net_agreement.py --size 8 --player uct \\
        --results experiments/uct-table-fitted/uct_vs_alphabeta_predict_mailbox_8x8_t1.json \\
        --weights pv-uct-8x8 experiments/expert-iteration-8x8/gen-008
"""

from __future__ import annotations

import argparse
from typing import Sequence

import numpy as np

from agents.nets.store import POLICY_VALUE_WEIGHTS, policy_value_net

from training.data.records import record_games
from training.imitation import agreement as training_agreement

__all__ = ["agreement", "main"]


def agreement(weights: str, cells: np.ndarray, sides: np.ndarray, played: np.ndarray, size: int) -> dict[str, float]:
    """``training.imitation.agreement`` of net ``weights`` (a committed name or a model path)."""
    return training_agreement(
        policy_value_net(weights, size, threads=1, runtime="torch").model, cells, sides, played, size
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", nargs="+", required=True, help="arena results files (JSON) with the games")
    parser.add_argument("--player", default="uct", help="the spec prefix of the side whose moves count (default uct)")
    parser.add_argument("--size", type=int, default=8, help="board size (default 8)")
    parser.add_argument(
        "--weights", nargs="+", default=["default"], help="nets: committed names or model paths (default: default)"
    )
    parser.add_argument("--batch", type=int, default=512, help="positions per forward pass (default 512)")
    args = parser.parse_args(argv)
    if args.batch < 1:
        parser.error(f"--batch {args.batch}: must be at least 1")
    games = record_games(args.results, args.player, args.size)
    if not games:
        parser.error(f"no {args.size}x{args.size} game in --results where a side's spec starts with {args.player!r}")
    cells = np.concatenate([g["cells"] for g in games])
    sides = np.concatenate([g["sides"] for g in games]).astype(np.int64)
    played = np.concatenate([g["pi_moves"] for g in games]).astype(np.int64)
    print(f"{len(games)} games, {len(sides)} positions where {args.player!r} moved, {args.size}x{args.size}")
    print("| net | queen move top-1 | whole move top-1 | NLL (uniform) |")
    print("|---|---|---|---|")
    for weights in args.weights:
        model = policy_value_net(weights, args.size, threads=1, runtime="torch").model
        mean = training_agreement(model, cells, sides, played, args.size, args.batch)
        name = weights if weights not in POLICY_VALUE_WEIGHTS else f"{weights} (committed)"
        print(f"| {name} | {mean['slide']:.3f} | {mean['move']:.3f} | {mean['nll']:.2f} ({mean['uniform_nll']:.2f}) |")


if __name__ == "__main__":
    main()
