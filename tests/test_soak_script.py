"""The soak script (``benchmarks/envs/soak.py``): a short run of it finds no violation, finished
games included (random play with many arbitrary actions, so that games end early)."""

from __future__ import annotations

import pytest

from tests.helpers.scripts import load_script

soak = load_script("benchmarks/envs/soak.py")


def test_a_short_soak_finds_no_violation(capsys):
    with pytest.raises(SystemExit) as done:
        soak.main(["--steps", "1600", "--size", "6", "--envs", "32", "--illegal", "0.05", "--seed", "3"])
    out = capsys.readouterr().out
    assert done.value.code == 0 and "violations: 0" in out, out
    games = int(out.split(" games")[0].split("(")[-1].replace(",", ""))
    assert games >= 10, out  # finished games were checked too
