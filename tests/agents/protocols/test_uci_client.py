"""The ``uci`` agent driving an external engine (our own, as a process): games, its spec, its
process's life, bad options, and silent or illegal engines."""

import gc
import sys

import pytest

from amazons_env import Board

from agents import make
from agents.arena import play_game
from agents.protocols.uci_client import EngineError, EngineOptionError, UCIAgent

ENGINE = f"{sys.executable} -m amazons_cli.main engine --agent random"


# -- the uci agent: an external engine ----------------------------------------------------------------


def test_uci_agent_plays_a_game_against_random_through_our_engine():
    with UCIAgent(engine=ENGINE, time=0.05) as agent:
        assert agent._proc is None  # nothing runs until a game starts
        agent.reset()  # starts the engine before the game: its start-up is not thinking time
        process = agent._proc
        result = play_game(agent, make("random", seed=2), Board(6))
        assert result.plies > 6 and agent.last_result is not None
        agent.reset()  # ucinewgame, same process
        assert agent._proc is process and process.poll() is None
        agent.seed(1)
        board = Board(8)
        assert board.is_legal(agent.select_move(board))
    assert process.poll() is not None  # closed on leaving the block


def test_uci_agent_from_a_spec_and_its_process_ends_on_garbage_collection():
    agent = make(f"uci:{ENGINE},time=0.05")  # the bare first value is the engine
    assert agent.spec == f"uci:engine={ENGINE},time=0.05" and make(agent.spec).argv == agent.argv
    assert agent.prove == 0  # an engine's moves are its own: no proven-move shortcut of ours
    board = Board(10)
    board.push("d1d6,d6g9")
    assert agent._position(board) == "position startpos moves d1d6,d6g9"
    assert board.is_legal(agent.select_move(board))
    process = agent._proc
    del agent
    gc.collect()
    assert process.wait(timeout=10) is not None


def test_uci_agent_refuses_bad_options_and_engines():
    with pytest.raises(ValueError, match="not an executable"):
        UCIAgent(engine="/no/such/engine")
    with pytest.raises(ValueError, match="engine=PATH is required"):
        UCIAgent()
    with pytest.raises(ValueError, match="not an executable"):
        make("uci:/no/such/engine,time=1")
    with pytest.raises(ValueError, match="grace"):
        make(f"uci:{ENGINE},grace=0")
    with pytest.raises(ValueError, match="time"):
        UCIAgent(engine=ENGINE, time=-1)
    agent = UCIAgent(engine=ENGINE, Movetme=100)
    with pytest.raises(EngineOptionError, match=r"has no option 'Movetme' \(did you mean 'MoveTime'\?\)"):
        agent.select_move(Board(6))
    assert agent._proc is None  # killed, not left behind


HUNG = """import sys
for line in sys.stdin:
    word = line.split()[0] if line.split() else ''
    if word == 'uci': print('uciok', flush=True)
    if word == 'isready': print('readyok', flush=True)
    if word == 'go' and ILLEGAL: print('bestmove a1a2,a2a3', flush=True)
"""


@pytest.mark.parametrize("illegal", [False, True])
def test_uci_agent_times_out_a_silent_engine_and_refuses_illegal_answers(tmp_path, illegal):
    script = tmp_path / "engine.py"
    script.write_text(HUNG.replace("ILLEGAL", str(illegal)))
    agent = UCIAgent(engine=f"{sys.executable} {script}", time=0.05, grace=0.3)
    with pytest.raises(EngineError, match="illegal move" if illegal else "gave no bestmove"):
        agent.select_move(Board(6))
    assert agent._proc is None
