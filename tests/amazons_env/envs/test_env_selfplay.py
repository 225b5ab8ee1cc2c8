"""Self-play helpers: the snapshot pool, policy-vs-policy matches, and a policy as an Agent."""

import numpy as np
import pytest

from amazons_env import Board, IllegalMoveError
from amazons_env.envs.actions import line_tables
from amazons_env.envs.policy_pool import SnapshotPool, play_policies

from agents.arena import play_game
from agents.policy_agent import PolicyAgent


def first_legal(obs, mask):
    return mask.argmax(axis=1)


def last_legal(obs, mask):
    return mask.shape[1] - 1 - mask[:, ::-1].argmax(axis=1)


def test_pool_keeps_the_newest_and_samples_them():
    pool = SnapshotPool(capacity=2, latest=0.0, seed=0)
    with pytest.raises(ValueError, match="empty"):
        pool(np.zeros((1, 9, 4, 4), np.int8), np.ones((1, 256), np.int8))
    for policy in (first_legal, last_legal, first_legal):
        pool.add(policy)
    assert len(pool) == 2 and pool.snapshots == [last_legal, first_legal]
    assert {pool.sample() for _ in range(20)} == {0}  # latest=0: always an older one
    pool.latest = 1.0
    assert pool.sample() == 1
    for bad in (dict(capacity=0), dict(capacity=1.5), dict(latest=2.0), dict(latest=float("nan"))):
        with pytest.raises(ValueError):
            SnapshotPool(**bad)
    with pytest.raises(ValueError, match="batched policy"):
        pool.add(42)


def test_play_policies_counts_wins_per_colour():
    result = play_policies(first_legal, "random", size=4, games=10, seed=0)
    assert result["games"] == 10 and 0 <= result["white"] <= 5 and 0 <= result["black"] <= 5
    assert result["score"] == (result["white"] + result["black"]) / 10
    # a policy against itself on the lines encoding: every game is won by someone
    lines = play_policies(first_legal, first_legal, size=4, games=4, action_encoding="lines", seed=0)
    assert lines["games"] == 4
    with pytest.raises(ValueError, match="even"):
        play_policies(first_legal, "random", size=4, games=3)


@pytest.mark.parametrize("encoding", ["flat", "lines"])
def test_policy_agent_plays_the_policy_moves_and_legal_games(encoding):
    agent = PolicyAgent(first_legal, size=6, action_encoding=encoding, name="first")
    board = Board(6)
    move = agent.select_move(board)
    # the lowest queen action, then the lowest arrow action from there
    moves = board.legal_moves_array()
    queen = moves[:, 0] * 36 + moves[:, 1]
    if encoding == "lines":
        queen = line_tables(6)[1][queen]
    best = moves[queen == queen.min()]
    assert (move.from_square, move.to_square) == tuple(best[0, :2]) and move.arrow in best[:, 2]
    assert board == Board(6)  # the board is not changed
    result = play_game(agent, PolicyAgent(last_legal, size=6, action_encoding=encoding), Board(6))
    replay = Board(6)
    for move in result.record:
        replay.push(move)  # every move of the game legal
    assert replay.is_game_over() and result.ended == "moves" and int(replay.winner) == result.winner
    with pytest.raises(ValueError, match="plays 6x6"):
        agent.select_move(Board(8))
    with pytest.raises(IllegalMoveError):
        PolicyAgent(lambda obs, mask: np.zeros(1, np.int64), size=6).select_move(Board(6))
    with pytest.raises(ValueError, match="not callable"):
        PolicyAgent("nope", size=6)
