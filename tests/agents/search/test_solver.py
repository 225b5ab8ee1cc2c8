"""The proof search (agents.search.solver: df-pn, the depth-first search below it, or both) against
a brute-force minimax on tiny positions: values, proof moves, every root move's value, the moves
of sealed regions left out, node budgets, the 4x4 start (a second-player win), a stopped proof
saved and resumed, and the searches' proven-move shortcut."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from amazons_env import Board, core
from amazons_env.errors import InvalidArgumentError
from amazons_env.symmetry import transform_move

from agents.arena import opening_board
from agents.search.agent import PROVE_NODES, SearchAgent
from agents.search.result import SearchResult
from agents.search.solver import Solver
from agents.search.solver.bounds import FILL_BUDGET, new_regions, side_bounds
from agents.search.solver.depth_first import mobility_score
from agents.search.solver.proof_file import ProofFileError
from agents.search.solver.table import INF, new_table, probe, store
from agents.time.limit import Limit

from tests.helpers.positions import wins

# shared: the tables must stay right across positions. df-pn alone, depth-first alone, df-pn
# handing positions of at most 4 empty squares to the depth-first search, and that proving every
# position move by move after a 20-node search, replies on two threads in one table
SOLVERS = {
    "df-pn": Solver(16, depth_first=0),
    "depth-first": Solver(16, depth_first=30),
    "both": Solver(16, 4),
    "threads": Solver(16, 4, threads=2, quick=20),
}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([(4, 3), (4, 5), (5, 11), (5, 13)]), st.integers(0, 10**6), st.sampled_from(sorted(SOLVERS)))
def test_value_and_proof_move_match_brute_force(case, seed, solver):
    size, plies = case
    board = opening_board(size, plies, [seed])
    before = (board.text(), board.cells.copy(), board.queens.copy())
    proof = SOLVERS[solver].solve(board)
    assert proof.value == ("won" if wins(board.text()) else "lost")
    assert (board.text(), board.cells.tobytes(), board.queens.tobytes()) == (
        before[0],
        before[1].tobytes(),
        before[2].tobytes(),
    )
    if proof.value == "won":
        assert proof.move is not None and board.is_legal(proof.move)
        board.push(proof.move)
        assert not wins(board.text())
    else:
        assert proof.move is None


def _sealed(board: Board) -> bool:
    """Whether the side to move has an amazon in a sealed region counted exactly."""
    sealed, filling = np.full(12, -1), np.full(3, -1)
    cells, queens, turn = board.cells.copy(), board.queens.copy(), int(board.turn)
    side_bounds(
        cells, queens, board.queen_counts, turn, board.dirs, FILL_BUDGET, sealed, filling, new_regions(cells.size)
    )
    return bool(np.any(sealed >= 0))


@pytest.mark.parametrize("depth_first", [0, 30])
def test_leaving_out_the_moves_of_sealed_regions_never_changes_a_value(depth_first):
    """Positions where the side to move has an amazon in an exactly counted sealed region (whose
    moves but one the search leaves out): their values against brute force, with df-pn and with
    the depth-first search."""
    checked = 0
    for seed in range(400):
        board = opening_board(5, 10, [seed])
        if board.is_game_over() or not _sealed(board):
            continue
        assert (Solver(12, depth_first).solve(board).value == "won") == wins(board.text()), board.text()
        checked += 1
        if checked == 12:
            break
    assert checked == 12


def test_the_region_bounds_decide_only_what_brute_force_agrees_with():
    """Every late position the bounds decide (sealed regions against the room the opponent
    reaches, over its own amazons and never through ours), against brute force."""
    decided = 0
    for seed in range(300):
        board = opening_board(5, 11 + seed % 2, [seed])
        cells, queens, turn = board.cells.copy(), board.queens.copy(), int(board.turn)
        sealed, filling = np.full(12, -1), np.full(3, -1)
        outcome = side_bounds(
            cells, queens, board.queen_counts, turn, board.dirs, FILL_BUDGET, sealed, filling, new_regions(cells.size)
        )
        if outcome != 0:
            assert (outcome > 0) == wins(board.text()), board.text()
            decided += 1
    assert decided >= 20


@pytest.mark.parametrize("seed", range(3))
def test_every_root_move_classified_as_brute_force_does(seed):
    board = opening_board(4, 4, [seed])
    values = Solver(table_bits=12).classify(board)  # a small table: entries get overwritten
    assert [move for move, _ in values] == board.legal_moves()
    for move, value in values:
        board.push(move)
        assert value == ("lost" if wins(board.text()) else "won"), move
        board.pop()


def test_a_move_budget_gives_unknown_and_never_a_wrong_value():
    board = opening_board(5, 9, [4])
    values = Solver(table_bits=14).classify(board, limit=30)
    assert {value for _, value in values} >= {"unknown"}
    for move, value in values:
        if value != "unknown":
            board.push(move)
            assert value == ("lost" if wins(board.text()) else "won"), move
            board.pop()


def test_4x4_start_is_a_second_player_win():
    proof = Solver().solve(Board(size=4))
    assert (proof.value, proof.move) == ("lost", None)
    assert proof.nodes > 0 and proof.cpu_seconds >= 0


def test_a_node_budget_gives_unknown_and_a_later_search_finishes_right():
    board = opening_board(5, 9, [7])
    solver = Solver(table_bits=16)
    assert solver.solve(board, limit=3).value == "unknown"
    proof = solver.solve(board)
    assert proof.value == Solver(table_bits=16).solve(board).value != "unknown"


def test_a_finished_game_is_lost_for_the_side_to_move():
    board = Board.from_text("qQ*1/**2/4/4 b")
    assert Solver(table_bits=8).solve(board).value == "lost"


@pytest.mark.parametrize("bits", [7, 31, 3.5, True, "20"])
def test_bad_table_size_is_refused(bits):
    with pytest.raises(InvalidArgumentError, match="table_bits"):
        Solver(table_bits=bits)


@pytest.mark.parametrize(
    "options, name", [({"threads": 0}, "threads"), ({"threads": 1.5}, "threads"), ({"quick": 0}, "quick")]
)
def test_bad_options_are_refused(options, name):
    with pytest.raises(InvalidArgumentError, match=name):
        Solver(table_bits=8, **options)


def test_the_moves_tried_are_one_of_each_symmetric_set_opponent_shortest_of_moves_first():
    board = Board(size=5)  # the start maps to itself mirrored left-right, and no first move does
    moves = Solver(table_bits=8).candidates(board)
    assert len(moves) == len(set(moves)) == 130 and board == Board(size=5)
    images = set(moves) | {transform_move(move, 1) for move in moves}
    assert images == set(board.legal_moves())
    scores = []
    for move in moves:
        board.push(move)
        theirs = core.count_queen_moves(board.cells, board.queens, board.queen_counts, 1, board.dirs)
        ours = core.count_queen_moves(board.cells, board.queens, board.queen_counts, 0, board.dirs)
        scores.append(mobility_score(theirs, ours))
        board.pop()
    assert scores == sorted(scores) and scores[0] < scores[-1]


def test_a_helper_thread_that_fails_is_raised_never_taken_for_a_proof(monkeypatch):
    solver = Solver(16, 4, threads=2, quick=5)  # this position's replies are reached: 5,879 nodes alone
    run = solver._run

    def failing(board, *args, **kwargs):
        if threading.current_thread() is not threading.main_thread():
            raise RuntimeError("helper failed")
        return run(board, *args, **kwargs)

    monkeypatch.setattr(solver, "_run", failing)
    with pytest.raises(RuntimeError, match="helper failed"):
        solver.solve(opening_board(5, 5, [7]))


def test_a_torn_table_row_reads_as_absent():
    """Threads share the table without a lock: a row mixing two entries' words is no entry."""
    table = new_table(4, 4)
    first, second = np.uint64(16), np.uint64(32)  # the same bucket
    store(table, first, 0, INF, 5)  # won: numbers 0 | INF << 32
    store(table, second, INF, 0, 5)  # lost: numbers INF
    rows = {int(table.entries[s, 1]): s for s in range(2)}
    row, other = rows[INF << 32], rows[INF]
    table.entries[row, 1] = table.entries[other, 1]  # first's key word beside second's numbers
    assert not probe(table, first)[0] and probe(table, second) == (True, INF, 0)


@pytest.mark.parametrize("limit", [0, -5, 2.5])
def test_bad_limit_is_refused(limit):
    with pytest.raises(InvalidArgumentError, match="limit"):
        Solver(table_bits=8).solve(Board(size=4), limit=limit)


def test_a_stopped_proof_resumes_from_its_saved_table(tmp_path):
    board = opening_board(5, 8, [3])
    solver = Solver(table_bits=16)
    assert solver.solve(board, limit=50).value == "unknown"
    path = tmp_path / "proof.npz"
    solver.save(path, board)
    resumed = Solver(table_bits=8)
    resumed.resume(path, board)
    assert resumed.nodes == solver.nodes and resumed.table_bits == 16
    proof = resumed.solve(board)
    assert proof.value == Solver(table_bits=16).solve(board).value != "unknown"
    assert resumed.nodes == solver.nodes + proof.nodes


def test_a_damaged_or_foreign_proof_state_is_refused(tmp_path):
    board = opening_board(5, 8, [3])
    solver = Solver(table_bits=10)
    solver.solve(board, limit=20)
    path = tmp_path / "proof.npz"
    solver.save(path, board)
    with pytest.raises(ProofFileError, match="proves"):
        Solver(table_bits=10).resume(path, Board(5))
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(ProofFileError, match="proof.npz"):
        Solver(table_bits=10).resume(path, board)
    with pytest.raises(ProofFileError, match="does not exist"):
        Solver(table_bits=10).resume(tmp_path / "none.npz", board)


class FirstMove(SearchAgent):
    """The smallest search: the first legal move, counting its searches."""

    name = "first-move"
    LIMITS = ("nodes",)
    STATS = ("searched",)

    def _search(self, board, limit, deadline):
        return SearchResult(board.legal_moves()[0], 0.0, stats={"searched": 1, "stopped": "nodes"})


def test_every_search_plays_a_proven_win_at_once_unless_told_not_to():
    board = opening_board(5, 12, [11])
    while not wins(board.text()):  # a won position for the side to move
        board.push(board.legal_moves()[0])
    agent = FirstMove(Limit(nodes=1))
    result = agent.search(board)
    assert (result.stopped, result.value, result.stats["searched"]) == ("proven", agent.WIN_VALUE, 0)
    board.push(result.move)
    assert not wins(board.text())
    board.pop()
    agent.prove = 0
    assert agent.search(board).stats["searched"] == 1
    agent.prove = PROVE_NODES
    assert FirstMove(Limit(nodes=1)).search(Board(8)).stats["searched"] == 1  # too much left to fight over


def test_the_shortcut_is_an_option_of_the_engines():
    """``prove`` in a spec sets the budget (0: off) and is checked."""
    from agents.options import OptionError
    from agents.registry import make

    for spec in ("uct:sims=5", "alphabeta:depth=1", "mcts:sims=5"):
        assert make(spec).prove == PROVE_NODES
        assert make(f"{spec},prove=0").prove == 0
        with pytest.raises(OptionError, match="prove"):
            make(f"{spec},prove=-1")
    board = opening_board(5, 12, [11])
    while not wins(board.text()):
        board.push(board.legal_moves()[0])
    played = make("uct:sims=5,prove=0,seed=1").search(board)
    assert played.stopped != "proven"
