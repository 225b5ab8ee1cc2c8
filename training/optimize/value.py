"""Training the value nets on self-play data: ``train(TrainConfig(...))`` or ``amazons train``.

* Device: ``torch.device("cuda")`` when torch sees a GPU, else the CPU; mixed precision
  (``torch.autocast`` fp16 + ``GradScaler``) on the GPU only.
* Seeded (torch, numpy); the validation split is by **game** (positions of one game are strongly
  correlated, so a per-position split would leak), ``val_fraction`` of the games.
* Target: ``(1 - value_weight) * result + value_weight * search value`` for the side to move,
  (for ``StudyCNN``, whose output is White's winning chance, turned into White's chance in [0, 1]);
  loss: mean squared error, as in the study.
* Augmentation: each batch is split into eight parts, each under one of the 8 board symmetries.
* Output folder: ``metrics.csv`` (one row per epoch), ``curves.png`` (when matplotlib is
  installed), ``checkpoints/epoch-NNN.{safetensors,json}`` and ``best.{safetensors,json}`` (the
  epoch with the lowest validation loss), all written with ``agents.nets.export``, and the training
  state of the last finished epoch, ``checkpoints/epoch-NNN.state.{safetensors,json}``
  (``training.optimize.checkpoint``: optimizer, LR schedule, gradient scaler, random generators, metrics).
* Resuming: ``resume=True`` (``amazons train ... --resume``) continues from the last finished
  epoch in ``out`` (a fresh start when there is none); the settings and the data (by hash) must
  be the same, ``epochs`` included (the LR schedule spans them); ``device``, ``threads`` and the
  data folders' paths may change. On the same device and thread count the result is the
  uninterrupted run's, bit for bit (tested on the CPU).

>>> import tempfile
>>> from training.selfplay.value import selfplay
>>> data = tempfile.mkdtemp()
>>> _ = selfplay(data, games=4, size=6, agent="two-iteration:depth=1,eval=improved", games_per_shard=2,
...              workers=1, progress=False)
>>> report = train(TrainConfig(data=[data], out=tempfile.mkdtemp(), arch="ResValueNet",
...                            kwargs={"channels": 8, "blocks": 1}, epochs=2, progress=False))
>>> len(report["history"]), report["best"].name
(2, 'best')
>>> again = train(TrainConfig(data=[data], out=report["best"].parent, arch="ResValueNet",
...                           kwargs={"channels": 8, "blocks": 1}, epochs=2, progress=False, resume=True))
>>> again["resumed_from"], again["history"] == report["history"]   # nothing left to do
(2, True)
"""

from __future__ import annotations

import csv
import dataclasses
import functools
import os
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.nets.export import save_model
from agents.nets.models import build_model, check_kwargs, parameter_count, value_for_side_to_move
from agents.nets.planes import make_planes
from agents.nets.policy_value import symmetry_permutation

from training.data.shards import load_dataset
from training.optimize.checkpoint import Progress, TrainingParts, latest_state, load_state, save_state, state_base
from training.optimize.config import TrainConfig

__all__ = ["train", "symmetry", "pick_device"]


def pick_device(name: str = "") -> torch.device:
    """``name`` if given, else CUDA when torch sees a GPU, else the CPU."""
    if name:
        return torch.device(name)
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def symmetry(x: torch.Tensor, k: int) -> torch.Tensor:
    """Board symmetry ``k`` of ``amazons_env.symmetry`` on planes ``[..., rank, file]``: each
    square's value moves to its image. The torch form (batched, on the planes' device) of
    ``agents.nets.policy_value.transform_planes``, from the same square permutation.

    >>> planes = torch.arange(25.0).reshape(1, 5, 5)  # a1 = 0, b1 = 1, ..., e5 = 24
    >>> symmetry(planes, 1)[0, 0].tolist()  # files mirrored: rank 1 reads e1 .. a1
    [4.0, 3.0, 2.0, 1.0, 0.0]
    """
    n = x.shape[-1]
    return x.flatten(-2)[..., _sources(n)[k].to(x.device)].reshape(x.shape)


@functools.lru_cache(maxsize=None)
def _sources(size: int) -> torch.Tensor:
    """``int64[8, N*N]``: ``[k, t]`` is the square whose image under symmetry ``k`` is ``t``."""
    return torch.from_numpy(np.argsort(symmetry_permutation(size), axis=1))


def _targets(data: dict[str, np.ndarray], value_weight: float) -> np.ndarray:
    return (1.0 - value_weight) * data["results"].astype(np.float32) + value_weight * data["values"].astype(np.float32)


def _split(games: np.ndarray, fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    unique = np.unique(games)
    rng = np.random.default_rng(seed)
    val_games: np.ndarray | list[int] = (
        rng.permutation(unique)[: max(1, int(round(fraction * len(unique))))] if fraction > 0 else []
    )
    is_val = np.isin(games, val_games)
    return np.flatnonzero(~is_val), np.flatnonzero(is_val)


def _model_targets(model: nn.Module, t: torch.Tensor, sides: torch.Tensor) -> torch.Tensor:
    """The training target in the model's output units."""
    if model.output == "tanh":
        return t
    return (torch.where(sides == 0, t, -t) + 1.0) / 2.0


def _evaluate(model, x, t, sides, batch, device) -> tuple[float, float, float]:
    """(loss in output units, MSE of the side-to-move value, winner accuracy) on a split."""
    model.eval()
    loss = mse = correct = 0.0
    with torch.inference_mode():
        for i in range(0, len(x), batch):
            xb, tb, sb = (a[i : i + batch].to(device) for a in (x, t, sides))
            out = model(xb).float()
            loss += float(((out - _model_targets(model, tb, sb)) ** 2).sum())
            value = value_for_side_to_move(model, out, sb)
            mse += float(((value - tb) ** 2).sum())
            correct += float(((value > 0) == (tb > 0)).sum())
    n = max(1, len(x))
    return loss / n, mse / n, correct / n


def _plot(rows: list[dict[str, Any]], path: Path, title: str) -> bool:
    """Draw the loss and accuracy curves into ``path``; False when matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    epochs = [r["epoch"] for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.5))
    left.plot(epochs, [r["train_loss"] for r in rows], label="train loss")
    left.plot(epochs, [r["val_loss"] for r in rows], label="validation loss")
    left.set_xlabel("epoch")
    left.set_ylabel("MSE")
    left.legend()
    right.plot(epochs, [r["val_accuracy"] for r in rows], color="C2")
    right.set_xlabel("epoch")
    right.set_ylabel("validation: winner predicted")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def train(config: TrainConfig) -> dict[str, Any]:
    """Train a model as ``config`` says; returns ``{"history", "best", "device", "parameters",
    "data_hash", "resumed_from", "curves"}`` (``resumed_from``: the epoch a resumed run went on from,
    else 0; ``curves``: the path of ``curves.png``, or None when matplotlib is missing)."""
    config.check()
    check_kwargs(config.arch, config.kwargs)  # before the data is read
    torch.manual_seed(config.seed)
    np.random.seed(config.seed)
    if config.threads:
        torch.set_num_threads(config.threads)
    device = pick_device(config.device)
    amp = device.type == "cuda"
    data, data_hash = load_dataset(config.data)
    if config.max_positions and len(data["sides"]) > config.max_positions:
        keep = np.random.default_rng(config.seed).permutation(len(data["sides"]))[: config.max_positions]
        data = {k: v[np.sort(keep)] for k, v in data.items()}
    size = int(round(np.sqrt(data["cells"].shape[1]))) - 2
    kwargs = dict(config.kwargs)
    if config.arch == "StudyCNN":
        kwargs.setdefault("size", size)
    model = build_model(config.arch, **kwargs).to(device)
    planes = model.planes
    assert isinstance(planes, str)  # every architecture of MODELS names its input planes (a class attribute)
    x = torch.from_numpy(make_planes(data["cells"], data["sides"], planes))
    t = torch.from_numpy(_targets(data, config.value_weight))
    sides = torch.from_numpy(data["sides"].astype(np.int64))
    train_idx, val_idx = _split(data["games"], config.val_fraction, config.seed)
    xt, tt, st = x[train_idx], t[train_idx], sides[train_idx]
    xv, tv, sv = x[val_idx], t[val_idx], sides[val_idx]
    optimizer: torch.optim.Optimizer
    if config.optimizer == "sgd":
        optimizer = torch.optim.SGD(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    else:  # "adam" (``config.check`` allows no other)
        optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    steps = config.epochs * ((len(xt) + config.batch_size - 1) // config.batch_size)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=config.lr, total_steps=max(1, steps))
    scaler = torch.amp.GradScaler("cuda", enabled=amp)
    out = Path(config.out)
    (out / "checkpoints").mkdir(parents=True, exist_ok=True)
    recipe = {k: v for k, v in dataclasses.asdict(config).items() if k not in ("out", "progress", "resume")}
    recipe["data"] = [os.fspath(folder) for folder in config.data]
    recipe["device"] = device.type
    recipe["train_positions"], recipe["val_positions"] = len(xt), len(xv)
    best = out / "best"
    training = TrainingParts(optimizer, schedule, scaler, torch.Generator().manual_seed(config.seed), device)
    progress = Progress()
    last = latest_state(out / "checkpoints") if config.resume else None
    if last is not None:
        progress = load_state(last, model, training, recipe, data_hash)
    resumed_from, rows = progress.epoch, progress.history
    epochs = range(progress.epoch + 1, config.epochs + 1)
    if config.progress:
        from tqdm import tqdm

        epochs = tqdm(epochs, desc=f"train {config.arch}", unit="epoch", initial=progress.epoch, total=config.epochs)
    for epoch in epochs:
        start = time.perf_counter()
        model.train()
        order = torch.randperm(len(xt), generator=training.shuffle)
        total = 0.0
        for i in range(0, len(order), config.batch_size):
            idx = order[i : i + config.batch_size]
            xb, tb, sb = xt[idx], tt[idx], st[idx]
            if config.augment:
                parts = torch.tensor_split(torch.arange(len(idx)), 8)
                xb = torch.cat([symmetry(xb[p], k) for k, p in enumerate(parts)])
                tb = torch.cat([tb[p] for p in parts])
                sb = torch.cat([sb[p] for p in parts])
            xb, tb, sb = xb.to(device), tb.to(device), sb.to(device)
            with torch.autocast(device.type, dtype=torch.float16, enabled=amp):
                output = model(xb)
            loss = ((output.float() - _model_targets(model, tb, sb)) ** 2).mean()
            optimizer.zero_grad(set_to_none=True)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            schedule.step()
            total += float(loss.detach()) * len(idx)
        val_loss, val_mse, val_acc = _evaluate(model, xv, tv, sv, 1024, device)
        row = {
            "epoch": epoch,
            "train_loss": total / max(1, len(xt)),
            "val_loss": val_loss,
            "val_value_mse": val_mse,
            "val_accuracy": val_acc,
            "lr": schedule.get_last_lr()[0],
            "seconds": round(time.perf_counter() - start, 2),
        }
        rows.append(row)
        meta = dict(recipe, epoch=epoch, val_loss=val_loss)
        checkpoint = save_model(model, state_base(out / "checkpoints", epoch), size, meta, data_hash)
        if val_loss < progress.best_loss or not len(xv):
            progress.best_loss = val_loss
            save_model(model, best, size, meta, data_hash)
        with open(out / "metrics.csv", "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(row))
            writer.writeheader()
            writer.writerows(rows)
        progress.epoch = epoch
        save_state(checkpoint, progress, training, recipe, data_hash)
    curves = out / "curves.png"
    plotted = _plot(rows, curves, f"{config.arch} ({parameter_count(model):,} parameters), {size}x{size}")
    return {
        "history": rows,
        "best": best,
        "device": device.type,
        "parameters": parameter_count(model),
        "data_hash": data_hash,
        "resumed_from": resumed_from,
        "curves": curves if plotted else None,
    }
