"""Training the policy-value net on ``training.data.policy_value`` sets: value MSE plus policy cross-entropy.

Every batch is seen under one random board symmetry: the boards are transformed
(``transform_cells``), their legal moves generated afresh, and the policy targets' squares mapped
by the same permutation and matched to those legal moves (``policy_batch``). The policy loss is
``-sum(pi * log p)`` with ``log p`` the factorised slide-then-arrow log-probability of
``agents.nets.policy_value.move_log_probs``; the value loss is the squared error against the game
result for the side to move, or with ``root_weight`` a blend of it and the search's root value
(``(1 - root_weight) * result + root_weight * value``: the search's value is less noisy than one
game's result, the result unbiased by the search's own errors). CUDA with mixed precision when
present (``pick_device``), else CPU.

>>> import tempfile
>>> from agents.nets.policy_value import PolicyValueNet
>>> from amazons_env import Board
>>> board = Board(5)
>>> moves = board.legal_moves_array()[:2].astype(np.uint8)
>>> data = {"cells": np.stack([board.cells] * 4), "sides": np.zeros(4, np.int8), "results": np.ones(4, np.int8),
...         "pi_counts": np.full(4, 2, np.int16), "pi_moves": np.concatenate([moves] * 4),
...         "pi_probs": np.full(8, 0.5, np.float32)}
>>> model = PolicyValueNet(channels=8, blocks=1)
>>> history = train_pv(model, data, epochs=2, batch_size=4, progress=False)
>>> len(history), bool(history[1]["loss"] < history[0]["loss"] + 1.0)
(2, True)
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from amazons_env.errors import InvalidArgumentError

from agents.nets.export import read_config
from agents.nets.models import PolicyValueNet
from agents.nets.planes import make_planes
from agents.nets.policy_value import legal_moves_batch, move_keys, move_log_probs, symmetry_permutation, transform_cells
from agents.nets.store import POLICY_VALUE_WEIGHTS, weights_path

from training.data.policy_value import target_starts
from training.optimize.value import pick_device

__all__ = ["start_net", "policy_batch", "batch_loss", "train_pv"]


def start_net(start: "str | os.PathLike[str]", size: int, option: str) -> Path:
    """The model file (no suffix) of the policy-value net a training run starts from: ``start``
    names committed weights (``agents.nets.store``, the net for ``size``) or is a model path. It
    is refused, in the words of ``option`` (e.g. ``train-loop --start``), when it is not a text,
    has no file or is another kind of net (read from its config, so before any training)."""
    if isinstance(start, os.PathLike):
        start = os.fspath(start)
    if not isinstance(start, str) or not start:
        raise InvalidArgumentError(f"{option}={start!r}: give committed weights or a model path")
    path = weights_path(start, size, POLICY_VALUE_WEIGHTS)
    if not path.with_suffix(".safetensors").is_file():
        names = ", ".join(POLICY_VALUE_WEIGHTS)
        raise InvalidArgumentError(
            f"{option}={start!r}: no such policy-value net ({path}.safetensors); give a model path or a committed name"
            f" ({names})"
        )
    try:
        arch = read_config(path)["arch"]
    except (OSError, ValueError) as error:  # a ModelFileError is a ValueError
        raise InvalidArgumentError(f"{option}={start!r}: {str(error)[:200]}") from None
    if arch != PolicyValueNet.__name__:
        raise InvalidArgumentError(f"{option}={start!r}: a {arch}, not a policy-value net")
    return path


def policy_batch(
    data: dict[str, np.ndarray], index: np.ndarray, k: int, size: int, root_weight: float = 0.0
) -> dict[str, Any]:
    """Positions ``index`` of ``data`` under symmetry ``k``: input planes, legal moves
    (``rows``/``moves``), the target probability of each legal move and the value targets ``z``
    (the results, blended with the root values ``values`` by ``root_weight``)."""
    cells = transform_cells(data["cells"][index], k)
    sides = data["sides"][index].astype(np.int64)
    rows, moves = legal_moves_batch(cells, sides, size)
    starts = target_starts(data["pi_counts"])
    lo, hi = starts[index], starts[index + 1]
    picks = np.concatenate([np.arange(a, b) for a, b in zip(lo, hi)])
    t_rows = np.repeat(np.arange(len(index)), hi - lo)
    t_moves = symmetry_permutation(size)[k][data["pi_moves"][picks].astype(np.int64)]
    legal_keys = move_keys(rows, moves, size)
    order = np.argsort(legal_keys)
    where = np.searchsorted(legal_keys[order], move_keys(t_rows, t_moves, size))
    where = np.minimum(where, len(order) - 1)
    found = legal_keys[order][where] == move_keys(t_rows, t_moves, size)
    if not found.all():
        raise InvalidArgumentError("policy target names an illegal move (data from another position?)")
    target = np.zeros(len(moves), np.float32)
    np.add.at(target, order[where], data["pi_probs"][picks])
    return {
        "x": make_planes(cells, sides, "relative"),
        "rows": rows,
        "moves": moves,
        "target": target,
        "z": _value_targets(data, index, root_weight),
    }


def _value_targets(data: dict[str, np.ndarray], index: np.ndarray, root_weight: float) -> np.ndarray:
    z = data["results"][index].astype(np.float32)
    if root_weight == 0:
        return z
    return ((1 - root_weight) * z + root_weight * data["values"][index]).astype(np.float32)


def batch_loss(
    model: nn.Module, batch: dict[str, Any], size: int, device: torch.device, value_weight: float = 1.0
) -> tuple[torch.Tensor, float, float]:
    """``(loss, value loss, policy loss)`` of one ``policy_batch``."""
    x = torch.from_numpy(batch["x"]).to(device)
    with torch.autocast(device.type, enabled=device.type == "cuda"):
        value, slide, arrow = model(x)
    logp = move_log_probs(slide.float(), arrow.float(), batch["rows"], batch["moves"], size)
    target = torch.from_numpy(batch["target"]).to(device)
    policy = -(target * logp).sum() / len(x)
    v = ((value.float() - torch.from_numpy(batch["z"]).to(device)) ** 2).mean()
    return value_weight * v + policy, float(v.detach()), float(policy.detach())


def train_pv(
    model: nn.Module,
    data: dict[str, np.ndarray],
    epochs: int = 4,
    batch_size: int = 256,
    lr: float = 2e-3,
    weight_decay: float = 1e-4,
    seed: int = 0,
    device: str = "",
    value_weight: float = 1.0,
    progress: bool = True,
    root_weight: float = 0.0,
) -> list[dict[str, float]]:
    """Train ``model`` in place on ``data`` (a ``load_pv_dataset`` dict) for ``epochs`` passes
    with AdamW and a cosine learning rate; one row of mean losses per epoch. ``root_weight``: the
    share of the root values in the value targets (module docstring)."""
    from tqdm import tqdm

    if isinstance(root_weight, bool) or not isinstance(root_weight, (int, float)) or not 0 <= root_weight <= 1:
        raise InvalidArgumentError(f"root_weight={root_weight!r}: give a number from 0 to 1")
    if root_weight and "values" not in data:
        raise InvalidArgumentError(f"root_weight={root_weight!r}: the data has no root values")

    dev = pick_device(device)
    model.to(dev).train()
    size = int(round(np.sqrt(data["cells"].shape[1]))) - 2
    n = len(data["sides"])
    steps_per_epoch = max(1, -(-n // batch_size))
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, epochs * steps_per_epoch)
    scaler = torch.amp.GradScaler(enabled=dev.type == "cuda")
    rng = np.random.default_rng(seed)
    history = []
    bar = tqdm(total=epochs * steps_per_epoch, disable=not progress, unit="batch", desc="train", leave=False)
    try:
        for epoch in range(epochs):
            order = rng.permutation(n)
            sums = np.zeros(3)
            for step in range(steps_per_epoch):
                index = np.sort(order[step * batch_size : (step + 1) * batch_size])
                batch = policy_batch(data, index, int(rng.integers(8)), size, root_weight)
                loss, v, p = batch_loss(model, batch, size, dev, value_weight)
                optimizer.zero_grad(set_to_none=True)
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
                schedule.step()
                sums += (float(loss.detach()), v, p)
                bar.update(1)
            history.append(
                {
                    "epoch": epoch + 1,
                    "loss": sums[0] / steps_per_epoch,
                    "value_loss": sums[1] / steps_per_epoch,
                    "policy_loss": sums[2] / steps_per_epoch,
                }
            )
    finally:
        bar.close()
    model.cpu().eval()
    return history
