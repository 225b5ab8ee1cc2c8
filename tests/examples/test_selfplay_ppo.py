"""examples/selfplay_ppo.py at toy size: a run end to end, its net as an arena agent, and resuming
after a stop, a Ctrl-C or a kill with counters, history and budget carried on; edited states refused."""

import json
import signal
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("safetensors")

from amazons_env import Board  # noqa: E402

import agents  # noqa: E402
from agents.arena import match  # noqa: E402

from tests.helpers.scripts import load_script  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "selfplay_ppo.py"
# 4x4, 4 games of 8 steps per update, a 4-channel one-layer net, 2 evaluation games: ~0.1 s an update
TOY = [
    "--size",
    "4",
    "--clock",
    "cpu",
    "--minutes",
    "60",
    "--games",
    "2",
    "--envs",
    "4",
    "--steps",
    "8",
    "--minibatch",
    "16",
    "--channels",
    "4",
    "--blocks",
    "1",
]


@pytest.fixture(scope="module")
def example():
    return load_script(EXAMPLE)


def state(out):
    return json.loads((out / "state.json").read_text())


def test_a_run_saves_its_results_and_its_net_plays_in_the_arena(example, tmp_path):
    example.main(TOY + ["--minutes", "0.005", "--out", str(tmp_path)])
    for name in ("curve.png", "results.md", "results.json", "final.safetensors", "final.json", "state.json"):
        assert (tmp_path / name).stat().st_size > 0
    spec = f"{EXAMPLE}:checkpoint_agent:path={tmp_path / 'final'}"
    assert Board(4).is_legal(agents.make(spec).select_move(Board(4)))
    rated = match(spec, "random", games=2, size=4, workers=1, progress=False)  # an Elo with its interval
    assert rated["games"] == 2 and rated["elo_ci95"][0] <= rated["elo"] <= rated["elo_ci95"][1]
    (tmp_path / "final.json").write_text((tmp_path / "final.json").read_text().replace('"blocks": 1', '"blocks": 2'))
    with pytest.raises(ValueError, match="PPO checkpoint weights"):
        example.load_checkpoint(str(tmp_path / "final"))


def adam_steps(out):
    """Adam's step count of the first parameter, as saved."""
    from safetensors.torch import load_file

    saved = state(out)
    return float(load_file(str(out / saved["tensors_file"]))["optimizer.0.step"])


def test_a_finished_run_goes_on_with_a_larger_budget(example, tmp_path, capsys):
    example.main(TOY + ["--updates", "2", "--out", str(tmp_path)])
    first = state(tmp_path)
    assert first["progress"]["updates"] == 2 and first["progress"]["steps"] == 2 * 4 * 8
    assert [row["steps"] for row in first["progress"]["history"]] == [0, 64]  # at the start and at the end
    per_update = adam_steps(tmp_path) / 2
    # the same command again: nothing to do, nothing added
    example.main(TOY + ["--updates", "2", "--out", str(tmp_path)])
    assert state(tmp_path)["progress"]["history"] == first["progress"]["history"]
    # a larger budget, the shaping options left out: counters, history, optimizer and clock go on
    example.main(["--updates", "4", "--out", str(tmp_path)])
    assert "resuming" in capsys.readouterr().out
    second = state(tmp_path)["progress"]
    assert second["updates"] == 4 and second["steps"] == 4 * 4 * 8 and second["sessions"] == 2
    assert second["history"][:2] == first["progress"]["history"] and second["history"][2]["steps"] == 128
    assert second["elapsed"] >= first["progress"]["elapsed"] and second["cpu_s"] >= first["progress"]["cpu_s"]
    assert adam_steps(tmp_path) == 4 * per_update
    table = (tmp_path / "results.md").read_text()
    assert sum(line.startswith("| 0.") for line in table.splitlines()) == 3 and "2 session(s)" in table
    assert "`python3 examples/selfplay_ppo.py --size 4 --minutes 60.0 --updates 4 --clock cpu --games 2 " in table


def stop_at_update(example, monkeypatch, update, how):
    """Make the example's update number ``update`` (1-based) get a Ctrl-C (``how="sigint"``) or be
    killed in the middle (``how="kill"``: an exception nothing catches, as SIGKILL saves nothing)."""
    original, calls = example.update, []

    def update_then(*args):
        calls.append(1)
        if len(calls) == update:
            if how == "sigint":
                signal.raise_signal(signal.SIGINT)  # the handler asks to stop; this update finishes
            else:
                raise RuntimeError("killed")
        original(*args)

    monkeypatch.setattr(example, "update", update_then)


def test_ctrl_c_finishes_the_update_saves_and_the_run_resumes(example, tmp_path, monkeypatch, capsys):
    stop_at_update(example, monkeypatch, 2, "sigint")
    before = signal.getsignal(signal.SIGINT)  # SIG_IGN when the tests run in a background job
    with pytest.raises(SystemExit, match="stopped after update 2"):
        example.main(TOY + ["--updates", "3", "--out", str(tmp_path)])
    assert "stopping after this update" in capsys.readouterr().out
    assert signal.getsignal(signal.SIGINT) is before  # handlers put back
    saved = state(tmp_path)["progress"]
    assert saved["updates"] == 2 and len(saved["history"]) == 1
    monkeypatch.undo()
    example.main(TOY + ["--updates", "3", "--resume", "--out", str(tmp_path)])
    saved = state(tmp_path)["progress"]
    assert saved["updates"] == 3 and [row["steps"] for row in saved["history"]] == [0, 96]


def test_a_kill_loses_only_the_update_in_progress(example, tmp_path, monkeypatch):
    stop_at_update(example, monkeypatch, 3, "kill")
    with pytest.raises(RuntimeError, match="killed"):
        example.main(TOY + ["--updates", "4", "--out", str(tmp_path)])
    assert state(tmp_path)["progress"]["updates"] == 2
    assert len(list(tmp_path.glob("state-*.safetensors"))) == 1  # older tensors files are removed
    monkeypatch.undo()
    example.main(TOY + ["--updates", "4", "--out", str(tmp_path)])
    assert state(tmp_path)["progress"]["updates"] == 4


def test_edited_or_mismatched_states_are_refused_by_name(example, tmp_path, capsys):
    example.main(TOY + ["--updates", "1", "--out", str(tmp_path)])
    original = (tmp_path / "state.json").read_text()
    # another shaping option than the saved run's
    with pytest.raises(SystemExit):
        example.main(TOY + ["--size", "6", "--updates", "2", "--out", str(tmp_path)])
    assert "made with --size 4 (given 6)" in capsys.readouterr().err
    # an edited counter
    (tmp_path / "state.json").write_text(original.replace('"updates": 1', '"updates": 7'))
    with pytest.raises(SystemExit):
        example.main(["--updates", "2", "--out", str(tmp_path)])
    assert "was edited: its sha256 does not match" in capsys.readouterr().err
    # an edited tensors file
    (tmp_path / "state.json").write_text(original)
    tensors = tmp_path / state(tmp_path)["tensors_file"]
    data = bytearray(tensors.read_bytes())
    data[-1] ^= 1
    tensors.write_bytes(bytes(data))
    with pytest.raises(SystemExit):
        example.main(["--updates", "2", "--out", str(tmp_path)])
    assert "do not match the SHA-256" in capsys.readouterr().err
    # --resume without a state
    with pytest.raises(SystemExit):
        example.main(TOY + ["--resume", "--out", str(tmp_path / "empty")])
    assert "holds no state.json" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        example.main(TOY + ["--out", str(tmp_path / "state.json")])
    assert "is not a folder" in capsys.readouterr().err
