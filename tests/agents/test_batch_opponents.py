"""Batched opponents of the vector env (``agents.batch_opponents``, ``uct_tree.forest``): the same
moves as the agents they stand for, seeded games that replay, threads that change nothing."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from amazons_env import AmazonsVectorEnv, Board, Move, core
from amazons_env.envs.batch_opponents import BatchGames, PerGameAgents, UniformRandom
from amazons_env.envs.kernels.game import new_meta
from amazons_env.envs.opponents import resolve_batch_opponent

from agents import make
from agents.batch_opponents import CHUNKS_PER_THREAD, BatchGreedy, BatchUCT, batch_opponent
from agents.evaluation.evaluator import make_evaluator
from agents.options import OptionError
from agents.search import uct_tree as T
from agents.search.endgame import filling_move
from agents.search.uct_tree.choice import pick
from agents.search.uct_tree.forest import pick_move


def _positions(size: int, count: int, seed: int) -> list[Board]:
    """Positions a few random plies into games (none in the filling phase)."""
    rng = np.random.default_rng(seed)
    boards = []
    for _ in range(count):
        board = Board(size)
        for _ in range(int(rng.integers(0, 6))):
            moves = board.legal_moves()
            board.push(moves[int(rng.integers(len(moves)))])
        if not board.is_game_over():
            boards.append(board)
    return boards


def _games(boards: list[Board]) -> BatchGames:
    size = boards[0].size
    legal = np.zeros((len(boards), 1), np.int32)
    meta = np.stack([new_meta(b.cells, int(b.turn)) for b in boards])
    cells, queens, nq = (np.stack([getattr(b, name) for b in boards]) for name in ("cells", "queens", "queen_counts"))
    dirs, pad, pub = core.directions(size + 2), core.padded_index(size), core.public_index(size)
    return BatchGames(cells, queens, nq, meta, legal, size, dirs, pad, pub)


def _moves(opponent, boards: list[Board]) -> list[Move]:
    games, which = _games(boards), np.arange(len(boards))
    out, nn = np.zeros(len(boards), np.int64), boards[0].size ** 2
    opponent.act(games, which, out)
    queen = out.copy()
    games.meta[:, 1] = 1  # PHASE: the arrows of the moves chosen
    opponent.act(games, which, out)
    return [Move(int(q // nn), int(q % nn), int(a % nn), boards[0].size) for q, a in zip(queen, out)]


class _Fixed:
    """A generator whose every draw is ``value``: the agent's search gets exactly this root seed."""

    def __init__(self, value: int) -> None:
        self.value = value

    def integers(self, low: int, high: int) -> int:
        return self.value


@pytest.mark.parametrize("spec", ["uct:sims=40", "uct:sims=30,tree=move,kq=4", "uct:sims=25,prior=eval"])
def test_batched_uct_plays_the_agents_move_from_a_fresh_tree_with_the_same_seed(spec):
    boards = _positions(6, 6, seed=1)
    batch = batch_opponent(spec, 6)
    assert isinstance(batch, BatchUCT)
    batch.seed(11)
    got = _moves(batch, boards)
    seeds = np.random.default_rng(11).integers(1, 1 << 62, size=len(boards))
    for board, move, seed in zip(boards, got, seeds):
        agent = make(spec + ",reuse=false")

        agent.rng = _Fixed(int(seed))
        assert board.is_legal(move)
        assert move == agent.select_move(board), board.text()


def test_the_numba_pick_is_the_trees_pick():
    agent = make("uct:sims=60,reuse=false,seed=3")
    for board in _positions(6, 5, seed=2):
        agent.select_move(board)
        ni, nf, st = agent._tree
        for root in [int(st[T.ROOT])] + [int(r) for r in range(int(ni[0, T.FIRST]), int(ni[0, T.FIRST]) + 3)]:
            expected, out = pick(agent._tree, root, 2), np.full(3, -9, np.int64)
            assert pick_move(ni, nf, root, 2, out) == (expected is not None)
            if expected is not None:
                assert tuple(out.tolist()) == expected.squares


def test_threads_do_not_change_the_moves():
    boards = _positions(6, 7, seed=4)
    one, two = batch_opponent("uct:sims=30", 6), batch_opponent("uct:sims=30,threads=2", 6)
    assert isinstance(two, BatchUCT) and two.threads == 2
    one.seed(5)
    two.seed(5)
    assert _moves(one, boards) == _moves(two, boards)


@pytest.mark.parametrize("threads, count", [(1, 5), (2, 1), (2, 7), (3, 64), (4, 3)])
def test_the_threads_share_every_game_once(threads, count):
    opponent = BatchGreedy(make_evaluator("territory"), 0, 6, threads)
    calls: list[tuple[int, int, int]] = []
    opponent.slices(count, lambda lo, hi, thread: calls.append((lo, hi, thread)))  # list.append is atomic
    assert sorted(i for lo, hi, _ in calls for i in range(lo, hi)) == list(range(count))
    assert all(lo < hi and 0 <= thread < threads for lo, hi, thread in calls)
    assert len(calls) == (1 if threads == 1 else min(count, threads * CHUNKS_PER_THREAD))


def test_an_error_on_one_thread_leaves_once_the_others_are_done():
    opponent = BatchGreedy(make_evaluator("territory"), 0, 6, 2)
    calls: list[int] = []
    failed = threading.Event()  # the other thread holds at most one chunk until this thread's fails

    def work(lo: int, hi: int, thread: int) -> None:
        if thread == 0:
            failed.set()
            raise RuntimeError("a search failed")
        failed.wait(10)
        time.sleep(0.01)
        calls.append(lo)

    with pytest.raises(RuntimeError, match="a search failed"):
        opponent.slices(16, work)
    assert len(calls) == 2 * CHUNKS_PER_THREAD - 1  # the other thread took every chunk left, then it left


def test_greedy_plays_a_move_with_the_best_evaluation_after_it():
    evaluator = make_evaluator("territory")
    boards = _positions(5, 5, seed=6)
    greedy = batch_opponent("greedy", 5)
    assert isinstance(greedy, BatchGreedy)

    def after(board: Board, move: Move) -> float:
        child = board.copy()
        child.push(move)
        return -evaluator.evaluate(child)  # for the side that moved

    for board, move in zip(boards, _moves(greedy, boards)):
        best = max(after(board, m) for m in board.legal_moves())
        assert board.is_legal(move) and after(board, move) == pytest.approx(best)


def test_specs_without_a_batched_form_get_one_agent_per_game():
    assert batch_opponent("uct", 6) is None  # timed: not reproducible, kept per game
    assert batch_opponent("uct:sims=10,time=1", 6) is None
    assert batch_opponent("alphabeta:depth=1", 6) is None
    assert isinstance(resolve_batch_opponent("random", 6), UniformRandom)
    envs = AmazonsVectorEnv(2, size=6, opponent="alphabeta:depth=1")
    assert isinstance(envs._replies.opponent, PerGameAgents)
    with pytest.raises(OptionError, match="kq"):
        batch_opponent("greedy:kq=-1", 6)
    with pytest.raises(OptionError, match="depth"):
        batch_opponent("greedy:depth=2", 6)


@pytest.mark.parametrize("spec", ["random", "greedy:kq=4", "uct:sims=8"])
def test_a_seeded_vector_env_replays_its_games_against_a_batched_opponent(spec):
    def trajectory() -> list[np.ndarray]:
        envs = AmazonsVectorEnv(6, size=5, opponent=spec, learner_color="random")
        obs, _ = envs.reset(seed=9)
        envs.action_space.seed(0)
        seen = [obs]
        for _ in range(30):
            obs, rewards, *_ = envs.step(envs.sample_legal_actions())
            seen += [obs, rewards]
        return seen

    first, second = trajectory(), trajectory()
    assert all(np.array_equal(a, b) for a, b in zip(first, second))


def test_a_list_of_agents_plays_one_per_game():
    players = [make("random", seed=k) for k in range(3)]
    envs = AmazonsVectorEnv(3, size=5, opponent=players)
    envs.reset(seed=0)
    for _ in range(20):
        envs.step(envs.sample_legal_actions())
    assert isinstance(envs._replies.opponent, PerGameAgents) and envs._replies.opponent.players == players


def test_a_root_solved_before_any_visit_still_gets_its_winning_move():
    board = Board.from_text("Q1*3/**4/6/******/3*1q/6 w")  # a wall of arrows: the filling phase
    batch = batch_opponent("uct:sims=50", 6)
    assert isinstance(batch, BatchUCT)
    batch.seed(0)
    (move,) = _moves(batch, [board])
    assert board.is_legal(move)


def test_the_filling_phase_gets_the_agents_filling_move_in_the_numba_call(monkeypatch):
    """Separated positions (each side's amazons walled off) among running ones: the batched search
    plays ``endgame.filling_move`` there, as the agent does, without calling the agent."""
    walls = ["Q1*3/**4/6/******/3*1q/6 w", "Q1*3/**4/6/******/3*1q/6 b", "1Q*3/2*3/***3/******/q5/6 w"]
    filling = [Board.from_text(text) for text in walls]
    boards = filling + _positions(6, 3, seed=5)
    batch = batch_opponent("uct:sims=20", 6)
    assert isinstance(batch, BatchUCT)
    monkeypatch.setattr(batch.agent, "select_move", lambda board: pytest.fail("the agent was called"))
    batch.seed(0)
    moves = _moves(batch, boards)
    for board, move in zip(filling, moves):
        result = filling_move(board)
        assert result is not None and move == result[0] == make("uct:sims=20").select_move(board)
    assert all(board.is_legal(move) for board, move in zip(boards, moves))
