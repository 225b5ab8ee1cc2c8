"""Hostile inputs for the property tests of ``amazons_env``'s parsers, loaders and constructors: the
hypothesis settings and strategies (odd values, mutated valid texts), the documented errors, and the
check that a refusal names its input. ``fuzz/fuzz.py`` runs the same kind of inputs by the tens of
thousands."""

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from amazons_env import Board, Color, GameRecord
from amazons_env.errors import (
    IllegalMoveError,
    InvalidArgumentError,
    InvalidMoveError,
    InvalidPositionError,
    UnreadableFileError,
    describe,
)

from agents.arena import opening_board

HOSTILE = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
DOCUMENTED = (InvalidMoveError, IllegalMoveError, InvalidPositionError, InvalidArgumentError, UnreadableFileError)
ODD = ["٣", "²", "\u212a", "ａ", "１", "\x00", "\u00a0", "\ufeff", "9" * 5000, "\\", "]", "(", ";", "\n", " " * 300]

values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(-3, 150),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.binary(max_size=4),
    st.lists(st.integers(-2, 40), max_size=3),
    st.sampled_from(
        [
            10**5000,
            -(10**5000),
            np.int64(3),
            np.float64(2.0),
            np.array([0, 1]),
            np.array(5),
            Color.BLACK,
            complex(1, 1),
            "10",
            "٨",
            "²",
            object(),
        ]
    ),
)
sizes = st.one_of(st.sampled_from([4, 6, 8, 10, 12]), values)


def mutated(seeds: list[str], alphabet: str) -> st.SearchStrategy[str]:
    """Valid texts with a few edits: inserted characters (odd ones too), cuts, repeats."""
    pieces = st.one_of(st.sampled_from(list(alphabet)), st.sampled_from(ODD))

    @st.composite
    def build(draw):
        text = draw(st.sampled_from(seeds))
        for _ in range(draw(st.integers(1, 4))):
            i = draw(st.integers(0, len(text)))
            j = draw(st.integers(i, min(len(text), i + 6)))
            op = draw(st.integers(0, 3))
            if op == 0:
                text = text[:i] + draw(pieces) + text[i:]
            elif op == 1:
                text = text[:i] + text[j:]
            elif op == 2:
                text = text[:i] + text[i:j] * draw(st.sampled_from([2, 30])) + text[j:]
            else:
                text = text[:i]
        return text

    return st.one_of(build(), st.text(max_size=30))


def names(message: str, *inputs) -> bool:
    """The message names one of the inputs: its short description (as ``describe`` writes it) or,
    for text, its first characters."""
    lowered = message.lower()
    for value in inputs:
        fragments = [describe(value)[:20]]
        if isinstance(value, str):
            fragments.append(value.strip()[:12] or "''")
        if any(f.lower() in lowered for f in fragments):
            return True
    return False


def attempt(call, *inputs):
    """``call()``'s result, or ``None`` after a documented refusal that names one of ``inputs``."""
    try:
        return call()
    except DOCUMENTED as error:
        assert names(str(error), *inputs), f"{type(error).__name__} does not name the input: {error}"
        return None


def state(board: Board):
    return board.text(), board.cells.tobytes(), board.queens.tobytes(), board.queen_counts.tobytes(), board.move_stack


BOARDS = [
    opening_board(size, plies, [seed])  # random play from the start
    for seed, (size, plies) in enumerate([(4, 3), (6, 0), (6, 9), (8, 20), (10, 5), (12, 2), (6, 30)])
]
MOVE_SEEDS = ["d1-d7/g7", "d1d7,d7g7", "j10 x j9 / j8", "a1-a2(a3)", "l12-l1/a1"] + [
    str(m) for b in BOARDS for m in b.move_stack[:3]
]
POSITION_SEEDS = [b.text() for b in BOARDS]
RECORDS = [GameRecord.from_board(b) for b in BOARDS]
