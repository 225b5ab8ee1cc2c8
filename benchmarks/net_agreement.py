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

    python3 benchmarks/net_agreement.py --size 8 --player uct \\
        --results experiments/uct-table-fitted/uct_vs_alphabeta_predict_mailbox_8x8_t1.json \\
        --weights pv-uct-8x8 experiments/expert-iteration-8x8/gen-008
"""

from __future__ import annotations

import argparse
from typing import Sequence

import numpy as np

from agents.nets.store import POLICY_VALUE_WEIGHTS, policy_value_net

from training.data.records import record_games

__all__ = ["agreement", "main"]


def agreement(weights: str, cells: np.ndarray, sides: np.ndarray, played: np.ndarray, size: int) -> dict[str, float]:
    """Queen-move and whole-move top-1 agreement of net ``weights`` with the moves ``played``
    (``int[k, 3]``, public squares) at the positions ``cells``/``sides``, its mean NLL of them, and
    the uniform policy's."""
    import torch

    from agents.nets.planes import make_planes
    from agents.nets.policy_value import legal_moves_batch, move_log_probs

    net = policy_value_net(weights, size, threads=1, runtime="torch")
    rows, moves = legal_moves_batch(cells, sides, size)
    with torch.no_grad():
        _, slide, arrow = net.model(torch.from_numpy(make_planes(cells, sides, "relative")))
        logp = move_log_probs(slide, arrow, rows, moves, size).numpy()
    slides = hits = nll = uniform = 0.0
    starts = np.searchsorted(rows, np.arange(len(sides) + 1))
    for k in range(len(sides)):
        m, lp = moves[starts[k] : starts[k + 1]], logp[starts[k] : starts[k + 1]]
        hits += bool((m[np.argmax(lp)] == played[k]).all())
        keys, inverse = np.unique(m[:, 0] * 256 + m[:, 1], return_inverse=True)
        mass = np.zeros(len(keys))
        np.add.at(mass, inverse, np.exp(lp))
        slides += keys[np.argmax(mass)] == played[k, 0] * 256 + played[k, 1]
        j = np.flatnonzero((m == played[k]).all(axis=1))
        if len(j) != 1:
            raise ValueError(f"position {k}: the move played {played[k].tolist()} is not legal there")
        nll -= lp[j[0]]
        uniform += np.log(len(m))
    n = len(sides)
    return {"positions": n, "slide": slides / n, "move": hits / n, "nll": nll / n, "uniform_nll": uniform / n}


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
        parts = []
        for lo in range(0, len(sides), args.batch):
            part = slice(lo, lo + args.batch)
            parts.append(agreement(weights, cells[part], sides[part], played[part], args.size))
        n = sum(p["positions"] for p in parts)
        mean = {key: sum(p[key] * p["positions"] for p in parts) / n for key in ("slide", "move", "nll", "uniform_nll")}
        name = weights if weights not in POLICY_VALUE_WEIGHTS else f"{weights} (committed)"
        print(f"| {name} | {mean['slide']:.3f} | {mean['move']:.3f} | {mean['nll']:.2f} ({mean['uniform_nll']:.2f}) |")


if __name__ == "__main__":
    main()
