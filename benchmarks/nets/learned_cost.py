"""What the net costs the learned agent: net positions per CPU second, and simulations per CPU
second of ``uct-net`` beside ``uct``'s, from the same positions, in the same run.

For each board size:

* **net**: ``uct-net``'s own net (``PVNet``, ONNX Runtime when installed, one thread) on batches of
  1, 8 and 64 real positions (the positions after the queen moves and arrows of a mid-game
  position), positions per CPU second of this process;
* **search**: ``--positions`` positions (the start, then positions after 4, 8, ... random plies,
  seeded), each searched afresh for ``--time`` seconds by ``uct`` and by ``uct-net`` with the
  guidance before the simulations only (the root and the replies to its top moves, ``guide_at=0``,
  whatever the size's default); simulations per CPU second of each and
  their ratio, and the CPU milliseconds of one move's guidance (``uct-net``'s CPU time less its
  simulations at ``uct``'s rate); with ``--guide-at N ...``, also ``uct-net:guide_at=N``'s
  simulations per CPU second as a ratio of ``uct``'s (the net's priors on every position visited
  ``N`` times: the parts of the search and the forward passes cost simulations); with
  ``--variants OPTIONS ...``, the same for any ``uct-net`` options (``leaves=16``,
  ``leaves=16,runtime=onnx-int8``); with ``--int8``, the net's positions per CPU second through
  its 8-bit copy too (``runtime=onnx-int8``).

With ``--game RESULTS``, the searches are instead those of a game: at each of White's turns in the
first ``--plies`` plies of the first game of each size in an arena results file, each agent
searching as it would in a game, its tree kept from one move to the next (tree reuse; a guided
tree grows more positions to guide than a fresh search does). ``--weights`` picks ``uct-net``'s net.

Per CPU second, so a shared machine distorts it less than wall-clock figures would; the ratio is
the figure to compare between runs.

    python3 benchmarks/nets/learned_cost.py                      # 8x8 and 10x10, 0.5 s, 6 positions
    python3 benchmarks/nets/learned_cost.py --sizes 10 --time 1 --positions 10
    python3 benchmarks/nets/learned_cost.py --sizes 8 --guide-at 64 256
    python3 benchmarks/nets/learned_cost.py --sizes 10 --time 0.3 --guide-at 8 --weights NET --game RESULTS.json
    python3 benchmarks/nets/learned_cost.py --int8 --variants leaves=16 leaves=16,runtime=onnx-int8
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from amazons_env import Board, Move

from agents import make
from agents.arena.files import read_results
from agents.search.net_guide import NetGuide
from agents.search.uct import UCT

__all__ = ["positions", "game_positions", "net_rate", "search_rates", "main"]

BATCHES = (1, 8, 64)


def positions(size: int, count: int, seed: int = 0) -> list[Board]:
    """The start, then positions after 4, 8, ... uniformly random plies (one seeded game per
    position), skipping any that are over."""
    rng, out = np.random.default_rng(seed), [Board(size)]
    plies = 4
    while len(out) < count:
        board = Board(size)
        for _ in range(plies):
            if board.is_game_over():
                break
            moves = board.legal_moves()
            board.push(moves[int(rng.integers(len(moves)))])
        if not board.is_game_over():
            out.append(board)
        plies += 4
    return out


def game_positions(path: str, size: int, plies: int) -> list[Board]:
    """The positions at White's turns in the first ``plies`` plies of the first ``size`` x ``size``
    game of the arena results file ``path``."""
    for result in read_results(path):
        if result["size"] == size:
            board, out = Board(size), []
            for text in result["record"][:plies]:
                if board.turn == 0:
                    out.append(board.copy())
                board.push(Move.parse(text, size))
            return out
    raise ValueError(f"--game {path!r}: no {size}x{size} game in it")


def _frontier(board: Board, count: int) -> tuple[np.ndarray, np.ndarray]:
    """The cells and sides of up to ``count`` positions one move after ``board``."""
    cells = []
    for move in board.legal_moves()[:: max(1, len(board.legal_moves()) // count)][:count]:
        board.push(move)
        cells.append(board.cells.copy())
        board.pop()
    return np.array(cells), np.full(len(cells), 1 - int(board.turn))


def net_rate(agent: UCT, board: Board, batch: int, seconds: float) -> float:
    """Positions per CPU second of ``agent``'s net (its ``runtime``'s) on batches of ``batch``
    positions after ``board``."""
    assert isinstance(agent.guide, NetGuide)
    net = agent.guide.net(board.size)
    cells, sides = _frontier(board, batch)
    net.evaluate(cells, sides)  # warm (ONNX Runtime's first call sets up its session)
    done, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        net.evaluate(cells, sides)
        done += len(cells)
    return done / (time.process_time() - start)


def search_rates(spec: str, boards: list[Board], keep_tree: bool = False) -> tuple[int, float]:
    """Simulations and CPU seconds of searches of ``spec`` from each of ``boards``: fresh ones, or
    with ``keep_tree`` one agent's searches in turn, as in a game."""
    make(spec, seed=1).select_move(boards[0])  # compiled and warm
    agent = make(spec, seed=1)
    sims, cpu = 0, 0.0
    for board in boards:
        if not keep_tree:
            agent.reset()
        start = time.process_time()
        result = agent.search(board)  # type: ignore[attr-defined]
        cpu += time.process_time() - start
        sims += result.simulations
    return sims, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", nargs="+", type=int, default=[8, 10], help="board sizes (default 8 10)")
    parser.add_argument("--time", type=float, default=0.5, help="seconds per search (default 0.5)")
    parser.add_argument("--positions", type=int, default=6, help="positions searched per size (default 6)")
    parser.add_argument("--seconds", type=float, default=1.0, help="CPU seconds per net batch measurement")
    parser.add_argument(
        "--guide-at", nargs="*", type=int, default=[], help="uct-net:guide_at values to measure too (default none)"
    )
    parser.add_argument(
        "--variants", nargs="*", default=[], help="uct-net options to measure too, e.g. leaves=16 (default none)"
    )
    parser.add_argument("--int8", action="store_true", help="also the net's positions per CPU second through int8")
    parser.add_argument("--weights", default="default", help="uct-net's weights: a name or a model path")
    parser.add_argument("--game", help="an arena results file: search along its first game of each size instead")
    parser.add_argument("--plies", type=int, default=60, help="with --game: the plies of the game (default 60)")
    args = parser.parse_args()
    if args.plies < 2:
        parser.error(f"--plies {args.plies}: give 2 or more (White's turns among them are searched)")
    rows: list[dict[str, Any]] = []
    # guide_at=0: the first levels' guidance alone (on 8x8 and 10x10 the default also guides during the
    # search, which the --guide-at columns measure; without value_visits, whose back-up reuses the same
    # forward pass and costs little beside it)
    learned_spec = f"uct-net:time={args.time:g},weights={args.weights},guide_at=0"
    variants = [f"guide_at={at}" for at in args.guide_at] + list(args.variants)
    runtimes = ("auto", "onnx-int8") if args.int8 else ("auto",)
    for size in args.sizes:
        boards = game_positions(args.game, size, args.plies) if args.game else positions(size, args.positions)
        middle = boards[len(boards) // 2]
        net = {}
        for runtime in runtimes:
            guided = make(f"{learned_spec},runtime={runtime}")
            assert isinstance(guided, UCT)
            net.update({(runtime, batch): net_rate(guided, middle, batch, args.seconds) for batch in BATCHES})
        keep = bool(args.game)
        plain_sims, plain_cpu = search_rates(f"uct:time={args.time:g}", boards, keep)
        net_sims, net_cpu = search_rates(learned_spec, boards, keep)
        plain, learned = plain_sims / plain_cpu, net_sims / net_cpu
        guidance_ms = 1000 * (net_cpu - net_sims / plain) / len(boards)
        ratios = {}
        for options in variants:  # after guide_at=0: a variant's own guide_at replaces it
            sims, cpu = search_rates(f"{learned_spec},{options}", boards, keep)
            ratios[options] = sims / cpu / plain
        rows.append(
            {"size": size, "net": net, "uct": plain, "uct-net": learned, "guidance_ms": guidance_ms, "deep": ratios}
        )
    names = {"auto": "net", "onnx-int8": "int8"}
    header = " | ".join(f"{names[r]}, batch {b}" for r in runtimes for b in BATCHES)
    deep_header = "".join(f" {options} ratio |" for options in variants)
    print(f"| board | {header} | uct sims/CPU s | uct-net sims/CPU s | ratio | guidance CPU ms/move |{deep_header}")
    print("|---|" + "---|" * (len(runtimes) * len(BATCHES) + 4 + len(variants)))
    for row in rows:
        nets = " | ".join(f"{row['net'][r, b]:,.0f}" for r in runtimes for b in BATCHES)
        deeper = "".join(f" {row['deep'][options]:.3f} |" for options in variants)
        print(
            f"| {row['size']}x{row['size']} | {nets} | {row['uct']:,.0f} | {row['uct-net']:,.0f} | "
            f"{row['uct-net'] / row['uct']:.3f} | {row['guidance_ms']:.1f} |{deeper}"
        )
    searches = f"White's searches along {args.game}'s first game" if args.game else f"{args.positions} fresh searches"
    print(f"(positions per CPU second; {searches}, {args.time:g} s each, per agent and size)")


if __name__ == "__main__":
    main()
