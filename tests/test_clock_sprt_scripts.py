"""The clock, tuning and net agreement scripts (``benchmarks/search/clock.py``,
``benchmarks/strength/sprt.py``, ``benchmarks/strength/net_agreement.py``): what they record, at fixed
depths on small boards. No timing is asserted (the machine is shared)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tests.helpers.scripts import load_script

clock = load_script("benchmarks/search/clock.py")
sprt = load_script("benchmarks/strength/sprt.py")
net_agreement = load_script("benchmarks/strength/net_agreement.py")


def test_queued_seconds_is_a_count_or_unknown():
    queued = clock.queued_seconds()
    assert queued is None or (queued >= 0 and math.isfinite(queued))


def test_against_times_only_the_agents_moves(monkeypatch):
    timed = []
    original = clock.timed_move

    def spy(agent, board):
        timed.append((agent.spec, int(board.turn)))
        return original(agent, board)

    monkeypatch.setattr(clock, "timed_move", spy)
    result = clock.play("alphabeta:depth=1", 6, 2, seed=3, against="random")
    timed = timed[2:]  # the two warm-up moves
    assert len(result["seconds"]) == len(result["queued"]) == len(timed) > 0
    assert {spec for spec, _ in timed} == {"alphabeta:depth=1,seed=3"}
    assert {turn for _, turn in timed} == {0, 1}  # White in one game, Black in the other
    assert len(result["kinds"]) == len(timed) and set(result["kinds"]) <= set(clock.KINDS)
    row = clock.row(result, 1.0)
    assert row.startswith("| alphabeta:depth=1 | 6x6 | 1 |") and row.count("|") == 19


def test_moves_are_counted_by_how_their_search_stopped():
    from amazons_env import Move

    from agents.search.result import SearchResult

    def result(value, **stats):
        return SearchResult(Move.parse("a1-a2/a3", 6), value, stats=stats)

    assert clock.kind_of(result(0.3, stopped="time_max"), separated=True) == "open"  # the search says
    assert clock.kind_of(result(0.3, stopped="settled"), separated=False) == "settled"
    assert clock.kind_of(result(2.0), separated=False) == "proven"  # no stat: the value says
    assert clock.kind_of(result(0.3), separated=True) == "decided"  # or the position
    assert clock.kind_of(None, separated=False) == "open"


def test_games_on_a_clock_report_the_time_used_and_no_loss_on_time():
    from agents.time.control import TimeControl

    result = clock.play_on_clock("alphabeta:depth=1", 6, 2, seed=1, tc=TimeControl(30.0, 0.1), against="random")
    assert result["lost_on_time"] == 0 and len(result["seconds"]) == len(result["kinds"]) > 0
    assert 0 < result["used"] < result["given"]
    row = clock.clock_row(result)
    assert row.startswith("| alphabeta:depth=1 | 6x6 | 0.5+0.1 | 2 |") and row.endswith("| 0 | PASS |")


def test_sprt_statistics():
    assert sprt.llr(0, 0, 0.0, 50.0) == 0.0
    assert sprt.llr(30, 10, 0.0, 50.0) > 0 > sprt.llr(10, 30, 0.0, 50.0)
    low, high = sprt.bounds(0.05, 0.05)
    assert low == -high
    assert sprt.expected_score(0.0) == 0.5 and sprt.expected_score(400.0) == pytest.approx(10 / 11)
    assert sprt.sprt_path("a/x.json") == "a/x.sprt.json"


@pytest.mark.parametrize(
    "kwargs", [{"alpha": 0.0}, {"beta": 0.5}, {"elo0": 10.0, "elo1": 10.0}, {"chunk": 3}, {"games": 0}]
)
def test_sprt_refuses_bad_settings(kwargs):
    with pytest.raises(ValueError):
        sprt.SprtSettings(**kwargs)


def test_fixed_game_count_writes_its_verdict(tmp_path):
    path = str(tmp_path / "t.json")
    settings = sprt.SprtSettings(games=2, chunk=2)
    result = sprt.sprt("alphabeta:depth=1", "random", settings, size=6, workers=1, json_path=path, progress=False)
    assert result["games"] == 2 and result["a_wins"] + result["b_wins"] == 2
    record = json.loads(Path(sprt.sprt_path(path)).read_text())
    assert record["sprt"]["verdict"] == "fixed" and record["sprt"]["games"] == 2
    assert record["summary"]["a_wins"] == result["a_wins"]


def test_the_command_line_takes_the_settings_and_the_arena_options(tmp_path, capsys):
    path = str(tmp_path / "c.json")
    argv = ["alphabeta:depth=1", "random", "--games", "2", "--chunk", "2", "--size", "6", "--workers", "1"]
    assert sprt.main([*argv, "--quiet", "--json", path]) == 0
    assert "-> fixed" in capsys.readouterr().out
    assert json.loads(Path(sprt.sprt_path(path)).read_text())["sprt"]["games"] == 2
    with pytest.raises(SystemExit):
        sprt.main(["--help"])
    assert "--games GAMES         no test: play exactly this many games\n" in capsys.readouterr().out


def test_net_agreement_scores_the_nets_own_choices_and_refuses_an_illegal_move(tmp_path):
    """Played moves that are the net's most probable ones agree (whole moves; queen moves by their
    summed probability) and cost their log-probabilities; its least probable ones do not agree; a
    move not legal there is refused, naming the position."""
    torch = pytest.importorskip("torch")
    import numpy as np

    from amazons_env import Board

    from agents.nets.export import load_model, save_model
    from agents.nets.models import PolicyValueNet
    from agents.nets.planes import make_planes
    from agents.nets.policy_value import legal_moves_batch, move_log_probs

    torch.manual_seed(0)
    path = str(save_model(PolicyValueNet(channels=8, blocks=1), tmp_path / "pv", board_size=6))
    rng, board, cells, sides = np.random.default_rng(0), Board(6), [], []
    for _ in range(6):
        cells.append(board.cells.copy())
        sides.append(int(board.turn))
        moves = board.legal_moves()
        board.push(moves[int(rng.integers(len(moves)))])
    cells_a, sides_a = np.array(cells), np.array(sides, np.int64)
    rows, moves = legal_moves_batch(cells_a, sides_a, 6)
    model = load_model(path)[0]
    with torch.no_grad():
        _, slide, arrow = model(torch.from_numpy(make_planes(cells_a, sides_a, "relative")))
        logp = move_log_probs(slide, arrow, rows, moves, 6).numpy()
    best = np.array([moves[rows == k][np.argmax(logp[rows == k])] for k in range(len(sides))])
    worst = np.array([moves[rows == k][np.argmin(logp[rows == k])] for k in range(len(sides))])
    top = net_agreement.agreement(path, cells_a, sides_a, best, 6)
    assert top["positions"] == 6 and top["move"] == 1.0
    # the queen move: the slide of most probability summed over its arrows (not the best move's slide)
    slides = []
    for k in range(6):
        mass: dict[tuple[int, int], float] = {}
        for (f, t, _), lp in zip(moves[rows == k], logp[rows == k]):
            mass[int(f), int(t)] = mass.get((int(f), int(t)), 0.0) + float(np.exp(lp))
        f, t = max(mass, key=mass.__getitem__)
        slides.append(next(m for m in moves[rows == k] if (m[0], m[1]) == (f, t)))
    assert net_agreement.agreement(path, cells_a, sides_a, np.array(slides), 6)["slide"] == 1.0
    assert top["nll"] == pytest.approx(-np.mean([logp[rows == k].max() for k in range(6)]), rel=1e-5)
    assert top["uniform_nll"] == pytest.approx(np.mean([np.log((rows == k).sum()) for k in range(6)]))
    assert net_agreement.agreement(path, cells_a, sides_a, worst, 6)["move"] == 0.0
    illegal = best.copy()
    illegal[2] = (best[2, 0], best[2, 0], best[2, 0])
    with pytest.raises(ValueError, match="position 2"):
        net_agreement.agreement(path, cells_a, sides_a, illegal, 6)
