"""examples/maskable_ppo.py and examples/ppo_scores.py at toy size: a run to its CPU budget writes its
curve and its final table (wins per colour, 95% intervals), and only legal actions are played."""

import sys
from pathlib import Path

import pytest

from tests.helpers.scripts import load_script

pytest.importorskip("sb3_contrib")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _load(name: str):
    return load_script(EXAMPLES / f"{name}.py")


def test_a_toy_run_writes_its_curve_and_its_table(tmp_path, monkeypatch):
    example = _load("maskable_ppo")
    argv = ["maskable_ppo.py", "--size", "4", "--cpu-minutes", "0.01", "--eval-every", "1000", "--games", "4"]
    argv += ["--envs", "4", "--final-games", "6", "--final", "uct:sims=4", "--out", str(tmp_path)]
    monkeypatch.setattr(sys, "argv", argv)
    example.main()
    table = (tmp_path / "results.md").read_text()
    assert "| `random-agent` | " in table and "/6 (" in table and "| `uct:sims=4` | " in table and "/4 (" in table
    assert "95% interval" in table
    assert (tmp_path / "curve.png").stat().st_size > 1000


def test_scores_count_wins_per_colour_with_an_interval():
    scores = _load("ppo_scores")

    def first_legal(planes, masks):
        return masks.argmax(axis=1)

    row = scores.score(first_legal, "random", 4, 4)
    assert row["games"] == 4 and 0 <= row["white"] <= 2 and 0 <= row["black"] <= 2
    assert 0 <= row["low"] <= row["score"] <= row["high"] <= 1
    assert "| `x` |" in scores.table({"x": row})
