"""Fixed-depth searches of the alpha-beta engine and the study's three kernels give exactly the
results (best move, value, nodes) recorded before their arguments were bundled into named
structures (issue 38): a fixed-depth search is deterministic, and moving code must not change it."""

from __future__ import annotations

import pytest

from amazons_env import Board

from agents import make

# a position three random plies into a 6x6 game
LATER = "2*1q1/qq3q/6/5*/Q2Q*Q/1Q4 b"

# (position, spec) -> (move, value, nodes), recorded at commit 38c00b6
PINNED = {
    ("start", "alphabeta:depth=3"): ("e1-e5/d5", 0.9430173439704364, 54),
    ("start", "alphabeta:depth=4,endgame=0,kq=4,k=3"): ("b1-b5/b4", -0.1600979618926521, 32),
    ("start", "classic:depth=2,eval=improved"): ("b1-d3/b5", -0.02075467406632398, 32246),
    ("start", "two-iteration:depth=2,eval=basic"): ("b1-d3/b5", -0.032388663967611336, 35679),
    ("start", "move-then-arrow:depth=2,eval=improved"): ("b1-b5/d3", -0.044929733279772496, 2265),
    ("later", "alphabeta:depth=3"): ("f5-d3/e3", 0.8949004001624683, 81),
    ("later", "alphabeta:depth=4,k=0,kq=0,tt=False"): ("f5-d3/e3", 0.5525633974832117, 62350),
    ("later", "alphabeta:depth=4,endgame=0,kq=4,k=3"): ("b5-b3/e3", -0.3413647262501646, 38),
    ("later", "classic:depth=2,eval=improved"): ("a5-c3/e3", -0.0002034647134054185, 12576),
    ("later", "two-iteration:depth=2,eval=basic"): ("a5-c3/d4", -0.03677221654749745, 13154),
    ("later", "move-then-arrow:depth=2,eval=improved"): ("f5-c2/d1", -0.05121699612457133, 1741),
}


@pytest.mark.parametrize(("where", "spec"), sorted(PINNED))
def test_fixed_depth_search_gives_the_recorded_result(where, spec):
    board = Board(6) if where == "start" else Board(position=LATER)
    result = make(spec).search(board)
    assert (str(result.move), result.value, result.nodes) == PINNED[where, spec]
