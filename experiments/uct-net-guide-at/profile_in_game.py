"""Where a ``guide_at`` search's CPU time goes in a game, beside ``uct``'s, in one run (cProfile).

    NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 python3 experiments/uct-net-guide-at/profile_in_game.py NET RESULTS.json

Along White's turns in the first 60 plies of the first 10x10 game of RESULTS, 0.3 s a move, each agent
keeping its tree: ``uct``, ``uct-net:guide_at=8`` with NET and the same with ``mix=0`` (uct's own
tree). For each: the share of its profiled time in the forward passes (ONNX Runtime's ``run``), in
the Python between the parts (``NetGuide.between`` less the forward passes) and in the simulations
(``uct_tree.run``), and the simulations per second of ``uct_tree.run`` itself. Then plain ``uct`` at
60,000 simulations from the 10x10 start, in one part and in parts of 4,096: the CPU each took.
"""

import cProfile
import pstats
import sys
import time

from amazons_env import Board, Move

import agents
from agents.arena.files import read_results
from agents.search import uct_tree as T


class Parts:
    """A guide (``uct_tree.batches.Guide``) that only cuts the search into parts of ``part``
    simulations: what guide_at does to uct's search loop, without the net."""

    batched = False

    def __init__(self, part: int) -> None:
        self.part = part

    def reset(self) -> None:
        pass

    def before(self, board, job, stop) -> None:
        pass

    def part_size(self, size: int) -> int:
        return self.part

    def between(self, board, tree, stop) -> None:
        pass

    def recorded(self, size: int):
        return T.leaves.buffers(0, size)


def profile(spec: str, record: list[str]) -> dict[str, float]:
    agent = agents.make(spec, seed=1)
    agents.make(spec, seed=1).select_move(Board(10))  # compiled and warm
    board, sims, profiler = Board(10), 0, cProfile.Profile()
    for ply, text in enumerate(record[:60]):
        if ply % 2 == 0:
            profiler.enable()
            sims += agent.search(board.copy()).simulations
            profiler.disable()
        board.push(Move.parse(text, 10))
    stats = pstats.Stats(profiler).stats
    total = sum(row[2] for row in stats.values())  # every function's own time

    def own(name: str) -> float:
        return sum(row[2] for (_, _, function), row in stats.items() if function == name)

    net = sum(row[2] for key, row in stats.items() if "onnxruntime" in str(key) and key[2].endswith("run>"))
    return {"net": net / total, "between": own("between") / total, "run": own("run") / total,
            "run_rate": sims / own("run"), "sims": sims}  # fmt: skip


def main() -> None:
    weights, results = sys.argv[1], sys.argv[2]
    record = next(r["record"] for r in read_results(results) if r["size"] == 10)
    guided = f"uct-net:weights={weights},time=0.3,guide_at=8"
    for spec in ("uct:time=0.3", guided, guided + ",mix=0"):
        p = profile(spec, record)
        print(f"{spec}: {p['sims']:,} simulations; forward passes {p['net']:.1%}, Python between parts "
              f"{p['between']:.1%}, simulations {p['run']:.1%} of the time; uct_tree.run {p['run_rate']:,.0f} "
              "simulations per second", flush=True)  # fmt: skip
    for part in (0, 4096, 0, 4096):
        agent = agents.make("uct:sims=60000", seed=1)
        agent.guide = Parts(part)  # type: ignore[attr-defined]
        start = time.process_time()
        agent.search(Board(10))
        print(f"uct, 60,000 simulations from the start, {'parts of 4,096' if part else 'one part'}: "
              f"{time.process_time() - start:.3f} CPU s")  # fmt: skip


if __name__ == "__main__":  # a script, run from the repository root (command.txt)
    main()
