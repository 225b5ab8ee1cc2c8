"""AmazonsEnv: gymnasium conformance, masks vs the legal move list, planes vs the Board, errors."""

import sys

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from amazons_env import Board, Color, IllegalMoveError, InvalidMoveError, InvalidPositionError, Move
from amazons_env.envs.actions import (
    action_to_str,
    actions_to_move,
    decode_action,
    encode_action,
    move_to_actions,
    parse_action,
)
from amazons_env.envs.gym_env import AmazonsEnv
from amazons_env.envs.planes import PLANE_BLACK, PLANE_OWN_QUEENS

from tests.helpers.env_reference import expected_mask, expected_planes


def test_check_env_registered_and_render_modes():
    check_env(gymnasium.make("Amazons-v0", size=6).unwrapped, skip_render_check=True)
    check_env(gymnasium.make("Amazons-v0", size=6, opponent="random").unwrapped, skip_render_check=True)
    for mode in ("ansi", "rgb_array"):
        check_env(AmazonsEnv(size=6, render_mode=mode))
    assert gymnasium.make("Amazons-v0").unwrapped.size == 10


@pytest.mark.parametrize("size,games", [(4, 6), (6, 6), (8, 3), (10, 1), (12, 1)])
def test_mask_and_planes_match_board_along_random_games(size, games):
    env = AmazonsEnv(size=size)
    rng = np.random.default_rng(size)
    for game in range(games):
        obs, info = env.reset(seed=game)
        pending = None
        terminated = False
        while not terminated:
            board = env.board
            assert np.array_equal(info["action_mask"], expected_mask(board, pending))
            assert np.array_equal(env.action_masks(), info["action_mask"])
            env.observation(1 - int(board.turn))  # the other side's view must not disturb the lists
            assert np.array_equal(np.sort(env.legal_actions()), np.flatnonzero(info["action_mask"]))
            assert np.array_equal(obs, expected_planes(board, pending))
            assert info["phase"] == (pending is not None) and info["player"] == int(board.turn)
            assert info["move_number"] == board.ply
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            obs, reward, terminated, truncated, info = env.step(action)
            pending = None if pending else decode_action(action, size)
            assert not truncated and reward == (1.0 if terminated else 0.0)
        board = env.board
        assert board.is_game_over() and info["winner"] == int(board.winner) == 1 - int(board.turn)
        assert not env.action_masks().any() and info["action_mask"].all()  # none legal; any one drawable


def test_move_actions_round_trip_and_names():
    move = Move.parse("d1-d7/g7")
    queen, arrow = move_to_actions(move)
    assert (queen, arrow) == (encode_action(3, 63), encode_action(63, 66))
    assert actions_to_move(queen, arrow) == move
    assert action_to_str(queen) == "d1-d7" and parse_action("d1-d7") == queen == parse_action("d1d7")
    assert parse_action("j10-a1") == encode_action(99, 0)
    with pytest.raises(InvalidMoveError, match="not shot from d7"):
        actions_to_move(queen, encode_action(60, 66))
    with pytest.raises(InvalidMoveError, match="not an action"):
        parse_action("d1")
    with pytest.raises(InvalidMoveError, match="out of range"):
        decode_action(10**4)


def test_full_moves_through_the_env_match_board_push():
    env = AmazonsEnv(size=6)
    env.reset(seed=0)
    reference = Board(6)
    for text in ("b1-b4/b5", "e6-e2/c4", "a2-a3/a4"):
        move = Move.parse(text, size=6)
        for action in move_to_actions(move):
            env.step(action)
        reference.push(move)
        assert env.board == reference and env.board.move_stack == reference.move_stack


@pytest.mark.parametrize("action", [-1, 6**4, 2.0, "a1-a2", None, True])
def test_malformed_actions_raise_invalid_move_error(action):
    env = AmazonsEnv(size=6)
    env.reset()
    with pytest.raises(InvalidMoveError):
        env.step(action)
    assert env.phase == 0 and env.move_number == 0


def test_illegal_action_raise_mode_keeps_state():
    env = AmazonsEnv(size=6, illegal_action="raise")
    obs, info = env.reset()
    with pytest.raises(IllegalMoveError, match="no white queen on a1"):
        env.step(parse_action("a1-a2", 6))
    with pytest.raises(IllegalMoveError, match="cannot reach"):
        env.step(parse_action("b1-c3", 6))
    env.step(parse_action("b1-b4", 6))
    env.step(parse_action("b4-b5", 6))
    env.step(parse_action("e6-e2", 6))
    before = env.observation().copy()
    with pytest.raises(IllegalMoveError, match="arrow must be shot by the queen that just moved, on e2"):
        env.step(parse_action("b6-b5", 6))
    with pytest.raises(IllegalMoveError, match="arrow cannot fly"):
        env.step(parse_action("e2-d4", 6))
    assert np.array_equal(env.observation(), before) and env.phase == 1
    assert env.board.text() == Board.from_text(env.board.text()).text()


def test_illegal_action_lose_mode_ends_the_game():
    env = AmazonsEnv(size=6)
    env.reset()
    obs, reward, terminated, truncated, info = env.step(parse_action("a1-a2", 6))
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["illegal_action"] and "no white queen" in env.illegal_reason and info["winner"] == 1
    assert not env.action_masks().any() and info["action_mask"].all()
    with pytest.raises(gymnasium.error.ResetNeeded, match="game is over"):
        env.step(parse_action("b1-b2", 6))


def test_step_before_reset_and_after_end():
    env = AmazonsEnv(size=4)
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.step(0)
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.action_masks()
    obs, info = env.reset(seed=1)
    terminated = False
    while not terminated:
        obs, reward, terminated, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    with pytest.raises(gymnasium.error.ResetNeeded, match="won after"):
        env.step(int(np.flatnonzero(expected_mask(Board(4), None))[0]))


def test_reset_options_are_validated():
    env = AmazonsEnv(size=6)
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(options={"positoin": "x"})
    with pytest.raises(ValueError, match="must be a dict"):
        env.reset(options=["position"])
    with pytest.raises(InvalidPositionError, match="this env is 6x6"):
        env.reset(options={"position": Board(8)})
    with pytest.raises(InvalidPositionError, match="position text or a Board"):
        env.reset(options={"position": 42})
    with pytest.raises(InvalidPositionError):
        env.reset(options={"position": "not a position"})
    with pytest.raises(InvalidPositionError, match="already over"):
        env.reset(options={"position": "Q*4/**4/6/6/6/5q w"})
    obs, info = env.reset(options={"position": "Q5/6/6/6/6/5q b"})
    assert info["player"] == 1 and obs[PLANE_BLACK].all() and obs[PLANE_OWN_QUEENS][0, 5] == 1  # f1, Black


def test_constructor_arguments_are_validated():
    with pytest.raises(InvalidPositionError):
        AmazonsEnv(size=3)
    with pytest.raises(ValueError, match="illegal_action"):
        AmazonsEnv(illegal_action="ignore")
    with pytest.raises(ValueError, match="render_mode"):
        AmazonsEnv(render_mode="svg")
    with pytest.raises(ValueError, match="learner_color"):
        AmazonsEnv(opponent="random", learner_color="red")
    with pytest.raises(ValueError, match="unknown agent"):
        AmazonsEnv(opponent="no-such-agent")


def test_human_mode_without_pygame_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "pygame", None)  # import pygame now fails, installed or not
    with pytest.raises(gymnasium.error.DependencyNotInstalled, match="amazons\\[render\\]"):
        AmazonsEnv(size=6, render_mode="human")


def test_human_mode_draws_the_board_in_a_window(monkeypatch):
    pygame = pytest.importorskip("pygame")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")  # a window without a display
    env = AmazonsEnv(size=6, render_mode="human")
    env.metadata = {**env.metadata, "render_fps": 1000}  # do not wait between frames
    twin = AmazonsEnv(size=6, render_mode="rgb_array")
    for e in (env, twin):
        obs, info = e.reset(seed=0)
        e.step(int(np.flatnonzero(info["action_mask"])[0]))  # human mode renders in step
    picture = np.transpose(pygame.surfarray.array3d(pygame.display.get_surface()), (1, 0, 2))
    assert np.array_equal(picture, twin.render())
    env.close()
    assert pygame.display.get_surface() is None


def test_render_ansi_and_rgb_array():
    env = AmazonsEnv(size=6, render_mode="ansi")
    env.reset()
    env.step(parse_action("b1-b4", 6))
    text = env.render()
    assert " 4 . Q" in text and "White to shoot an arrow (queen moved b1-b4)" in text
    env.step(parse_action("b4-b5", 6))
    assert "last move b1-b4/b5" in env.render() and "Black to move" in env.render()
    picture = AmazonsEnv(size=6, render_mode="rgb_array")
    picture.reset()
    image = picture.render()
    assert image.shape == (240, 240, 3) and image.dtype == np.uint8
    # b1 holds a White queen: bottom row, second file; its centre is white, a1's centre is not
    assert (image[220, 60] > 240).all() and not (image[220, 20] > 240).all()


def test_opponent_mode_rewards_from_the_learner_view():
    for color in ("white", "black"):
        env = AmazonsEnv(size=6, opponent="random", learner_color=color)
        obs, info = env.reset(seed=3)
        assert info["player"] == int(Color[color.upper()])
        assert info["move_number"] == (color == "black")
        total = 0.0
        terminated = False
        while not terminated:
            action = int(np.flatnonzero(info["action_mask"])[0])
            obs, reward, terminated, _, info = env.step(action)
            total += reward
            assert info["player"] == int(Color[color.upper()])
        board = env.board
        assert total == (1.0 if board.winner == env.learner_color else -1.0)


def test_seeded_opponent_is_reproducible():
    def play(seed):
        env = AmazonsEnv(size=6, opponent="random", learner_color="random")
        obs, info = env.reset(seed=seed)
        terminated = False
        while not terminated:
            obs, _, terminated, _, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
        return env.learner_color, env.board.move_stack

    assert play(7) == play(7)


def test_info_has_the_same_keys_and_types_on_every_step():
    """Vector wrappers and TorchRL stack the infos of many envs: a key that comes and goes breaks them."""
    env = AmazonsEnv(size=4)
    _, info = env.reset(seed=3)
    types = {k: type(v) for k, v in info.items()}
    assert info["winner"] == -1 and info["illegal_action"] is False and env.illegal_reason == ""
    terminated = False
    while not terminated:
        _, _, terminated, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        assert {k: type(v) for k, v in info.items()} == types
    assert info["winner"] in (0, 1)
    _, info = env.reset(seed=3)
    _, _, _, _, info = env.step(0)  # a1-a1 is never legal: the actor loses
    assert {k: type(v) for k, v in info.items()} == types and info["illegal_action"] and info["winner"] == 1
