"""The envs' ``opponent=``: spec strings resolved through the declared entry point (the envs never
import ``agents`` themselves), any object with ``select_move``, gymnasium's factories and async
vector envs."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

from amazons_env import AmazonsEnv, AmazonsVectorEnv, Board, Move
from amazons_env.envs import opponents
from amazons_env.errors import InvalidArgumentError


class FirstLegal:
    """A board-level player that is no ``agents.Agent``: the first legal move, counting its calls."""

    def __init__(self) -> None:
        self.moves = 0
        self.resets = 0

    def select_move(self, board: Board) -> Move:
        self.moves += 1
        return board.legal_moves()[0]

    def reset(self) -> None:
        self.resets += 1


def _play_out(env: AmazonsEnv, seed: int = 0) -> float:
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    total, done = 0.0, False
    while not done:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        total += float(reward)
        done = terminated or truncated
    return total


def test_an_object_with_select_move_is_an_opponent():
    player = FirstLegal()
    env = AmazonsEnv(size=6, opponent=player)
    assert env.opponent is player
    assert _play_out(env) in (-1.0, 1.0)
    assert player.moves > 0 and player.resets == 1


def test_a_spec_string_is_resolved_through_the_entry_point():
    env = AmazonsEnv(size=6, opponent="random")
    assert type(env.opponent).__module__.startswith("agents.")
    assert _play_out(env, seed=3) in (-1.0, 1.0)


def test_a_resolver_installed_at_run_time_takes_precedence():
    made = []

    def resolver(spec: str) -> FirstLegal:
        made.append(spec)
        return FirstLegal()

    opponents.set_opponent_resolver(resolver)
    try:
        env = AmazonsEnv(size=6, opponent="anything")
    finally:
        opponents.set_opponent_resolver(None)
    assert made == ["anything"] and isinstance(env.opponent, FirstLegal)


def test_what_cannot_play_is_refused_by_name():
    with pytest.raises(InvalidArgumentError, match=r"opponent=.*select_move"):
        AmazonsEnv(size=6, opponent=42)
    with pytest.raises(InvalidArgumentError, match=r"opponent=.*select_move"):
        AmazonsVectorEnv(2, 6, opponent=3.5)


def test_the_env_modules_do_not_import_agents_until_a_spec_is_resolved(fresh_python):
    code = (
        "import sys, amazons_env\n"
        "from amazons_env import AmazonsEnv, AmazonsVectorEnv\n"
        "AmazonsEnv(size=6); AmazonsVectorEnv(2, 6)\n"
        "assert 'agents' not in sys.modules, 'an env imported agents'\n"
        "AmazonsEnv(size=6, opponent='random')\n"
        "assert 'agents' in sys.modules\n"
    )
    fresh_python(code, timeout=120)


def test_gymnasium_make_with_an_opponent_spec():
    env = gymnasium.make("Amazons-v0", size=6, opponent="uct:sims=20")
    assert _play_out(env.unwrapped, seed=1) in (-1.0, 1.0)


@pytest.mark.slow
def test_async_vector_env_with_an_opponent_spec():
    envs = gymnasium.make_vec("Amazons-v0", num_envs=2, vectorization_mode="async", size=6, opponent="uct:sims=20")
    try:
        obs, info = envs.reset(seed=0)
        for _ in range(4):
            masks = info["action_mask"]
            actions = np.array([int(np.flatnonzero(m)[0]) for m in masks])
            obs, rewards, terminated, truncated, info = envs.step(actions)
        assert rewards.shape == (2,)
    finally:
        envs.close()


def test_a_search_with_a_node_budget_passes_gymnasiums_determinism_checks():
    from gymnasium.utils.env_checker import check_env

    check_env(AmazonsEnv(size=5, opponent="uct:sims=20", learner_color="random"), skip_render_check=True)


def test_a_per_game_player_gets_the_board_from_squares_of_its_games_cells():
    """``board_of`` copies a game's cells (``Board.from_cells``): the board ``from_squares`` makes
    of its pieces, queens in the same order (a seeded player's choices depend on it), a copy."""
    from amazons_env import core
    from amazons_env.envs.batch_opponents import board_of
    from amazons_env.envs.kernels.game import SIDE

    envs = AmazonsVectorEnv(6, size=5, opponent=FirstLegal(), learner_color="random")
    envs.reset(seed=3)
    view = envs._replies.view
    for _ in range(40):
        envs.step(envs.sample_legal_actions())
        for i in range(6):
            pieces = view.cells[i][core.padded_index(5)]
            white, black, arrows = (
                np.flatnonzero(pieces == p) for p in (core.WHITE_QUEEN, core.BLACK_QUEEN, core.ARROW)
            )
            expected = Board.from_squares(5, white, black, arrows, int(view.meta[i, SIDE]))
            made = board_of(view, i)
            assert made == expected and made.text() == expected.text() and made.turn == expected.turn
            assert np.array_equal(made.queens, expected.queens)
            assert np.array_equal(made.queen_counts, expected.queen_counts)
            assert not np.shares_memory(made.cells, view.cells)
