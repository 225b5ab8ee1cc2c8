"""Fixtures of the agents' tests."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def net_path(tmp_path_factory, small_net):
    """``small_net`` (tests/conftest.py) for 6x6 boards, saved once per test module: its model path."""
    from agents.nets.export import save_model

    return str(save_model(small_net, tmp_path_factory.mktemp("pvnet") / "pv", board_size=6))
