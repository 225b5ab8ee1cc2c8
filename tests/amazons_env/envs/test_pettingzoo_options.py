"""The PettingZoo AEC env's options (obs_mode, action_encoding, mask_dtype) under PettingZoo's own
conformance tests, and both agents' rewards at the end of a game, in every colour and phase."""

import itertools

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from amazons_env import Board, Move
from amazons_env.envs.actions import move_to_actions, move_to_line_actions
from amazons_env.envs.gym_env import AmazonsEnv
from amazons_env.envs.pettingzoo_env import env, raw_env
from amazons_env.errors import InvalidArgumentError, InvalidMoveError

COMBOS = list(itertools.product(("dict", "planes"), ("flat", "lines"), ("int8", "bool")))


def mask_of(game, agent):
    """``agent``'s mask, wherever this obs_mode puts it."""
    observation = game.observe(agent)
    return observation["action_mask"] if isinstance(observation, dict) else game.infos[agent]["action_mask"]


@pytest.mark.parametrize("obs_mode,encoding,dtype", COMBOS)
def test_pettingzoo_conformance_of_every_option(obs_mode, encoding, dtype, monkeypatch):
    options = dict(obs_mode=obs_mode, action_encoding=encoding, mask_dtype=dtype)
    api_test(env(size=4, **options), num_cycles=100)
    api_test(raw_env(size=4, **options), num_cycles=100)
    seed_test(lambda: env(size=4, **options), num_cycles=100)
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")  # the "human" window without a display
    monkeypatch.setitem(AmazonsEnv.metadata, "render_fps", 1000)  # ... and without waiting 1/4 s a frame
    render_test(lambda render_mode=None: env(size=4, render_mode=render_mode, **options))


@pytest.mark.parametrize("obs_mode,encoding,dtype", COMBOS)
def test_spaces_masks_and_actions_follow_the_options(obs_mode, encoding, dtype):
    game = env(size=6, obs_mode=obs_mode, action_encoding=encoding, mask_dtype=dtype)
    game.reset(seed=0)
    actions = 1440 if encoding == "lines" else 1296
    assert game.action_space("player_0").n == actions
    mask = mask_of(game, "player_0")
    assert mask.shape == (actions,) and mask.dtype == np.dtype(dtype) and int(mask.sum()) == 40
    assert not mask_of(game, "player_1").any()
    space = game.observation_space("player_0")
    assert space.contains(game.observe("player_0")) and space.contains(game.observe("player_1"))
    # one full turn in this encoding: b1-b4/b5
    move = Move.parse("b1-b4/b5", size=6)
    for action in move_to_line_actions(move) if encoding == "lines" else move_to_actions(move):
        assert mask_of(game, "player_0")[action]
        game.step(action)
    assert game.unwrapped.game.board.peek() == move and game.agent_selection == "player_1"


def test_options_are_refused_by_name():
    for bad, name in (
        (dict(obs_mode="planes_and_mask"), "obs_mode"),
        (dict(action_encoding=7), "action_encoding"),
        (dict(mask_dtype="float32"), "mask_dtype"),
        (dict(obs_mode=None), "obs_mode"),
    ):
        with pytest.raises(InvalidArgumentError, match=name):
            raw_env(size=6, **bad)
    game = env(size=6, action_encoding="lines")
    game.reset()
    for bad in (1440, -1, 2.0, True, "3"):
        with pytest.raises(InvalidMoveError):
            game.step(bad)
    assert game.unwrapped.game.move_number == 0 and not any(game.terminations.values())


def test_an_off_board_line_action_ends_the_game_as_illegal():
    game = env(size=6, action_encoding="lines")
    game.reset()
    off_board = (0 * 8 + 4) * 5 + 0  # from a1, one square south (direction 4): off the board
    game.step(off_board)
    assert game.rewards == {"player_0": -1, "player_1": 0}


def final_rewards(game, choose):
    """Play ``game`` (already reset) to its end with ``choose(game, agent, mask)``; the reward each
    agent reads from ``last()`` once its termination shows, and the number of steps played."""
    final, steps = {}, 0
    for agent in game.agent_iter():
        _, reward, termination, truncation, _ = game.last()
        if termination or truncation:
            final[agent] = reward
            game.step(None)
            continue
        game.step(choose(game, agent, mask_of(game, agent)))
        steps += 1
    return final, steps


@pytest.mark.parametrize("make", [env, raw_env])
@pytest.mark.parametrize("encoding", ["flat", "lines"])
def test_both_agents_receive_plus_and_minus_one_when_either_colour_wins(make, encoding):
    rng = np.random.default_rng(0)
    winners = set()
    for seed in range(40):
        game = make(size=4, action_encoding=encoding)
        game.reset(seed=seed)
        final, steps = final_rewards(game, lambda g, a, m: int(rng.choice(np.flatnonzero(m))))
        winner = int(game.unwrapped.game.board.winner)
        assert steps % 2 == 0  # a game ends on an arrow: a queen move always has an arrow (back where it was)
        assert final == {f"player_{winner}": 1.0, f"player_{1 - winner}": -1.0}
        winners.add(winner)
        if winners == {0, 1}:
            break
    assert winners == {0, 1}


@pytest.mark.parametrize("make", [env, raw_env])
@pytest.mark.parametrize("colour,phase", [(0, 0), (0, 1), (1, 0), (1, 1)])
def test_an_illegal_action_in_either_phase_and_colour_costs_only_its_taker(make, colour, phase):
    game = make(size=6)
    game.reset(seed=0)
    board = Board(6)
    plan = []  # legal actions up to the illegal one: White's turn first if Black errs, a queen move for phase 1
    if colour == 1:
        white = board.legal_moves()[0]
        plan += move_to_actions(white)
        board.push(white)
    if phase == 1:
        plan.append(move_to_actions(board.legal_moves()[0])[0])

    def choose(g, agent, mask):
        if plan:
            return plan.pop(0)
        return int(np.flatnonzero(mask == 0)[0])  # the lowest illegal action

    final, steps = final_rewards(game, choose)
    taker = f"player_{colour}"
    assert steps == 2 * colour + phase + 1 and game.unwrapped.game.phase == phase
    assert final == {taker: -1.0, f"player_{1 - colour}": 0.0}


def test_human_mode_draws_one_frame_per_step(monkeypatch):
    from amazons_env.drawing import render

    frames = []
    monkeypatch.setattr(render.HumanWindow, "show", lambda self, *args, **kwargs: frames.append(1))
    game = env(size=4, render_mode="human")
    game.reset(seed=0)
    game.step(int(game.observe("player_0")["action_mask"].argmax()))
    assert len(frames) == 2  # the reset's and the step's (each frame waits 1/render_fps s)
