"""Top-1 agreement with uct's 1 s moves on held-out games: the cheap queen-move prior vs a net's."""

import sys

import numpy as np
import torch

from agents.nets.planes import make_planes
from agents.nets.policy_value import legal_moves_batch, move_log_probs
from agents.search.pvmcts import PVNet, pv_weights_path

from training.data.records import record_games


def main() -> None:
    torch.set_num_threads(1)
    games = record_games(["benchmarks/engines_results/uct/quiet_8x8_t1_vs_alphabeta_predict.json"], "uct", 8)
    cells = np.concatenate([g["cells"] for g in games])
    sides = np.concatenate([g["sides"] for g in games]).astype(np.int64)
    chosen = np.concatenate([g["pi_moves"] for g in games]).astype(np.int64)
    print("positions", len(sides))
    rows, moves = legal_moves_batch(cells, sides, 8)
    for w in sys.argv[1:]:
        net = PVNet.load(pv_weights_path(w, 8))
        hit_s = hit_m = 0
        nll = 0.0
        for lo in range(0, len(sides), 256):
            hi = min(lo + 256, len(sides))
            sel = (rows >= lo) & (rows < hi)
            with torch.no_grad():
                _, slide, arrow = net.model(torch.from_numpy(make_planes(cells[lo:hi], sides[lo:hi], "relative")))
                lp = move_log_probs(slide, arrow, rows[sel] - lo, moves[sel], 8).numpy()
            r, m = rows[sel] - lo, moves[sel]
            for k in range(hi - lo):
                idx = np.flatnonzero(r == k)
                mk = m[idx]
                logp = lp[idx]
                c = chosen[lo + k]
                best = mk[np.argmax(logp)]
                hit_m += (best == c).all()
                # slide marginal
                keys = mk[:, 0] * 100 + mk[:, 1]
                uk, inv = np.unique(keys, return_inverse=True)
                ps = np.zeros(len(uk))
                np.add.at(ps, inv, np.exp(logp))
                hit_s += uk[np.argmax(ps)] == c[0] * 100 + c[1]
                j = np.flatnonzero((mk == c).all(1))
                nll -= logp[j[0]]
        n = len(sides)
        print(w, "slide top1 %.3f move top1 %.3f nll %.2f" % (hit_s / n, hit_m / n, nll / n))


if __name__ == "__main__":  # a script, run from the repository root (command.txt)
    main()
