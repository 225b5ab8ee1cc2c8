"""Agents in the two-phase env, through ``agents.env_adapter``."""

from __future__ import annotations

import gymnasium

from amazons_env import Board
from amazons_env.envs.actions import encode_action
from amazons_env.envs.gym_env import AmazonsEnv
from amazons_env.envs.pettingzoo_env import raw_env

import agents
from agents.arena import play_game
from agents.env_adapter import EnvPlayer, play_episode


def test_env_game_equals_board_game():
    white, black = "two-iteration:depth=1,eval=basic", "move-then-arrow:depth=1,eval=improved"
    env = gymnasium.make("Amazons-v0", size=6)
    winner = play_episode(env, white, black, seed=1)
    board_game = play_game(agents.make(white), agents.make(black), Board(6))
    assert [str(m) for m in env.unwrapped.board.move_stack] == board_game.record
    assert winner == board_game.winner


def test_arrow_after_someone_elses_queen_move():
    env = AmazonsEnv(size=6)
    env.reset(seed=0)
    player = EnvPlayer(agents.make("random", seed=1))
    move = env.board.legal_moves()[5]
    _, _, _, _, info = env.step(encode_action(move.from_square, move.to_square, 6))
    action = player.action(env)
    assert info["action_mask"][action] == 1


def test_pettingzoo_env():
    env = raw_env(size=6)
    env.reset(seed=2)
    players = {"player_0": EnvPlayer("two-iteration:depth=1"), "player_1": EnvPlayer("random")}
    while not any(env.terminations.values()):
        agent = env.agent_selection
        env.step(players[agent].action(env))
    assert sorted(env.rewards.values()) == [-1.0, 1.0]
