"""The policy-value net of ``examples/selfplay_ppo.py``, its checkpoint files and its arena agent.

``ConvPolicy`` is a conv trunk with a queen-line policy head (the ``"lines"`` action encoding)
and a tanh value head; ``save_checkpoint`` writes it as safetensors + JSON (the weights' SHA-256
in the JSON, no pickle), ``load_checkpoint`` checks the JSON, the weights' header and their
SHA-256 before reading a tensor, and ``checkpoint_agent`` is the factory the arena calls for
``examples/selfplay_ppo.py:checkpoint_agent:path=DIR/final``.

>>> import tempfile
>>> base = Path(tempfile.mkdtemp()) / "final"
>>> save_checkpoint(ConvPolicy(4, channels=4, blocks=1), base)
>>> net = load_checkpoint(str(base))
>>> net.size, net.channels, net.blocks
(4, 4, 1)
>>> greedy_policy(net)(np.zeros((1, 9, 4, 4), np.int8), np.ones((1, 16 * 8 * 3), bool)).shape
(1,)
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Optional

import numpy as np
import torch
from torch import nn

from agents.policy_agent import PolicyAgent

__all__ = ["ConvPolicy", "masked", "greedy_policy", "save_checkpoint", "load_checkpoint", "checkpoint_agent"]


class ConvPolicy(nn.Module):
    """A conv trunk; the policy head gives 8 x (N-1) queen-line logits per square (the
    ``"lines"`` encoding's order), the value head a tanh value for the side to move."""

    def __init__(self, size: int, channels: int = 32, blocks: int = 3) -> None:
        super().__init__()
        self.size, self.channels, self.blocks = size, channels, blocks
        layers: list[nn.Module] = [nn.Conv2d(9, channels, 3, padding=1), nn.ReLU()]
        for _ in range(blocks - 1):
            layers += [nn.Conv2d(channels, channels, 3, padding=1), nn.ReLU()]
        self.trunk = nn.Sequential(*layers)
        self.policy = nn.Conv2d(channels, 8 * (size - 1), 1)
        self.value = nn.Sequential(
            nn.Flatten(), nn.Linear(channels * size * size, 64), nn.ReLU(), nn.Linear(64, 1), nn.Tanh()
        )

    def forward(self, planes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.trunk(planes.float())
        # [B, 8(N-1), rank, file] -> [B, rank, file, 8(N-1)]: action (square * 8 + d) * (N-1) + dist - 1
        logits = self.policy(h).permute(0, 2, 3, 1).reshape(len(planes), -1)
        return logits, self.value(h).squeeze(-1)


def masked(logits: torch.Tensor, mask: torch.Tensor) -> torch.distributions.Categorical:
    return torch.distributions.Categorical(logits=logits.masked_fill(~mask, -1e9))


def greedy_policy(net: ConvPolicy):
    """The net as a batched policy (numpy in, numpy out): the most likely legal action."""

    def policy(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            logits, _ = net(torch.from_numpy(np.ascontiguousarray(obs)))
            return logits.masked_fill(~torch.from_numpy(mask.astype(bool)), -1e9).argmax(1).numpy()

    return policy


# -- checkpoints: safetensors + JSON with the weights' SHA-256 ---------------------------------------


def save_checkpoint(net: ConvPolicy, base: Path) -> None:
    from safetensors.torch import save_file

    weights = base.with_suffix(".safetensors")
    save_file({k: v.contiguous() for k, v in net.state_dict().items()}, str(weights))
    config = {
        "format_version": 1,
        "size": net.size,
        "channels": net.channels,
        "blocks": net.blocks,
        "weights_sha256": hashlib.sha256(weights.read_bytes()).hexdigest(),
    }
    base.with_suffix(".json").write_text(json.dumps(config, indent=2) + "\n")


def load_checkpoint(path: str) -> ConvPolicy:
    """The net saved at ``path`` (base name); the config is checked, then the weights' header
    against the net it describes, then their SHA-256, before any tensor is read."""
    from safetensors.torch import load

    from agents.nets.safefiles import ModelFileError, checked_path, file_sha256, read_header, read_json

    base = checked_path(path, "PPO checkpoint")
    config = read_json(
        base.with_suffix(".json"), "PPO checkpoint config", 1, ("size", "channels", "blocks", "weights_sha256")
    )
    limits = {"size": (4, 12), "channels": (1, 512), "blocks": (1, 32)}
    for key, (low, high) in limits.items():
        value = config[key]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ModelFileError(f"PPO checkpoint config {base}.json: {key}={str(value)[:40]} is not in {low}..{high}")
    net = ConvPolicy(config["size"], config["channels"], config["blocks"])
    weights = base.with_suffix(".safetensors")
    read_header(
        weights,
        "PPO checkpoint weights",
        {name: ("float32", list(t.shape)) for name, t in net.state_dict().items()},
        limit=1 << 30,
    )
    if file_sha256(weights) != config["weights_sha256"]:
        raise ModelFileError(f"PPO checkpoint weights {weights} do not match the SHA-256 in {base}.json")
    net.load_state_dict(load(weights.read_bytes()))
    return net.eval()


def checkpoint_agent(path: str, seed: Optional[int] = None) -> PolicyAgent:
    """The arena factory: ``examples/selfplay_ppo.py:checkpoint_agent:path=DIR/final``."""
    net = load_checkpoint(path)
    return PolicyAgent(greedy_policy(net), net.size, action_encoding="lines", name=f"ppo:{path}", seed=seed)
