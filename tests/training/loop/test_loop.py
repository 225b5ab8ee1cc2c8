"""Policy-value self-play shards, training batches and the expert-iteration loop (toy sizes)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from amazons_env import Board, Move

from agents.nets.inference import PVNet
from agents.nets.policy_value import PolicyValueNet, legal_moves_batch, symmetry_permutation
from agents.nets.store import WEIGHTS_DIR

import training.loop as loop
import training.loop.engines as engines
import training.loop.run as run
from training.data.policy_value import load_pv_dataset, target_starts
from training.data.shards import MANIFEST, ShardError
from training.loop import LoopStateError, train_loop
from training.optimize.policy_value import _value_targets, policy_batch
from training.selfplay.policy_value import gumbel_games, play_shards


@pytest.fixture(scope="module")
def games(small_net):
    return gumbel_games(PVNet(small_net), games=3, size=5, sims=6, m=4, k=6, seed=0)


def test_selfplay_targets_are_legal_visit_distributions_and_results(games):
    for game in games:
        starts = target_starts(game["pi_counts"])
        board_cells, sides = game["cells"], game["sides"]
        rows, legal = legal_moves_batch(board_cells, sides.astype(np.int64), 5)
        legal_sets = [set(map(tuple, legal[rows == k].tolist())) for k in range(len(sides))]
        for k in range(len(sides)):
            moves = game["pi_moves"][starts[k] : starts[k + 1]].astype(int)
            assert set(map(tuple, moves.tolist())) <= legal_sets[k]
            assert game["pi_probs"][starts[k] : starts[k + 1]].sum() == pytest.approx(1.0)
        assert (np.diff(sides) != 0).all()  # sides alternate
        # +1 for the winner's positions, -1 for the loser's
        assert set(np.unique(game["results"] * np.where(sides == sides[0], 1, -1))) == {int(game["results"][0])}


def test_shards_are_written_checked_and_resumed(games, tmp_path):
    calls = []

    def play(index, seed):
        calls.append(index)
        return games[:1] if index else games[1:]

    manifest = play_shards(tmp_path, {"size": 5, "seed": 0}, 2, 2, play, progress=False)
    assert manifest["games"] == 3 and calls == [0, 1]
    data, _ = load_pv_dataset(tmp_path)
    assert len(data["sides"]) == sum(len(g["sides"]) for g in games)
    play_shards(tmp_path, {"size": 5, "seed": 0}, 2, 2, play, progress=False)
    assert calls == [0, 1]  # both shards kept
    (tmp_path / "shard-00001.npz").write_bytes(b"truncated")
    play_shards(tmp_path, {"size": 5, "seed": 0}, 2, 2, play, progress=False)
    assert calls == [0, 1, 1]  # the damaged shard is played again
    edited = (tmp_path / MANIFEST).read_text().replace('"games": 3', '"games": 4')
    (tmp_path / MANIFEST).write_text(edited)
    with pytest.raises(ShardError, match="edited"):
        load_pv_dataset(tmp_path)


@pytest.mark.parametrize("k", range(8))
def test_policy_batch_transforms_targets_with_the_board(games, k):
    data = {key: np.concatenate([g[key] for g in games]) for key in games[0]}
    index = np.arange(min(6, len(data["sides"])))
    batch = policy_batch(data, index, k, 5)
    perm = symmetry_permutation(5)[k]
    starts = target_starts(data["pi_counts"])
    for row, i in enumerate(index):
        moves = data["pi_moves"][starts[i] : starts[i + 1]].astype(int)
        probs = data["pi_probs"][starts[i] : starts[i + 1]]
        mine = batch["rows"] == row
        target = dict(zip(map(tuple, batch["moves"][mine].tolist()), batch["target"][mine]))
        for move, p in zip(moves, probs):
            assert target[tuple(perm[move].tolist())] == pytest.approx(p)
        assert sum(target.values()) == pytest.approx(1.0)


def test_loop_resumes_after_an_interruption(tmp_path, monkeypatch, tiny_loop):
    real = run.train_pv
    calls = []

    def interrupted(model, data, *args, **kwargs):
        calls.append(len(data["sides"]))
        if len(calls) == 2:  # generation 1's training: as if Ctrl-C came
            raise KeyboardInterrupt
        return real(model, data, *args, **kwargs)

    monkeypatch.setattr(run, "train_pv", interrupted)
    with pytest.raises(KeyboardInterrupt):
        train_loop(tiny_loop(tmp_path))
    state = json.loads((tmp_path / loop.STATE).read_text())
    assert state["done"] == ["bootstrap", "train-0", "selfplay-1"]
    played = []
    monkeypatch.setattr("training.selfplay.policy_value.gumbel_games", lambda *a, **k: played.append(1) or [])
    state = train_loop(tiny_loop(tmp_path))
    assert not played  # finished self-play is not played again
    assert state["done"][3:] == ["train-1", "gate-1"] and len(calls) == 3
    assert (tmp_path / "elo.csv").read_text().startswith("generation,")
    row = state["gates"][0]
    assert row["games"] == 2 and 0 <= row["score"] <= 1 and row["score_low"] <= row["score"] <= row["score_high"]


def test_loop_refuses_an_edited_state_and_other_settings(tmp_path, tiny_loop):
    train_loop(tiny_loop(tmp_path, generations=0))
    with pytest.raises(LoopStateError, match="other settings.*size"):
        train_loop(tiny_loop(tmp_path, generations=0, size=6))
    path = tmp_path / loop.STATE
    path.write_text(path.read_text().replace('"best": 0', '"best": 1'))
    with pytest.raises(LoopStateError, match="edited"):
        train_loop(tiny_loop(tmp_path, generations=0))
    with pytest.raises(ValueError, match="--sims"):
        tiny_loop(tmp_path, sims=0).check()


def test_generation_zero_starts_from_a_given_net(tmp_path, tiny_loop):
    """``start``: generation 0 is the given net trained on the bootstrap games (its shape, not
    ``channels``/``blocks``); a run without it resumes as before (the setting is kept only when set)."""
    from agents.nets.export import load_model, save_model

    torch.manual_seed(1)
    start = save_model(PolicyValueNet(channels=6, blocks=1), tmp_path / "start" / "pv", board_size=5)
    out = tmp_path / "run"
    train_loop(tiny_loop(out, generations=0, start=str(start)))
    made, meta = load_model(out / "gen-000" / "pv")
    assert meta["kwargs"]["channels"] == 6 != tiny_loop(out).channels
    first = load_model(start)[0].state_dict()
    assert any(not torch.equal(first[k], v) for k, v in made.state_dict().items())  # trained further
    assert "start" not in tiny_loop(out).fixed() and tiny_loop(out, start=str(start)).fixed()["start"] == str(start)


@pytest.mark.parametrize("spec", ["pvmcts:sims=8", "uct-net:sims=16"])
def test_a_learned_net_plays_legal_moves(tmp_path, spec, tiny_loop):
    """The loop's files are the nets' usual ones: ``pvmcts`` and ``uct-net`` load them on the CPU."""
    state = train_loop(tiny_loop(tmp_path, generations=0, device="auto"))
    from agents import make

    agent = make(f"{spec},weights={tmp_path / 'gen-000' / 'pv'}")
    board = Board(5)
    move = agent.select_move(board)
    assert isinstance(move, Move) and board.is_legal(move) and state["best"] == 0


def test_an_expert_plays_the_generations_games_and_gates_them(tmp_path, monkeypatch, tiny_loop):
    """``expert``: the generation's games are the expert's with the best net (its visit shares the
    policy targets, its root values blended into the value targets by ``root_weight``), and the
    gate pits the expert with the new net against it with the best one."""
    specs, weights = [], []
    real_engine, real_train = engines.engine_shard, run.train_pv
    monkeypatch.setattr(engines, "engine_shard", lambda spec, *a: specs.append(spec) or real_engine(spec, *a))

    def train(*args, **kwargs):
        weights.append(kwargs["root_weight"])
        return real_train(*args, **kwargs)

    monkeypatch.setattr(run, "train_pv", train)
    config = tiny_loop(tmp_path, expert="uct-net:sims=12,top=2", root_weight=0.5)
    state = train_loop(config)
    expert = f"uct-net:sims=12,top=2,weights={tmp_path / 'gen-000' / 'pv'}"
    assert specs == ["uct:sims=20"] * 2 + [expert] * 2  # the bootstrap, then generation 1: a shard a game
    assert weights == [0.5, 0.5]
    gate = json.loads((tmp_path / "gen-001" / "gate.json").read_text())
    assert gate["a"].startswith("uct-net:sims=12,top=2,weights=") and gate["a"].endswith("gen-001/pv")
    assert state["gates"][0]["games"] == 2
    with pytest.raises(LoopStateError, match="other settings.*root_weight"):
        train_loop(tiny_loop(tmp_path, expert="uct-net:sims=12,top=2", root_weight=0.25))
    data = load_pv_dataset([tmp_path / "gen-001" / "selfplay"])[0]
    assert (np.abs(data["values"]) > 0).any()  # the expert's root values were kept


@pytest.mark.parametrize(
    "changes, error",
    [
        ({"expert": "uct:sims=10"}, "--expert='uct:sims=10': give an agent guided by a policy-value net"),
        ({"expert": "uct-net:sim=10"}, "did you mean 'sims'"),
        ({"root_weight": 1.5}, "--root-weight=1.5"),
        ({"root_weight": float("nan")}, "--root-weight=nan"),
        ({"start": "no/such/net"}, "--start='no/such/net': no such policy-value net"),
        # a committed net's file name is not its name: the message lists the names
        ({"start": "pv-uct-10x10"}, r"no such policy-value net \(pv-uct-10x10.safetensors\); .* \(default, pv-8x8\)"),
        ({"start": 3}, "--start=3"),
        ({"start": str(WEIGHTS_DIR / "studycnn-8x8")}, "a StudyCNN, not a policy-value net"),
    ],
)
def test_bad_expert_settings_are_refused(tmp_path, changes, error, tiny_loop):
    with pytest.raises(ValueError, match=error):
        tiny_loop(tmp_path, **changes).check()


def test_value_targets_blend_results_and_root_values():
    data = {"results": np.array([1, -1], np.int8), "values": np.array([0.5, 0.25], np.float32)}
    assert np.allclose(_value_targets(data, np.array([0, 1]), 0.0), [1, -1])
    assert np.allclose(_value_targets(data, np.array([0, 1]), 0.5), [0.75, -0.375])


@pytest.mark.parametrize("device", ["tpu", "cuda:x", "", 3] + ([] if torch.cuda.is_available() else ["cuda"]))
def test_a_bad_device_is_one_line_naming_it(tmp_path, capsys, device, tiny_loop):
    from amazons_cli.main import main

    assert main(["train-loop", str(tmp_path / "run"), "--device", str(device)]) == 2
    errors = capsys.readouterr().err.strip().splitlines()
    assert len(errors) == 1 and errors[0].startswith("amazons train-loop: error: train-loop --device=")
    assert not (tmp_path / "run").exists()
    with pytest.raises(ValueError, match="--device"):
        tiny_loop(tmp_path, device=device).check()


def test_the_command_prints_every_stage_and_gate_and_resumes(tmp_path, capsys):
    """Each stage's line as it finishes, each gate's wins per colour and intervals; a rerun with more
    generations resumes (the finished stages are named, not run again)."""
    from amazons_cli.main import main

    args = ["train-loop", str(tmp_path), "--size", "5", "--bootstrap-games", "2", "--bootstrap-agent", "uct:sims=20"]
    args += ["--games", "2", "--games-per-shard", "1", "--sims", "4", "--channels", "4", "--blocks", "1"]
    args += ["--epochs", "1", "--gate-games", "2", "--gate-sims", "4", "--device", "cpu", "--no-progress"]
    assert main([*args, "--generations", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines[:5]] == [
        "bootstrap",
        "train 0",
        "self-play 1",
        "train 1",
        "gate 1 (gen 1 vs gen 0)",
    ]
    assert "White " in lines[4] and "Black " in lines[4] and "Elo " in lines[4]
    assert lines[-1].startswith("best net: generation ") and "uct-net:weights=" in lines[-1]
    assert main([*args, "--generations", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"resuming {tmp_path}: done bootstrap, train-0, selfplay-1, train-1, gate-1"
    assert lines[1].startswith("self-play 2:") and sum(line.startswith("  gate ") for line in lines) == 2
    state = loop.read_state(tmp_path)
    header = (tmp_path / "elo.csv").read_text().splitlines()[0].split(",")
    assert {"white_wins", "black_wins", "elo_diff_low", "elo_diff_high"} <= set(header) <= set(state["gates"][-1])
    row = state["gates"][-1]
    assert row["white_wins"] + row["black_wins"] == row["wins"] and row["white_games"] + row["black_games"] == 2


def test_ctrl_c_stops_the_command_in_one_line_and_a_rerun_completes_it(tmp_path):
    """SIGINT (Ctrl-C) mid-run: exit code 130, one line, no traceback; the finished stages stay done
    and their data is kept as it was (the bootstrap's shards are not played again)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from training.data.shards import read_manifest

    from tests.helpers.interrupt import terminal_sigint

    args = ["train-loop", str(tmp_path), "--size", "5", "--bootstrap-games", "2", "--bootstrap-agent", "uct:sims=20"]
    args += ["--games", "4", "--games-per-shard", "1", "--sims", "4", "--channels", "4", "--blocks", "1"]
    args += ["--epochs", "1", "--gate-games", "2", "--gate-sims", "4", "--device", "cpu", "--generations", "2"]
    env = dict(os.environ, NUMBA_NUM_THREADS="1", OMP_NUM_THREADS="1")
    command = [sys.executable, "-m", "amazons_cli", *args, "--no-progress"]
    driver = subprocess.Popen(  # SIGINT as at a terminal, also when the tests run in a background job
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=terminal_sigint
    )
    deadline = time.monotonic() + 240
    while driver.poll() is None and time.monotonic() < deadline:
        if (tmp_path / loop.STATE).exists() and "train-0" in loop.read_state(tmp_path)["done"]:
            break
        time.sleep(0.02)
    assert driver.poll() is None, f"the run ended before Ctrl-C: {driver.communicate()[1][-2000:]}"
    driver.send_signal(signal.SIGINT)
    _, errors = driver.communicate(timeout=120)
    # the last line (a first run may say before it that numba compiled kernels)
    assert driver.returncode == 130 and errors.strip().splitlines()[-1] == "amazons train-loop: interrupted", errors
    assert "Traceback" not in errors
    stopped = loop.read_state(tmp_path)["done"]
    assert stopped[:2] == ["bootstrap", "train-0"] and "gate-2" not in stopped
    bootstrap = read_manifest(tmp_path / "bootstrap")
    from amazons_cli.main import main

    assert main([*args, "--no-progress"]) == 0
    assert loop.read_state(tmp_path)["done"][: len(stopped)] == stopped
    assert loop.read_state(tmp_path)["done"][-1] == "gate-2" and read_manifest(tmp_path / "bootstrap") == bootstrap


def test_the_self_play_engine_feeds_the_loop_and_its_gate(tmp_path, tiny_loop):
    """``gumbel``: the generation's games are the batched Gumbel search's (improved-policy targets
    over legal moves), gated as the ``gumbel`` agent; its settings are part of the run."""
    config = tiny_loop(tmp_path, selfplay="gumbel", gumbel_m=2, gumbel_k=4, device="cpu")
    state = train_loop(config)
    assert state["done"][-1] == "gate-1" and state["gates"][0]["games"] == 2
    gate = json.loads((tmp_path / "gen-001" / "gate.json").read_text())
    assert gate["a"].startswith("gumbel:sims=4,m=2,k=4,device=cpu,weights=") and gate["a"].endswith("gen-001/pv")
    data = load_pv_dataset([tmp_path / "gen-001" / "selfplay"])[0]
    assert len(data["sides"]) > 0 and (data["pi_probs"] > 0).all()
    assert config.fixed().get("selfplay") == "gumbel"
    with pytest.raises(LoopStateError, match="other settings.*gumbel_m"):
        train_loop(tiny_loop(tmp_path, selfplay="gumbel", gumbel_m=3, gumbel_k=4))


def test_an_expert_plays_instead_of_the_self_play_search(tiny_loop):
    """With ``expert`` the games are the expert's: ``selfplay`` and its settings are not part of the
    run (so the expert runs made before the choice existed resume)."""
    fixed = tiny_loop("run", expert="uct-net:sims=12", gumbel_m=3).fixed()
    assert fixed["expert"] == "uct-net:sims=12" and not {"selfplay", "gumbel_m", "gumbel_k"} & set(fixed)
    assert engines.engine_name(tiny_loop("run", expert="uct-net:sims=12")) == "expert"


@pytest.mark.parametrize(
    "changes, error",
    [
        ({"selfplay": "alphazero"}, "--selfplay='alphazero': choose gumbel$"),
        ({"selfplay": "pvmcts"}, "--selfplay='pvmcts': choose gumbel .the pvmcts engine .* cannot resume"),
        ({"gumbel_m": 0}, "--gumbel-m=0"),
        ({"ray_gpus": 0.5}, "--ray-gpus=0.5: the GPUs of Ray tasks; add --backend ray"),
        ({"ray_gpus": -1.0, "backend": "ray"}, r"--ray-gpus=-1.0: give a number in \[0, 64\]"),
    ],
)
def test_bad_selfplay_settings_are_refused(tmp_path, changes, error, tiny_loop):
    with pytest.raises(ValueError, match=error):
        tiny_loop(tmp_path, **changes).check()


def test_on_ray_self_play_asks_for_its_gpu_share_and_uses_what_its_task_sees(tmp_path, tiny_loop):
    """``ray_gpus``: the self-play player carries its GPU share for Ray (``agents.arena.backends``);
    on Ray the shards and the gates' agents resolve ``auto`` where they run, whatever ``device``
    the driver trains on; off Ray they use ``device`` as given."""
    pytest.importorskip("ray", reason="Ray is not installed (pip install 'amazons[ray]')")
    on_ray = tiny_loop(tmp_path, selfplay="gumbel", backend="ray", ray_gpus=0.25, device="cpu")
    player = engines.shard_player(on_ray, tmp_path / "pv")
    assert player.ray_resources == {"num_gpus": 0.25} and player.args[1] == "auto"
    assert "device=cpu" not in engines.gate_spec(on_ray, tmp_path / "pv")
    here = engines.shard_player(tiny_loop(tmp_path, selfplay="gumbel", device="cpu"), tmp_path / "pv")
    assert not hasattr(here, "ray_resources") and here.args[1] == "cpu"


def test_a_gate_row_of_an_earlier_run_still_prints():
    """Rows a run recorded before the colours and the difference's interval were kept (its state
    resumes) print without them."""
    from training.loop.state import gate_line

    row = {"generation": 2, "opponent": 1, "games": 20, "wins": 14, "score": 0.7, "score_low": 0.48}
    row |= {"score_high": 0.85, "elo_diff": 147.2, "elo": 529.0, "elo_pm": 285.0, "accepted": True}
    assert gate_line(row) == (
        "gate 2 (gen 2 vs gen 1): 14/20, score 0.70 [0.48, 0.85], Elo +147, gen 2 at Elo +529 +/- 285 (gen 0 = 0): "
        "accepted"
    )
