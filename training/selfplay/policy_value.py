"""Policy-value self-play: many games in lock-step through Gumbel AlphaZero's tensor search
(``agents.search.gumbel``), and engine games to bootstrap from.

``gumbel_games`` plays ``games`` games at once on a torch device: each move, one batched search of
every live game (one forward pass of the net per simulation for all of them); the target is the
search's improved policy over the root's children, the move its Gumbel choice.

``engine_games`` records an engine's games (the strongest, ``uct``): as targets its root
visit shares (uct's split tree) or the moves it chose (one-hot). Both start with ``opening``
uniformly random plies (not recorded) and play through ``agents.game`` until the game is over or
``agents.game.endgame_winner`` counts the filling phase exactly (the position is recorded with its result).
The value target is the game result for the side to move.

``play_shards`` writes either kind into a folder of ``training.data.policy_value`` shards with a manifest,
resuming after an interruption: the shards already listed (sizes and hashes checked) are kept, the
others played again with the same seeds. Shards can be played in parallel, by local processes or
Ray tasks (``agents.arena.backends``), given a picklable player such as
``functools.partial(gumbel_shard, weights, device, games, size, sims, m, k)`` or
``functools.partial(engine_shard, spec, games, size)``.

>>> import tempfile, torch
>>> from agents.nets.policy_value import PolicyValueNet
>>> from agents.nets.inference import PVNet
>>> torch.manual_seed(0) and None
>>> net = PVNet(PolicyValueNet(channels=8, blocks=1))
>>> games = gumbel_games(net, games=2, size=5, sims=8, m=4, k=6, seed=1)
>>> len(games), all(abs(g["pi_probs"][: g["pi_counts"][0]].sum() - 1) < 1e-5 for g in games)
(2, True)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import numpy as np

from amazons_env import Board, Move

from agents.arena.backends import run_tasks
from agents.game import endgame_winner, play_out
from agents.nets.inference import PVNet

from training.data.policy_value import write_manifest, write_pv_shard
from training.selfplay.value import _kept_shards

__all__ = ["gumbel_games", "gumbel_shard", "engine_games", "play_shards", "engine_shard"]


class _Game:
    """One game's board and the records of its positions so far."""

    def __init__(self, size: int, rng: np.random.Generator, opening: int) -> None:
        self.board = Board(size)
        self.rows: list[tuple[np.ndarray, int, float, np.ndarray, np.ndarray]] = []
        self.winner: Optional[int] = None
        for _ in range(opening):
            moves = self.board.legal_moves_array()
            if len(moves) == 0:
                break
            from_square, to_square, arrow = (int(x) for x in moves[rng.integers(len(moves))])
            self.board.push_unchecked(Move(from_square, to_square, arrow, size))

    def decided(self) -> bool:
        """True (and ``winner`` set) once the game is over or its filling phase is counted."""
        if self.winner is None:
            winner = self.board.winner  # set once the game is over
            self.winner = int(winner) if winner is not None else endgame_winner(self.board)
        return self.winner is not None

    def record(self, value: float, moves: np.ndarray, probs: np.ndarray) -> None:
        self.rows.append((self.board.cells.copy(), int(self.board.turn), value, moves, probs))

    def arrays(self) -> dict[str, np.ndarray]:
        if not self.rows:  # decided by the opening alone: nothing was searched, nothing to learn
            return {}
        sides = np.array([r[1] for r in self.rows], np.int8)
        return {
            "cells": np.stack([r[0] for r in self.rows]),
            "sides": sides,
            "results": np.where(sides == self.winner, 1, -1).astype(np.int8),
            "values": np.clip([r[2] for r in self.rows], -1, 1).astype(np.float32),
            "plies": np.arange(len(sides), dtype=np.int16),
            "pi_counts": np.array([len(r[3]) for r in self.rows], np.int16),
            "pi_moves": np.concatenate([r[3] for r in self.rows]).astype(np.uint8),
            "pi_probs": np.concatenate([r[4] for r in self.rows]).astype(np.float32),
        }


def gumbel_games(
    net: Any,
    games: int,
    size: int,
    sims: int,
    seed: int = 0,
    device: Any = "cpu",
    m: int = 16,
    k: int = 16,
    slides: int = 16,
    arrows: int = 8,
    opening: int = 2,
    on_move: Optional[Callable[[], None]] = None,
) -> list[dict[str, np.ndarray]]:
    """``games`` self-play games in lock-step through Gumbel AlphaZero's batched search
    (``agents.search.gumbel``) on ``device``: ``net`` a ``PolicyValueNet`` (or a ``PVNet``), ``sims``
    simulations per move, ``m`` root actions sampled, ``k`` children per node from the ``slides``
    best slides and ``arrows`` best arrows of each. Every live game's move is one forward pass per
    simulation for all of them; the move played is the search's choice (the Gumbel noise is the
    exploration: no temperature, no Dirichlet noise), the policy target the improved policy over
    the root's children, the value the root's searched value. Games end as ``engine_games``' do
    (``agents.game.endgame_winner``)."""
    import torch

    from amazons_env.tensor.rules import step
    from amazons_env.tensor.state import from_boards, select

    from agents.search.gumbel.children import Evaluator, unpack
    from agents.search.gumbel.regions import in_contact
    from agents.search.gumbel.tree import Settings, search

    rng = np.random.default_rng(seed)
    played = [_Game(size, rng, opening) for _ in range(games)]
    evaluator = Evaluator(net, device)
    settings = Settings(sims=sims, m=min(m, k), k=k, top_slides=slides, top_arrows=arrows)
    state = from_boards([g.board for g in played], evaluator.device)
    seeds = torch.from_numpy(rng.integers(1 << 62, size=games)).to(evaluator.device)
    nn = size * size
    while True:
        open_ = [i for i, g in enumerate(played) if g.winner is None]
        if not open_:
            break
        # only a finished or separated game can be decided: count the others' filling phase never
        maybe = select(state, torch.tensor(open_, device=evaluator.device))
        can_end = (maybe.terminated | ~in_contact(maybe)).tolist()
        live = [i for i, end in zip(open_, can_end) if not (end and played[i].decided())]
        if not live:
            break
        index = torch.tensor(live, device=evaluator.device)
        plies = torch.tensor([played[i].board.ply for i in live], device=evaluator.device)
        out = search(evaluator, select(state, index), settings, seeds[index], plies)
        chosen = out.chosen(size)
        moves, policy, values = unpack(out.moves, size).cpu().numpy(), out.policy.cpu().numpy(), out.value.cpu()
        picked = chosen.cpu().numpy()
        for j, i in enumerate(live):
            kept = policy[j] > 0
            played[i].record(float(values[j]), moves[j][kept], policy[j][kept])
            frm_square, to_square, arrow = (int(x) for x in picked[j])
            played[i].board.push_unchecked(Move(frm_square, to_square, arrow, size))
        frm, to, shot = chosen.unbind(-1)
        after = step(step(select(state, index), frm * nn + to)[0], to * nn + shot)[0]
        state = type(state)(*(x.index_copy(0, index, y) for x, y in zip(state, after)))
        if on_move is not None:
            on_move()
    return [a for a in (g.arrays() for g in played) if a]


def gumbel_shard(
    weights: str, device: str, games: int, size: int, sims: int, m: int, k: int, index: int, seed: int
) -> list[dict[str, np.ndarray]]:
    """A shard's ``gumbel_games`` by the net in the file ``weights`` (a policy-value net, checked as
    ``PVNet.load`` checks it) on ``device`` (a task that any process can run)."""
    return gumbel_games(PVNet.load(weights, threads=0, runtime="torch"), games, size, sims, seed, device, m, k)


def engine_games(agent: Any, games: int, size: int, seed: int = 0, opening: int = 2) -> list[dict[str, np.ndarray]]:
    """``games`` games of ``agent`` (an ``Agent`` with ``search``) against itself; each position's
    target is the move it chose, or for ``uct`` (split tree) its root visit shares over whole moves
    (``agents.search.uct.visit_policy``)."""
    from agents.search.uct import UCT, visit_policy

    policy = visit_policy if isinstance(agent, UCT) and agent.tree == "split" else None
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(games):
        agent.seed(int(rng.integers(1 << 31)))
        agent.reset()
        arrays = _engine_game(agent, _Game(size, rng, opening), policy)
        if arrays:
            out.append(arrays)
    return out


def _engine_game(
    agent: Any, game: _Game, policy: Optional[Callable[[Any, Board], tuple[np.ndarray, np.ndarray]]]
) -> dict[str, np.ndarray]:
    """``game`` played to its end by ``agent`` against itself (``agents.game.play_out``); its
    arrays. Each position's target: ``policy(agent, board)`` (moves and their shares) after a
    search that visited whole moves, else the move the agent chose."""

    def choose(board: Board) -> Move:
        result = agent.search(board)
        move = result.move
        moves, shares = policy(agent, board) if policy is not None and result.simulations > 0 else (None, None)
        if moves is not None and shares is not None and len(moves):
            game.record(float(result.value), moves, shares)
        else:
            game.record(float(result.value), np.array([[move.from_square, move.to_square, move.arrow]]), np.ones(1))
        return move

    game.winner = play_out(game.board, (choose, choose), endgame_winner, check=False)
    return game.arrays()


def engine_shard(spec: str, games: int, size: int, index: int, seed: int) -> list[dict[str, np.ndarray]]:
    """A shard's ``engine_games`` by the agent ``spec`` (a task that any process can run)."""
    import agents

    return engine_games(agents.make(spec), games, size, seed)


def play_shards(
    folder: "str | Path",
    settings: dict[str, Any],
    shards: int,
    games_per_shard: int,
    play: Callable[[int, int], Sequence[dict[str, np.ndarray]]],
    progress: bool = True,
    label: str = "self-play",
    workers: int = 1,
    backend: str = "local",
    address: Optional[str] = None,
) -> dict[str, Any]:
    """Shards ``0 .. shards-1`` of ``folder``: ``play(index, seed)`` gives a shard's games (seed
    ``settings["seed"] + index``); shards a previous run finished with the same ``settings`` are
    kept. ``workers``, ``backend``, ``address``: where shards are played
    (``agents.arena.backends.run_tasks``; more than one worker needs a picklable ``play``). Returns the
    manifest."""
    from tqdm import tqdm

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    settings = {**settings, "kind": "policy-value", "games_per_shard": games_per_shard}
    kept = _kept_shards(folder, settings)
    done = {s["index"] for s in kept}
    todo = [i for i in range(shards) if i not in done]
    with tqdm(
        total=shards * games_per_shard,
        initial=len(done) * games_per_shard,
        unit="game",
        desc=label,
        disable=not progress,
        leave=False,
    ) as bar:
        tasks = [(index, int(settings.get("seed", 0)) + index) for index in todo]
        for (index, _), games in run_tasks(play, tasks, workers, backend, address):
            kept.append(write_pv_shard(folder, index, games, first_game=index * games_per_shard))
            write_manifest(folder, settings, kept)
            bar.update(games_per_shard)
    return write_manifest(folder, settings, kept)
