"""``agents.ui.hints``: an engine's advice for the side to move (move, value, visit shares) and its
text, on small boards so that every search is quick."""

from __future__ import annotations

import pytest

from amazons_env import Board, Color, Move
from amazons_env.errors import InvalidArgumentError

from agents import make
from agents.search.agent import GameOverError
from agents.time.limit import Limit
from agents.ui.hints import Hint, eval_table, hint, hint_line

#: White to move: c5-c4/c5 boxes the Black queen on b4 in; each of the other three moves lets
#: Black box White in at once
ONE_WIN = "******/**Q***/*q2**/*****1/******/*****1 w"


def opening() -> Board:
    board = Board(6)
    for move in ("b1-b4/b5", "b6-d6/d5"):
        board.push(move)
    return board


def test_a_uct_hint_is_legal_deterministic_bounded_with_sorted_shares_and_leaves_the_board_alone():
    board = opening()
    text, stack = board.text(), list(board.move_stack)
    first, again = (hint("uct:sims=200,seed=1", board) for _ in range(2))
    assert board.is_legal(first.move) and -1 <= first.value <= 1 and not first.proven
    assert (first.move, first.value, first.top) == (again.move, again.value, again.top)
    shares = [share for _, share in first.top]
    assert len(shares) == 5 and shares == sorted(shares, reverse=True) and 0 < sum(shares) <= 1 + 1e-6
    assert all(board.is_legal(move) for move, _ in first.top)
    assert first.seconds > 0
    assert board.text() == text and board.move_stack == stack


@pytest.mark.parametrize("spec", ["alphabeta:depth=2", "uct:sims=200,seed=1"])
def test_the_only_winning_move_is_the_hint(spec):
    board = Board.from_text(ONE_WIN)
    advice = hint(spec, board)
    assert advice.move == Move.parse("c5-c4/c5", 6) and advice.value == 1.0
    assert advice.proven == spec.startswith("alphabeta")  # alpha-beta's +2 is clipped and marked
    assert board.text() == ONE_WIN


def test_a_finished_game_is_refused_naming_the_position():
    board = Board.from_text("Q*q1/****/****/**** w")
    with pytest.raises(GameOverError, match=r"finished game: 'Q\*q1/\*\*\*\*/\*\*\*\*/\*\*\*\* w'"):
        hint("uct:sims=50", board)


def test_an_agent_is_used_as_given_within_the_limit_and_a_spec_builds_a_fresh_one():
    board, agent = opening(), make("uct:sims=200,seed=2")
    advice = hint(agent, board, Limit(simulations=60), top=3)
    assert agent.last_result.simulations == 60 and agent.last_result.move == advice.move
    assert len(advice.top) == 3
    opponent = make("uct:sims=200,seed=2")
    opponent.search(board)
    kept = opponent.last_result
    hint(opponent.spec, board)  # the opponent's spec, a separate instance
    assert opponent.last_result is kept


def test_searches_without_visit_shares_and_top_zero_give_no_top():
    board = opening()
    assert hint("alphabeta:depth=1", board).top == ()
    assert hint("uct:sims=50,seed=1", board, top=0).top == ()


@pytest.mark.parametrize(
    "call, named",
    [
        (lambda b: hint("uct:sims=50", b, top=-1), "top=-1"),
        (lambda b: hint("uct:sims=50", b, top=True), "top=True"),
        (lambda b: hint("uct:sims=50", b, top=2.5), "top=2.5"),  # type: ignore[arg-type]
        (lambda b: hint("uct:sims=50", b, limit=1.0), "limit"),  # type: ignore[arg-type]
        (lambda b: hint(3, b), "got 3"),  # type: ignore[arg-type]
        (lambda b: hint("uct:sims=50", "6x6"), "got '6x6'"),  # type: ignore[arg-type]
        (lambda b: hint("random", b), "'random' does not search"),
    ],
)
def test_bad_input_is_refused_naming_it(call, named):
    board = opening()
    with pytest.raises(InvalidArgumentError, match=named):
        call(board)
    assert board.ply == 2


def test_the_text_is_in_the_notation_users_type():
    move, other = Move.parse("c5-c4/c5", 6), Move.parse("c5-d4/c4", 6)
    assert hint_line(Hint(move, -1.0, (), 0.25, proven=True), Color.BLACK) == (
        "hint: c5-c4/c5 (value -1.00 for Black, a proven loss, 0.2 s)"
    )
    assert eval_table(Hint(move, 0.0, (), 2.0), Color.WHITE) == "eval: value +0.00 for White, best c5-c4/c5 (2.0 s)"
    lines = eval_table(Hint(move, 0.5, ((move, 0.875), (other, 0.125)), 1.0), Color.WHITE).splitlines()
    assert lines[1:] == ["  move      visits", "  c5-c4/c5   87.5%  best", "  c5-d4/c4   12.5%"]
