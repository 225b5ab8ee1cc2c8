"""Fixtures of the agents' tests."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def net_path(tmp_path_factory):
    """A small random policy-value net for 6x6 boards, saved once per test module: its model path."""
    import torch

    from agents.nets.export import save_model
    from agents.nets.policy_value import PolicyValueNet

    torch.manual_seed(0)
    return str(
        save_model(
            PolicyValueNet(channels=8, blocks=1, head=4, hidden=8),
            tmp_path_factory.mktemp("pvnet") / "pv",
            board_size=6,
        )
    )
