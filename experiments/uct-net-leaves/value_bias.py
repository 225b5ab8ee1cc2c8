"""The net's value beside the search's at the positions ``uct-net:leaves`` records: mean, spread and
correlation, per board size, for the side that chose each position.

    NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 python3 experiments/uct-net-leaves/value_bias.py

For each size, one search of 20,000 simulations from a seeded random position 10 plies in, with
``leaves=16,leaf_at=8,leaf_value=1`` (so the values handed back are the net's alone), and the values
the simulations backed up through the same positions; run from the repository root.
"""

import random

import numpy as np

from amazons_env import Board

from agents import Limit, make
from agents.search import uct_tree as T

pairs: list[tuple[float, float]] = []
search = T.batches.search


def logged(job, value, prior):  # the net's values beside the search's, as they pass
    def spy(xs, cells, sides, backed):
        out = value(xs, cells, sides, backed)
        pairs.extend(zip(backed.tolist(), out.tolist()))
        return out

    return search(job, spy, prior)


T.batches.search = logged
for size in (8, 10):
    pairs.clear()
    board, rng = Board(size), random.Random(3)
    for _ in range(10):
        board.push(rng.choice(board.legal_moves()))
    make("uct-net:leaves=16,leaf_at=8,leaf_value=1", seed=1).search(board, Limit(simulations=20000))
    p = np.array(pairs)
    print(
        f"{size}x{size}: {len(p)} positions; mean search {p[:, 0].mean():+.3f}, net {p[:, 1].mean():+.3f}; "
        f"std {p[:, 0].std():.3f}, {p[:, 1].std():.3f}; correlation {np.corrcoef(p[:, 0], p[:, 1])[0, 1]:.3f}"
    )
