"""Imitation: a policy-value net trained on an engine's recorded moves (training.imitation, amazons train-policy)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from agents.arena import match
from agents.nets.export import load_model, save_model
from agents.nets.models import PolicyValueNet, ResValueNet

from training.data.records import write_record_shards
from training.imitation import ImitationConfig, imitate, load_sources
from training.optimize.policy_value import start_net

from amazons_cli.main import main

SMALL = {"start": "scratch", "channels": 4, "blocks": 1, "batch_size": 32}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    path = tmp_path_factory.mktemp("imitation") / "m.json"
    match("uct:sims=20", "random", games=4, size=5, seed=1, json_path=str(path), progress=False)
    return path


def config(results, out, **changes) -> ImitationConfig:
    options = {"sources": [str(results)], "out": str(out), "size": 5, "player": "uct", "epochs": 1, **SMALL}
    return ImitationConfig(**{**options, **changes})


def test_the_command_writes_a_policy_value_net_with_its_recipe(results, tmp_path, capsys):
    out = tmp_path / "net"
    argv = ["train-policy", str(results), "--size", "5", "--player", "uct", "--out", str(out), "--no-progress"]
    assert main(argv + ["--start", "scratch", "--channels", "4", "--blocks", "1", "--epochs", "2"]) == 0
    printed = capsys.readouterr().out
    assert "epoch 2: loss" in printed and f"-> {out}" in printed
    model, meta = load_model(out)
    assert isinstance(model, PolicyValueNet) and meta["board_size"] == 5
    recipe = meta["recipe"]
    assert recipe["player"] == "uct" and recipe["sources"] == ["m.json"] and recipe["epochs"] == 2
    assert recipe["positions"] == int(printed.split(" positions")[0].split()[-1].replace(",", ""))
    assert len(meta["data_hash"]) == 16


def test_training_is_reproducible_and_learns_the_moves(results, tmp_path):
    first = imitate(config(results, tmp_path / "a", epochs=20, lr=1e-2), progress=False)
    second = imitate(config(results, tmp_path / "b", epochs=20, lr=1e-2), progress=False)
    a, b = load_model(first["out"])[0].state_dict(), load_model(second["out"])[0].state_dict()
    assert all(np.array_equal(a[k].numpy(), b[k].numpy()) for k in a)
    losses = [row["policy_loss"] for row in first["history"]]
    assert losses[-1] < losses[0] - 0.1  # a few hundred positions: the net fits the moves played


def test_a_shard_folder_holds_the_same_positions_as_its_results_file(results, tmp_path):
    write_record_shards(tmp_path / "shards", [results], "uct", 5)
    from_file, file_hash = load_sources([str(results)], 5, "uct")
    from_folder, folder_hash = load_sources([str(tmp_path / "shards")], 5, "")
    for key in ("cells", "sides", "results", "pi_counts", "pi_moves", "pi_probs"):
        assert np.array_equal(from_file[key], from_folder[key]), key
    both, _ = load_sources([str(results), str(tmp_path / "shards")], 5, "uct")
    assert len(both["sides"]) == 2 * len(from_file["sides"]) and file_hash != folder_hash


def test_a_start_from_a_model_file_continues_its_weights(results, tmp_path):
    first = imitate(config(results, tmp_path / "a"), progress=False)
    zero = imitate(config(results, tmp_path / "b", start=str(first["out"]), lr=1e-12, channels=99), progress=False)
    recipe = load_model(zero["out"])[1]["recipe"]
    assert recipe["start"] == "a" and "channels" not in recipe  # the start's shape is its own
    a, b = (dict(load_model(run["out"])[0].named_parameters()) for run in (first, zero))
    assert all(
        np.allclose(a[k].detach().numpy(), b[k].detach().numpy(), atol=1e-6) for k in a
    )  # batch norm's statistics move


@pytest.mark.parametrize(
    "changes, words",
    [
        ({"lr": 0.0}, "--lr=0.0"),
        ({"lr": math.nan}, "--lr=nan"),
        ({"weight_decay": -1.0}, "--weight-decay=-1.0"),
        ({"value_weight": math.inf}, "--value-weight=inf"),
        ({"epochs": 0}, "--epochs=0"),
        ({"batch_size": True}, "--batch-size=True"),
        ({"size": 99}, "--size=99"),
        ({"player": ""}, "give --player"),
        ({"sources": []}, "give results files"),
        ({"sources": ["no/such.json"]}, "'no/such.json': no such file"),
        ({"player": "mcts"}, "no 5x5 positions of 'mcts'"),
        ({"size": 6}, "no 6x6 positions"),
        ({"start": "no/such/net"}, "--start='no/such/net': no such policy-value net"),
        ({"device": "nodevice"}, "--device='nodevice'"),
        ({"player": 5}, "--player=5: give a text"),
        ({"sources": "m.json"}, "sources='m.json': give a list of paths"),
        ({"lr": -1.0}, "--lr=-1.0: give a number above 0 to 1.0"),
        ({"start": "default", "size": 5, "sources": ["SHARDS6"]}, "6x6 positions, not 5x5"),
    ],
)
def test_bad_settings_are_refused_by_name_and_write_nothing(results, tmp_path, changes, words):
    if changes.get("sources") == ["SHARDS6"]:
        other = tmp_path / "six.json"
        match("uct:sims=5", "random", games=1, size=6, seed=1, json_path=str(other), progress=False)
        write_record_shards(tmp_path / "six", [other], "uct", 6)
        changes = {**changes, "sources": [str(tmp_path / "six")]}
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace("[", r"\[")):
        imitate(config(results, tmp_path / "net", **changes), progress=False)
    assert not list(tmp_path.glob("net.*"))


def test_a_value_net_is_not_a_start(results, tmp_path):
    value = save_model(ResValueNet(channels=4, blocks=1), tmp_path / "value", board_size=5)
    with pytest.raises(ValueError, match="--start=.*value'.*ResValueNet, not a policy-value net"):
        imitate(config(results, tmp_path / "net", start=str(value)), progress=False)
    assert not list(tmp_path.glob("net.*"))


def test_a_start_net_is_a_name_or_a_path_whose_config_reads(tmp_path):
    """``start_net`` (train-policy's and train-loop's ``--start``): a committed name is the net for
    the size, a path (text or ``Path``) is itself; a config that does not read is refused in the
    option's words, before any training."""
    assert start_net("default", 10, "x --start").name == "pv-uct-10x10"
    net = save_model(PolicyValueNet(channels=4, blocks=1), tmp_path / "pv", board_size=5)
    assert start_net(net, 5, "x --start") == start_net(str(net), 5, "x --start") == net
    (tmp_path / "pv.json").write_text("{")
    with pytest.raises(ValueError, match="x --start=.*pv'"):
        start_net(str(net), 5, "x --start")
    with pytest.raises(ValueError, match="x --start=''"):
        start_net("", 5, "x --start")


def test_an_existing_net_is_kept_unless_overwrite_is_given(results, tmp_path, capsys):
    out = tmp_path / "net"
    imitate(config(results, out), progress=False)
    before = (tmp_path / "net.safetensors").read_bytes()
    argv = ["train-policy", str(results), "--size", "5", "--player", "uct", "--out", str(out), "--no-progress"]
    assert main(argv + ["--start", "scratch", "--channels", "4", "--blocks", "1", "--seed", "1"]) == 2
    assert "exists (--overwrite replaces it)" in capsys.readouterr().err
    assert (tmp_path / "net.safetensors").read_bytes() == before
    assert main(argv + ["--start", "scratch", "--channels", "4", "--blocks", "1", "--seed", "1", "--overwrite"]) == 0
    assert (tmp_path / "net.safetensors").read_bytes() != before
    assert json.loads((tmp_path / "net.json").read_text())["recipe"]["seed"] == 1


def test_held_out_games_score_the_net_before_and_after_training(results, tmp_path, capsys):
    out = tmp_path / "net"
    argv = ["train-policy", str(results), "--size", "5", "--player", "uct", "--out", str(out), "--no-progress"]
    small = ["--start", "scratch", "--channels", "4", "--blocks", "1", "--epochs", "12", "--lr", "0.01"]
    assert main(argv + small + ["--held-out", str(results)]) == 0  # its own games: the fit shows
    printed = capsys.readouterr().out
    assert "held out, before training:" in printed and "held out, after training:" in printed
    scores = load_model(out)[1]["recipe"]["agreement"]
    assert scores["after"]["nll"] < scores["before"]["nll"]  # trained on the very games it is scored on
    assert scores["after"]["positions"] == scores["before"]["positions"] > 0
    assert load_model(out)[1]["recipe"]["held_out"] == ["m.json"]


@pytest.mark.parametrize(
    "held_out, player, words",
    [(("nothing.json",), "uct", "--held-out 'nothing.json': no such results file"), ((), "mcts", "no 5x5 moves")],
)
def test_bad_held_out_games_are_refused(results, tmp_path, held_out, player, words):
    changes = {"held_out": held_out or (str(results),), "player": player}
    if player == "mcts":  # the training data has uct's moves; the held-out check comes first
        changes["sources"] = [str(tmp_path / "shards")]
        write_record_shards(tmp_path / "shards", [results], "uct", 5)
    with pytest.raises(ValueError, match=words):
        imitate(config(results, tmp_path / "net", **changes), progress=False)
    assert not list(tmp_path.glob("net.*"))


def test_held_out_player_scores_another_sides_moves(results, tmp_path):
    report = imitate(
        config(results, tmp_path / "net", held_out=(str(results),), held_out_player="random"), progress=False
    )
    mine = imitate(config(results, tmp_path / "own", held_out=(str(results),)), progress=False)
    uct_moves = mine["agreement"]["before"]["positions"]
    assert report["agreement"]["before"]["positions"] != uct_moves and uct_moves == report["positions"]
