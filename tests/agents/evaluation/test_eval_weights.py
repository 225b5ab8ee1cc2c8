"""The territory evaluation's weight sets (``agents.evaluation.territory_weights``, the ``weights``
option, ``params_for``): the phase-dependent scale in both kernels, the parameter files checked on
reading, the shipped defaults, and the set a search uses on each board size."""

from __future__ import annotations

import json

import numpy as np
import pytest

from amazons_env import Board, Move, core
from amazons_env.files import seal

from agents.evaluation.evaluator import make_evaluator
from agents.evaluation.territory import Territory
from agents.evaluation.territory_bitboard import territory_bb_kernel
from agents.evaluation.territory_mailbox import PARAM_NAMES, W, features, territory_kernel
from agents.evaluation.territory_weights import (
    STUDY,
    WEIGHTS_FOLDER,
    WeightsFileError,
    as_array,
    packaged_weights,
    read_weights,
    weights_path,
    write_weights,
)
from agents.options import OptionError

SIZES = range(core.MIN_SIZE, core.MAX_SIZE + 1)


def _positions(size: int, seed: int, games: int = 2) -> list[Board]:
    """Every position of ``games`` seeded random games (both sides to move, open to filled)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(games):
        board = Board(size)
        while True:
            out.append(board.copy(stack=False))
            moves = board.legal_moves_array()
            if len(moves) == 0:
                break
            frm, to, arrow = (int(x) for x in moves[rng.integers(len(moves))])
            board.push(Move(frm, to, arrow, size))
    return out


def _kernel_args(board: Board, params: np.ndarray) -> tuple:
    return board.cells, board.queens, board.queen_counts, int(board.turn), board.dirs, params


@pytest.mark.parametrize("size", SIZES)
def test_both_kernels_agree_with_a_phase_dependent_scale(size):
    rng = np.random.default_rng(size)
    for board in _positions(size, size):
        params = as_array(dict(STUDY, scale_phase=float(rng.uniform(-10, 10)), scale=float(rng.uniform(0.01, 1))))
        args = _kernel_args(board, params)
        assert abs(territory_kernel(*args) - territory_bb_kernel(*args)) <= 1e-12, board.text()


@pytest.mark.parametrize("kernel", [territory_kernel, territory_bb_kernel])
def test_scale_phase_zero_is_the_study_evaluation_bit_for_bit(kernel):
    # the seven weights of before scale_phase existed, and the study set with scale_phase = 0
    seven = np.array([STUDY[name] for name in PARAM_NAMES[:7]])
    for board in _positions(8, 3, games=1) + _positions(10, 4, games=1):
        assert kernel(*_kernel_args(board, seven)) == kernel(*_kernel_args(board, as_array(STUDY)))


def test_scale_phase_divides_the_tanh_input_by_exp_of_it_times_the_phase():
    sharp = as_array(dict(STUDY, scale_phase=-2.0))
    board = Board(8)
    board.push(board.legal_moves()[40])
    w = features(board.cells, board.queens, board.queen_counts, int(board.turn), board.dirs, 0.1)[W]
    s = min(1.0, np.sqrt(w / 64))
    x_study = np.arctanh(territory_kernel(*_kernel_args(board, as_array(STUDY))))
    x_sharp = np.arctanh(territory_kernel(*_kernel_args(board, sharp)))
    assert 0 < s < 1 and x_sharp == pytest.approx(x_study * np.exp(2.0 * s), rel=1e-9)
    separated = Board.from_text("Q1*3/**4/6/******/3*1q/6 w")  # s = 0: the scale is scale itself
    assert territory_kernel(*_kernel_args(separated, sharp)) == territory_kernel(
        *_kernel_args(separated, as_array(STUDY))
    )


def test_weights_option_study_default_and_overrides():
    study = make_evaluator("territory:weights=study")
    assert np.array_equal(study.params, as_array(STUDY))
    for size in SIZES:
        assert np.array_equal(study.params_for(size), as_array(STUDY))
    default = make_evaluator("territory")
    for size in SIZES:
        shipped = packaged_weights(size)
        expected = as_array(STUDY) if shipped is None else shipped
        assert np.array_equal(default.params_for(size), expected), size
    mob = PARAM_NAMES.index("mob")
    tuned = make_evaluator("territory:mob=3.5")
    assert all(tuned.params_for(size)[mob] == 3.5 for size in SIZES)
    assert tuned.params[mob] == 3.5 and default.params[mob] == STUDY["mob"]


def test_unknown_named_set_or_bad_path_is_refused_naming_it(tmp_path):
    with pytest.raises(WeightsFileError, match="nowhere.json"):
        make_evaluator(f"territory:weights={tmp_path}/nowhere.json")
    with pytest.raises(OptionError, match="weights"):
        Territory(weights="")
    with pytest.raises(OptionError, match="scale_phase"):
        Territory(scale_phase=11.0)
    with pytest.raises(OptionError, match="a1"):
        Territory(a1=float("nan"))


def _file(tmp_path, size: int = 6, **changes) -> str:
    path = str(tmp_path / f"territory-{size}x{size}.json")
    write_weights(path, size, dict(STUDY, **changes), data_hash="00" * 8, fit={"positions": 1})
    return path


def test_a_parameter_file_applies_on_its_own_size_only(tmp_path):
    path = _file(tmp_path, 6, mob=2.0, scale_phase=1.5)
    evaluator = make_evaluator("territory", weights=path)
    assert np.array_equal(evaluator.params_for(6), as_array(dict(STUDY, mob=2.0, scale_phase=1.5)))
    assert np.array_equal(evaluator.params_for(8), make_evaluator("territory").params_for(8))
    board = Board(6)
    board.push(board.legal_moves()[17])
    expected = territory_bb_kernel(*_kernel_args(board, evaluator.params_for(6)))
    assert evaluator.evaluate(board) == expected  # evaluate() takes the board's own set
    assert evaluator.evaluate_batch(board.cells[None, :], np.array([int(board.turn)]))[0] == pytest.approx(expected)
    assert evaluator.evaluate(board) != make_evaluator("territory:weights=study").evaluate(board)


@pytest.mark.parametrize(
    "edit, words",
    [
        (lambda d: d.update(size=5), "was edited"),
        (lambda d: d.pop("fit"), "lacks .fit."),
        (lambda d: d.update(extra=1), "expected the keys"),
        (lambda d: d.update(format_version=9), "format_version 9"),
    ],
)
def test_an_edited_or_malformed_file_is_refused(tmp_path, edit, words):
    path = _file(tmp_path)
    document = json.loads(open(path).read())
    edit(document)
    with open(path, "w") as handle:
        json.dump(document, handle)
    with pytest.raises(WeightsFileError, match=words):
        read_weights(path)


@pytest.mark.parametrize(
    "params, words",
    [
        (dict(STUDY, kappa=0.5), "kappa=0.5"),
        (dict(STUDY, a1=2), "a1=2"),
        ({k: v for k, v in STUDY.items() if k != "mob"}, "exactly"),
        (dict(STUDY, mob="ten"), "mob='ten'"),
    ],
)
def test_a_sealed_file_with_a_weight_out_of_range_is_refused(tmp_path, params, words):
    # sealed (its hash matches) but written by other code: the weights are checked all the same
    path = tmp_path / "w.json"
    document = {"format_version": 1, "evaluator": "territory", "size": 6, "params": params, "data_hash": "x", "fit": {}}
    path.write_text(json.dumps(seal(document)))
    with pytest.raises(WeightsFileError, match=words):
        read_weights(path)


def test_shipped_sets_are_sealed_and_named_for_their_size():
    for path in sorted(WEIGHTS_FOLDER.glob("*.json")):
        size, params = read_weights(path)
        assert path == weights_path(size) and np.array_equal(packaged_weights(size), params)
        assert json.loads(path.read_text())["data_hash"]  # the labelled data it was fitted to


def test_uct_searches_with_the_set_of_its_board_size():
    import agents

    class Recording(Territory):
        def __init__(self) -> None:
            super().__init__()
            self.sizes: list[int] = []

        def params_for(self, size: int) -> np.ndarray:
            self.sizes.append(size)
            return super().params_for(size)

    evaluator = Recording()
    agent = agents.make("uct:sims=30,seed=1", eval=evaluator)
    agent.search(Board(6))
    assert set(evaluator.sizes) == {6}
