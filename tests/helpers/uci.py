"""Helpers of the engine protocols' tests: a scripted UCI session through an in-process engine, the
``bestmove`` answers of its output, Fairy-Stockfish's (pyffish) legality check, and a search agent
that records the limit of each of its moves."""

import io

import pytest

from agents import Limit, SearchAgent, SearchResult
from agents.protocols.uci_engine import UCIEngine


def session(lines, agent="random:seed=1"):
    """Run UCI command lines through an in-process engine; its output lines."""
    out = io.StringIO()
    engine = UCIEngine(agent, out)
    engine.run(lines)
    return out.getvalue().splitlines()


def bestmoves(output):
    return [line.split()[1] for line in output if line.startswith("bestmove")]


def fsf_legal(fen_text, moves, answer):
    """Whether Fairy-Stockfish (pyffish) lists ``answer`` after ``moves`` from ``fen_text`` (10x10)."""
    pyffish = pytest.importorskip("pyffish")
    return answer in pyffish.legal_moves("amazons", fen_text, moves)


class Recorder(SearchAgent):
    """A search that plays the first legal move and records the limit of each of its moves."""

    name = "recorder"
    LIMITS = ("time", "depth")

    def __init__(self):
        super().__init__(Limit(time=5.0))
        self.seen = []

    def _search(self, board, limit, deadline):
        self.seen.append(limit)
        return SearchResult(board.legal_moves()[0], 0.25, depth=1, nodes=7)
