"""The command line reports the two error families apart (``amazons_cli.main``): bad input as
``error:`` with exit code 2, a run-time failure as ``failed:`` with exit code 1; neither with a
traceback."""

import sys

import pytest

from amazons_cli.main import FAILURE, INPUT_ERROR, main


def test_an_engine_that_exits_at_once_is_a_failure_not_an_input_error(capsys):
    # the engine's path is valid input; the engine then ends before it answers `uci`
    assert main(["match", f"uci:{sys.executable} -c pass", "random", "--games", "1", "--size", "6"]) == FAILURE
    err = capsys.readouterr().err
    assert "amazons match: failed: engine" in err and "exited" in err
    assert "error:" not in err and "Traceback" not in err


def test_a_bad_option_is_an_input_error(capsys):
    assert main(["match", "random:depth=3", "random", "--games", "1", "--size", "6"]) == INPUT_ERROR
    err = capsys.readouterr().err
    assert "amazons match: error: agent 'random': unknown option 'depth'" in err
    assert "failed:" not in err and "Traceback" not in err


def test_an_engine_path_that_is_no_program_is_an_input_error(capsys):
    assert main(["match", "uci:/no/such/engine", "random", "--games", "1"]) == INPUT_ERROR
    assert "amazons match: error: agent 'uci': engine '/no/such/engine' is not an executable" in capsys.readouterr().err


def test_the_executable_exits_with_mains_code(monkeypatch, capsys):
    from amazons_cli.main import command

    monkeypatch.setattr("sys.argv", ["amazons", "perft", "2", "--size", "0"])
    with pytest.raises(SystemExit) as ended:
        command()
    assert ended.value.code == 2 and "board size 0" in capsys.readouterr().err


@pytest.mark.parametrize("device, says", [("xyz", "choose auto, cpu, cuda or cuda:N"), ("cuda:999", "sees")])
def test_train_refuses_a_device_torch_cannot_use_in_one_line(tmp_path, capsys, device, says):
    pytest.importorskip("torch")
    assert main(["train", str(tmp_path), "--out", str(tmp_path / "out"), "--device", device]) == INPUT_ERROR
    err = capsys.readouterr().err
    assert err.startswith(f"amazons train: error: --device={device!r}") and says in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()  # refused before any work
