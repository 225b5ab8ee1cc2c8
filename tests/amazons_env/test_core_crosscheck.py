"""Move lists against independent implementations: OpenSpiel (`pyspiel`) and Fairy-Stockfish (`pyffish`).

OpenSpiel cannot set up a position, so each game is replayed in both: a move is three actions
(queen cell, destination cell, arrow cell), cell = row * N + col with row 0 the top rank. Its full
move list is enumerated through the three phases. pyffish takes our position text plus
``" - - 0 1"`` as a FEN and writes moves as ``d1d6,d6g9``; its `amazons` variant is 10x10, and
other sizes are loaded as variants of it (``maxFile``/``maxRank``/``startFen``).
Every position of a few random games is compared (a few hundred positions per library).
Skipped when the library is not installed.
"""

import random

import pytest

from amazons_env import Board, Move
from amazons_env.openspiel import legal_moves_of_state, move_to_actions


def random_game(size, seed):
    """The moves of one random game played to the end."""
    rng = random.Random(seed * 1000 + size)
    board = Board(size)
    while not board.is_game_over():
        board.push(rng.choice(board.legal_moves()))
    return board.move_stack


@pytest.mark.parametrize(("size", "games"), [(6, 8), (8, 4), (10, 3)])
def test_move_lists_match_openspiel(size, games):
    pyspiel = pytest.importorskip("pyspiel")
    game = pyspiel.load_game("amazons", {"board_size": size})
    positions = 0
    for seed in range(games):
        board, state = Board(size), game.new_initial_state()
        for move in random_game(size, seed) + [None]:
            ours, theirs = board.legal_moves(), legal_moves_of_state(state)
            assert len(theirs) == len(set(theirs))
            assert set(ours) == set(theirs) and len(ours) == len(theirs), board.text()
            assert state.is_terminal() == board.is_game_over()
            positions += 1
            if move is None:
                winner = int(board.winner)  # OpenSpiel: the side that cannot move loses
                assert state.returns()[winner] == 1.0 and state.returns()[1 - winner] == -1.0
                break
            assert state.current_player() == int(board.turn)
            for action in move_to_actions(move):
                state.apply_action(action)
            board.push(move)
    assert positions >= 100


def pyffish_variant(pyffish, size):
    """The name of Fairy-Stockfish's amazons variant for ``size`` (loaded once per process)."""
    if size == 10:
        return "amazons"
    name = f"amazons{size}"
    if name not in pyffish.variants():
        fen = Board(size).text() + " - - 0 1"
        pyffish.load_variant_config(
            f"[{name}:amazons]\nmaxRank = {size}\nmaxFile = {'abcdefghijkl'[size - 1]}\nstartFen = {fen}\n"
        )
    return name


@pytest.mark.parametrize(("size", "games"), [(10, 4), (4, 6), (5, 6), (7, 3), (9, 2)])
def test_move_lists_match_pyffish(size, games):
    pyffish = pytest.importorskip("pyffish")
    variant = pyffish_variant(pyffish, size)
    positions = 0
    for seed in range(games):
        board = Board(size)
        for move in random_game(size, seed) + [None]:
            fen = board.text() + " - - 0 1"
            theirs = pyffish.legal_moves(variant, fen, [])
            assert len(theirs) == len(set(theirs))
            assert {m.fsf() for m in board.legal_moves()} == set(theirs), fen
            if positions % 10 == 0:  # their notation read back (slow, so not everywhere)
                assert {Move.parse(m, size) for m in theirs} == set(board.legal_moves())
            positions += 1
            if move is None:
                break
            board.push(move)
    assert positions >= 40


def test_pyffish_replays_our_moves_from_the_start():
    """pyffish applying our move list (its own move-by-move state) reaches our final position."""
    pyffish = pytest.importorskip("pyffish")
    start = Board(10).text() + " - - 0 1"
    moves = random_game(10, 99)
    board = Board(10)
    for move in moves[:40]:
        board.push(move)
    fen = pyffish.get_fen("amazons", start, [m.fsf() for m in moves[:40]])
    assert fen.split()[:2] == board.text().split()
