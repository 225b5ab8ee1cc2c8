"""Your own agent anywhere a spec goes: ``FILE.py:CLASS[:options]`` and ``package.module:CLASS``,
in Python, in the arena (also in spawned worker processes) and on the command line."""

from __future__ import annotations

from pathlib import Path

import pytest

from amazons_env import Board

import agents
from agents.arena import tournament
from agents.options import OptionError

from amazons_cli.main import main

EXAMPLE = str(Path(__file__).resolve().parents[2] / "examples" / "my_agent.py")
SPEC = f"{EXAMPLE}:Mobility"


def test_a_file_spec_builds_the_agent_with_checked_options():
    agent = agents.make(f"{SPEC}:sample=3", seed=1)
    board = Board(6)
    assert board.is_legal(agent.select_move(board)) and board.ply == 0
    assert agent.sample == 3 and agent.spec == f"{SPEC}:sample=3,seed=1"
    assert agents.make(agent.spec).sample == 3  # the spec rebuilds it (what worker processes do)
    for bad, words in (
        (f"{SPEC}:sampel=3", "did you mean 'sample'"),
        (f"{SPEC}:sample=0", "sample=0: must be >= 1"),
        (f"{SPEC}:sample=1.5", "whole number"),
        (f"{SPEC}:sample=nan", "sample=nan"),
    ):
        with pytest.raises(OptionError, match=words):
            agents.make(bad)


def test_module_specs_and_errors(tmp_path):
    assert isinstance(agents.make("agents.random_agent:RandomAgent:seed=2"), agents.Agent)
    with pytest.raises(OptionError, match="no such file"):
        agents.make(str(tmp_path / "missing.py") + ":Bot")
    with pytest.raises(OptionError, match="has no class or function 'Nope'.*Mobility"):
        agents.make(f"{EXAMPLE}:Nope")
    with pytest.raises(OptionError, match="not an instance of agents.base.Agent"):
        agents.make("amazons_env.board:Board")
    with pytest.raises(OptionError, match="cannot import"):
        agents.make("no_such_package.module:Bot")
    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('my bug')\n")
    with pytest.raises(RuntimeError, match="my bug"):  # the user's own error, unchanged
        agents.make(f"{broken}:Bot")
    with pytest.raises(RuntimeError, match="my bug"):  # and again: a failed import is not cached
        agents.make(f"{broken}:Bot")


def test_entered_into_a_tournament_from_python_and_the_command_line(capsys):
    result = tournament([SPEC, "random"], games=2, size=6, workers=1, progress=False)
    assert sum(row["games"] for row in result["standings"]) == 4
    assert (
        main(["tournament", f"{SPEC}:sample=5", "random", "--games", "2", "--size", "6", "--workers", "2", "--quiet"])
        == 0
    )  # two spawned workers rebuild the agent from its file
    out = capsys.readouterr().out
    assert "my_agent.py:Mobility:sample=5" in out and "random" in out
    assert main(["agents", SPEC]) == 0
    assert "candidate moves looked at per turn" in capsys.readouterr().out
    assert main(["match", f"{SPEC}:sampel=5", "random", "--games", "2", "--size", "6"]) == 2
    assert "did you mean 'sample'" in capsys.readouterr().err
