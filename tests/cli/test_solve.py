"""``amazons solve --state FILE``: a proof stopped by Ctrl-C or its node limit saves its table,
and the same command run again resumes it; ``--threads``."""

from __future__ import annotations

import re

from agents.search.solver import dfpn

from amazons_cli.main import main

POSITION = "1qq1/q2q/Q2Q/1QQ1 w"  # the 4x4 start: a second-player win


def test_ctrl_c_saves_the_proof_and_a_rerun_resumes_it(tmp_path, capsys, monkeypatch):
    state = tmp_path / "proof.npz"
    search, calls = dfpn.mid, []

    def interrupted(*args):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return search(*args)

    monkeypatch.setattr("agents.search.solver.prover.SLICE", 20)
    monkeypatch.setattr(dfpn, "mid", interrupted)
    assert main(["solve", POSITION, "--table-bits", "14", "--state", str(state)]) == 0
    # two slices of 20 nodes; a plain endgame search started inside a slice finishes past it
    stopped = re.search(r"stopped: (\d+) nodes; saving the table", capsys.readouterr().out)
    assert stopped and 40 <= int(stopped[1]) < 200 and state.exists()
    monkeypatch.setattr(dfpn, "mid", search)
    assert main(["solve", POSITION, "--table-bits", "14", "--state", str(state), "--limit", "10"]) == 0
    out = capsys.readouterr().out
    assert "resuming from" in out and f"{stopped[1]} nodes searched before" in out and "unknown" in out
    assert main(["solve", POSITION, "--state", str(state)]) == 0
    out = capsys.readouterr().out
    assert "White loses" in out


def test_a_state_of_another_position_is_refused(tmp_path, capsys):
    state = tmp_path / "proof.npz"
    assert main(["solve", POSITION, "--table-bits", "10", "--limit", "5", "--state", str(state)]) == 0
    assert main(["solve", "--size", "5", "--state", str(state)]) == 2
    assert "proves" in capsys.readouterr().err


def test_threads_prove_the_same_and_a_bad_count_is_refused(capsys):
    assert main(["solve", POSITION, "--table-bits", "14", "--threads", "2"]) == 0
    assert "White loses" in capsys.readouterr().out
    assert main(["solve", POSITION, "--threads", "0"]) == 2
    assert "--threads 0" in capsys.readouterr().err
