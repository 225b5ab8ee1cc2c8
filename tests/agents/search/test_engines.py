"""Engines beyond the study: territory evaluation, the alpha-beta engine, the filling-phase counts.

Small boards and late positions, so plain minimax and exhaustive fill searches stay affordable.
"""

from __future__ import annotations

import numpy as np
import pytest

from amazons_env import Board, Move, core

from agents import make
from agents.evaluation import territory_mailbox as territory
from agents.evaluation.evaluator import make_evaluator
from agents.options import OptionError
from agents.search import endgame
from agents.search import uct_tree as T
from agents.search.alphabeta.agent import batch_search
from agents.search.alphabeta.batched import batched_alphabeta
from agents.search.move_order import WIN
from agents.search.zobrist import position_key, zobrist_table

from tests.helpers.evaluators import BatchOnly
from tests.helpers.positions import minimax, random_position

# -- territory ----------------------------------------------------------------------------------


def slow_distances(board: Board, side: int, queen: bool) -> dict[int, int]:
    """Queen/king distances from ``side``'s amazons over empty public squares, by plain BFS."""
    n = board.size
    steps = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)]
    frontier = [s for s in range(n * n) if board.piece_at(s) == ("Q" if side == 0 else "q")]
    dist = {s: 0 for s in frontier}
    d = 0
    while frontier:
        d += 1
        nxt = []
        for s in frontier:
            for dr, df in steps:
                r, f = divmod(s, n)
                while True:
                    r, f = r + dr, f + df
                    t = r * n + f
                    if not (0 <= r < n and 0 <= f < n) or board.piece_at(t) is not None:
                        break
                    if t not in dist:
                        dist[t] = d
                        nxt.append(t)
                    if not queen:
                        break
        frontier = nxt
    return dist


@pytest.mark.parametrize("seed", range(4))
def test_distance_maps_match_plain_bfs(seed):
    board = random_position(seed, size=8, max_moves=400)
    maps = territory.distance_maps(board.cells, board.queens, board.queen_counts, board.dirs)
    to_padded = core.padded_index(8)
    for row, (side, queen) in enumerate([(0, True), (1, True), (0, False), (1, False)]):
        slow = slow_distances(board, side, queen)
        for s in range(64):
            if board.piece_at(s) is None:
                assert maps[row, to_padded[s]] == slow.get(s, territory.FAR), (row, s)


def test_territory_features_and_sign():
    # White owns the left column region, Black the right: t1 counts it, w = 0 (separated)
    board = Board.from_text("Q1*3/**4/6/******/3*1q/6 w")
    f = territory.features(board.cells, board.queens, board.queen_counts, 0, board.dirs, 0.1)
    assert f[territory.T1] == 14 - 10 and f[territory.W] == 0
    evaluator = make_evaluator("territory")
    white = evaluator.evaluate(board)
    black = evaluator.evaluate(Board.from_text("Q1*3/**4/6/******/3*1q/6 b"))
    assert white > 0 and black < 0 and white == pytest.approx(-black)
    with pytest.raises(ValueError, match="kappa"):
        make_evaluator("territory:kappa=0.5")


# -- alpha-beta ---------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_alphabeta_equals_minimax_on_small_positions(seed, depth):
    board = random_position(seed, size=5, max_moves=12)
    evaluator = make_evaluator("territory")
    expected = minimax(board, depth, evaluator, loss=-WIN)
    agent = make(f"alphabeta:depth={depth},k=0,kq=0,endgame=0,prove=0")
    result = agent.search(board)
    assert result.value == pytest.approx(expected, abs=1e-6)
    board.push(result.move)  # the move reaches that value
    assert -minimax(board, depth - 1, evaluator, loss=-WIN) == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize("seed", range(4))
def test_transposition_table_keeps_fixed_depth_values(seed):
    board = random_position(seed, size=6, max_moves=60)
    with_tt = make("alphabeta:depth=3,k=0,kq=0,endgame=0,prove=0,tt=true").search(board)
    without = make("alphabeta:depth=3,k=0,kq=0,endgame=0,prove=0,tt=false").search(board)
    assert with_tt.value == pytest.approx(without.value, abs=1e-9)
    assert with_tt.nodes <= without.nodes


def test_zobrist_key_is_incremental():
    board = random_position(3, size=6, max_moves=200)
    zob = zobrist_table(8)
    key = position_key(board.cells, int(board.turn), zob)
    move = board.legal_moves()[7]
    p = core.padded_index(6)
    piece = int(board.turn) + 1
    board.push(move)
    expected = position_key(board.cells, int(board.turn), zob)
    assert (
        key
        ^ zob[piece, p[move.from_square]]
        ^ zob[piece, p[move.to_square]]
        ^ zob[core.ARROW, p[move.arrow]]
        ^ zob[0, 0]
        == expected
    )


def test_alphabeta_timed_search_leaves_board_and_plays_legal():
    board = random_position(11, size=8, max_moves=1000)
    before = board.text()
    agent = make("alphabeta:time=0.2")
    result = agent.search(board)
    assert board.text() == before and board.is_legal(result.move) and result.depth >= 1


class CountingBatches(BatchOnly):
    """``BatchOnly`` that records the size of each batch it is given."""

    def __init__(self) -> None:
        super().__init__()
        self.sizes: list[int] = []

    def evaluate_batch(self, cells, sides):
        self.sizes.append(len(cells))
        return super().evaluate_batch(cells, sides)


def test_batch_path_matches_kernel_path():
    board = random_position(2, size=5, max_moves=14)
    for depth in (1, 2):
        kernel = make(f"alphabeta:depth={depth},k=0,kq=0,endgame=0,prove=0").search(board)
        batch = make(f"alphabeta:depth={depth},k=0,endgame=0,prove=0", eval=BatchOnly()).search(board)
        assert batch.value == pytest.approx(kernel.value, abs=1e-9)


def test_prefilter_shortlists_the_batch_evaluator():
    board = random_position(2, size=5, max_moves=14)
    for depth in (1, 2):  # a shortlist of every move (kq=0) changes nothing
        kernel = make(f"alphabeta:depth={depth},k=0,kq=0,endgame=0,prove=0").search(board)
        full = make(
            f"alphabeta:depth={depth},k=0,kq=0,endgame=0,prove=0,prefilter=basic,shortlist=100000", eval=BatchOnly()
        ).search(board)
        assert full.value == pytest.approx(kernel.value, abs=1e-9)

    board = Board(8)
    evaluator = CountingBatches()
    result = make("alphabeta:depth=2,k=3,prefilter=basic,shortlist=5", eval=evaluator).search(board)
    assert board.is_legal(result.move) and evaluator.sizes and max(evaluator.sizes) == 5
    assert len(evaluator.sizes) == 1 + 3  # the root and its 3 best children
    shortlist = batch_search(board, 1, make_evaluator("basic"), prefilter=make_evaluator("basic"), shortlist=5)
    assert shortlist[2] == 5
    with pytest.raises(ValueError, match="prefilter"):
        make("alphabeta:prefilter=basic")  # the territory kernel needs no shortlist
    with pytest.raises(ValueError, match="prefilter"):
        make("alphabeta:prefilter=value-net", eval=BatchOnly())
    with pytest.raises(ValueError, match="shortlist"):
        make("alphabeta:prefilter=basic,shortlist=0", eval=BatchOnly())


@pytest.mark.parametrize("seed", range(4))
def test_batched_search_orders_without_changing_the_value(seed):
    """Scoring and ordering the children (k=0: all searched) is still exact alpha-beta: the value
    equals plain minimax and the unordered search's; a spent budget returns no move."""
    board = random_position(seed, size=6, max_moves=30)
    evaluator = BatchOnly()
    expected = minimax(board, 2, evaluator, loss=-WIN)
    ordered = batched_alphabeta(board, 2, evaluator, win=WIN)
    plain = batched_alphabeta(board, 2, evaluator, ordered=False, win=WIN)
    assert ordered.value == pytest.approx(expected) and plain.value == pytest.approx(expected)
    assert board.is_legal(ordered.move) and ordered.evals >= plain.evals
    assert batched_alphabeta(board, 2, evaluator, node_limit=3).move is None
    assert batched_alphabeta(board, 2, evaluator, deadline=0.0).move is None


# -- the filling phase --------------------------------------------------------------------------


def slow_fill(board: Board, side: int) -> int:
    """Longest sequence of moves ``side`` can make alone (the opponent passes): exhaustive."""
    if board.turn != side:
        board = Board.from_squares(board.size, *board.layout(), turn=side)
    best = 0
    for move in board.legal_moves():
        board.push_unchecked(move)
        board._turn ^= 1  # the opponent passes: separated positions only
        best = max(best, 1 + slow_fill(board, side))
        board._turn ^= 1
        board.pop()
    return best


def separated_position(seed: int, size: int = 6) -> Board:
    """Random play until the filling phase (the amazons of the two sides are separated)."""
    rng = np.random.default_rng(seed)
    board = Board(size)
    while not endgame.analyse(board).separated:
        if board.is_game_over():  # ended with amazons of both sides touching: start again
            return separated_position(seed + 1000, size)
        moves = board.legal_moves_array()
        from_square, to_square, arrow = moves[rng.integers(len(moves))].tolist()
        board.push(Move(from_square, to_square, arrow, size))
    return board


# a hand-made defect: White's queen on b6 reaches a5 and c5 only diagonally; after either move its
# arrow must go back to b6 (the only square it sees), so the other square is lost
DEFECT = "*Q**1q/1*1***/******/6/6/6 w"
SEPARATED = [DEFECT] + [separated_position(seed).text() for seed in range(6)]


@pytest.mark.parametrize("text", SEPARATED)
def test_fill_counts_equal_exhaustive_search(text):
    board = Board.from_text(text)
    result = endgame.analyse(board)
    assert result.separated and result.exact
    for side in (0, 1):
        if result.upper[side] <= 7:  # exhaustive search affordable
            assert result.lower[side] == slow_fill(Board.from_squares(board.size, *board.layout(), turn=side), side)
    if text == DEFECT:
        assert result.lower == (1, 1) and result.outcome() == -1


def test_not_separated_is_reported():
    assert not endgame.analyse(Board(6)).separated
    # from an arena game: Black's d5 queen touches White's c4 and c6 queens; once c4 moves, d5
    # walks into White's area, so this is not a filling phase yet (it was once miscounted as one)
    board = Board.from_text("2**1q*3/**1*1**1*1/1*1*1**3/**1**1***q/1*Q*2q***/***q4*Q/1*Q*******/4*2*Q*/4*1*3/7*2 b")
    assert not endgame.analyse(board).separated


def play(board: Board, white, black, max_plies: int = 200) -> int:
    """Play to the end; the winner's colour."""
    players = (white, black)
    for _ in range(max_plies):
        if board.is_game_over():
            return 1 - int(board.turn)
        board.push(players[int(board.turn)].select_move(board))
    raise AssertionError("game did not end")


@pytest.mark.parametrize("text", SEPARATED)
@pytest.mark.parametrize("opponent", ["random", "alphabeta:depth=2"])
def test_never_loses_a_counted_win(text, opponent):
    board = Board.from_text(text)
    result = endgame.analyse(board)
    winner = int(board.turn) if result.outcome() == 1 else 1 - int(board.turn)
    engine = make("alphabeta:depth=2")
    other = make(opponent, seed=1)
    players = (engine, other) if winner == 0 else (other, engine)
    assert play(board.copy(), *players) == winner


# -- MCTS -----------------------------------------------------------------------------------------


def _most_visited_kid(ni: np.ndarray, x: int) -> int:
    """The most visited child of node ``x`` of a uct tree's arrays, -1 if it has none."""
    first, n = int(ni[x, T.FIRST]), int(ni[x, T.NKIDS])
    return -1 if first < 0 or n == 0 else first + int(np.argmax(ni[first : first + n, T.VISITS]))


def test_mcts_plays_legal_moves_and_reuses_its_tree():
    board = random_position(5, size=6, max_moves=300)
    agent = make("mcts:sims=40,k=6")
    before = board.text()
    result = agent.search(board)
    assert board.text() == before and board.is_legal(result.move) and result.simulations == 40
    assert agent._tree is not None
    ni, _, st = agent._tree
    child = _most_visited_kid(ni, int(st[T.ROOT]))
    grandchild = _most_visited_kid(ni, child)
    if grandchild < 0:
        pytest.skip("no grandchild expanded")
    public = core.public_index(6)
    for x in (child, grandchild):  # a move tree: each node is a whole move (padded squares)
        board.push(Move(*(int(public[ni[x, col]]) for col in (T.FROM, T.TO, T.ARROW)), 6))
    assert agent._reused_node(board) == grandchild
    kept = int(ni[grandchild, T.VISITS])
    agent.search(board)
    ni, _, st = agent._tree
    assert ni[int(st[T.ROOT]), T.VISITS] == kept + 40  # the next search grew the kept subtree


def test_mcts_visits_sum_to_simulations():
    agent = make("mcts:sims=25,reuse=false")
    assert agent.search(Board(6)).simulations == 25
    assert agent._tree is not None
    ni, _, st = agent._tree
    root = int(st[T.ROOT])
    first, n = int(ni[root, T.FIRST]), int(ni[root, T.NKIDS])
    assert ni[root, T.VISITS] == ni[first : first + n, T.VISITS].sum() == 25


def test_mcts_finds_an_immediate_win():
    # Black's queen on a6 has a5 as its only exit; White's arrow along the a5-e1 diagonal wins
    board = Board.from_text("q*4/1*4/*5/6/6/3Q2 w")
    assert not endgame.analyse(board).separated
    agent = make("mcts:sims=50,endgame=0")
    move = agent.select_move(board)
    board.push(move)
    assert board.is_game_over()


@pytest.mark.parametrize("text", SEPARATED[:4])
def test_mcts_never_loses_a_counted_win(text):
    board = Board.from_text(text)
    result = endgame.analyse(board)
    winner = int(board.turn) if result.outcome() == 1 else 1 - int(board.turn)
    engine, other = make("mcts:sims=20"), make("random", seed=2)
    players = (engine, other) if winner == 0 else (other, engine)
    assert play(board.copy(), *players) == winner


def test_mcts_refuses_an_evaluator_without_a_kernel():
    with pytest.raises(OptionError, match="eval=<BatchOnly 'batch-only'>: uct needs an evaluator with a numba kernel"):
        make("mcts", eval=BatchOnly())
