"""The env kernels against slow references: ``AmazonsVectorEnv``'s batched step (planes, masks,
legal lists, rewards) against planes and masks built from a ``Board`` along random games on 6x6,
8x8 and 10x10, and the kernels' move generator (packed line words) against the rules core on
random positions of every size, crowded ones included."""

import numba
import numpy as np
import pytest

from amazons_env import Board, Move
from amazons_env.core import MAX_SIZE, MIN_SIZE
from amazons_env.envs.gym_env import AmazonsEnv
from amazons_env.envs.kernels import game as K
from amazons_env.envs.vector_env import AmazonsVectorEnv

from tests.helpers.env_reference import expected_mask, expected_planes


def random_board(size, rng):
    """A random position: 1-4 queens a side and a random share of arrows (up to nearly full)."""
    squares = rng.permutation(size * size)
    white, black = rng.integers(1, 5, size=2)
    arrows = int(rng.integers(0, size * size - white - black))
    return Board.from_squares(
        size,
        squares[:white],
        squares[white : white + black],
        squares[white + black : white + black + arrows],
        int(rng.integers(2)),
    )


def legal_list(env):
    """The env's list of legal flat actions (written beside the mask), sorted."""
    return np.sort(env._game._legal[0, : env._game.meta[K.NLEGAL]])


@pytest.mark.parametrize("size", range(MIN_SIZE, MAX_SIZE + 1))
def test_move_generator_matches_the_core_on_random_positions(size):
    rng = np.random.default_rng(size)
    env = AmazonsEnv(size=size)
    checked = 0
    while checked < 40:
        board = random_board(size, rng)
        if board.is_game_over():
            continue
        obs, info = env.reset(options={"position": board})
        assert np.array_equal(info["action_mask"], expected_mask(board, None))
        assert np.array_equal(legal_list(env), np.flatnonzero(info["action_mask"]))
        assert np.array_equal(obs, expected_planes(board, None))
        # the arrow phase after a random queen move
        moves = board.legal_moves_array()
        frm, to, _ = moves[rng.integers(len(moves))]
        obs, _, _, _, info = env.step(int(frm) * size * size + int(to))
        assert np.array_equal(info["action_mask"], expected_mask(board, (frm, to)))
        assert np.array_equal(legal_list(env), np.flatnonzero(info["action_mask"]))
        assert np.array_equal(obs, expected_planes(board, (frm, to)))
        checked += 1


def threads():
    return [1, 2] if numba.config.NUMBA_NUM_THREADS >= 2 else [1]


@pytest.mark.parametrize("num_threads", threads())
@pytest.mark.parametrize("size,num_envs,steps", [(6, 6, 300), (8, 4, 250), (10, 3, 250)])
def test_vector_env_matches_board_reference(size, num_envs, steps, num_threads):
    """Every step of every game: planes, mask, legal list and rewards as a ``Board`` says, with
    random legal actions, 1 in 50 an arbitrary (usually illegal) one, through autoresets."""
    envs = AmazonsVectorEnv(num_envs, size=size, num_threads=num_threads)
    obs, infos = envs.reset(seed=size)
    rng = np.random.default_rng(size)
    boards = [Board(size) for _ in range(num_envs)]
    pending = [None] * num_envs
    ended = [False] * num_envs
    games = 0
    for _ in range(steps):
        for i, board in enumerate(boards):
            if ended[i]:
                continue
            assert np.array_equal(obs[i], expected_planes(board, pending[i]))
            assert np.array_equal(infos["action_mask"][i], expected_mask(board, pending[i]))
            legal = np.sort(envs._out.legal[i, : envs._games.meta[i, K.NLEGAL]])
            assert np.array_equal(legal, np.flatnonzero(infos["action_mask"][i]))
        actions = envs.sample_legal_actions()
        wild = rng.random(num_envs) < 0.02
        actions[wild] = rng.integers(size**4, size=int(wild.sum()))
        obs, rewards, terminated, _, infos = envs.step(actions)
        for i, board in enumerate(boards):
            if ended[i]:  # the autoreset step
                boards[i], pending[i], ended[i] = Board(size), None, False
                assert rewards[i] == 0 and not terminated[i]
                continue
            frm, to = divmod(int(actions[i]), size * size)
            mover = int(board.turn)
            legal = expected_mask(board, pending[i])[actions[i]] == 1
            if not legal:
                assert terminated[i] and rewards[i] == -1 and infos["illegal_action"][i]
            elif pending[i] is None:
                pending[i] = (frm, to)
            else:
                board.push(Move(pending[i][0], pending[i][1], to, size))
                pending[i] = None
                over = board.is_game_over()
                assert terminated[i] == over and rewards[i] == (1.0 if over else 0.0)
            if terminated[i]:
                winner = mover if legal else 1 - mover
                assert infos["rewards"][i].tolist() == ([1.0, -1.0] if winner == 0 else [-1.0, 1.0])
                ended[i] = True
                games += 1
            else:
                assert infos["rewards"][i].tolist() == [0.0, 0.0]
    assert games >= num_envs
