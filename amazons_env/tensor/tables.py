"""Per-size lookup tables of the torch rules, built once per (size, device).

``rays[sq, d, k]`` is the square ``k + 1`` steps from public square ``sq`` along
``DIRECTIONS[d]`` (the queen-line order of ``amazons_env.envs.actions``), or ``N*N`` past the
edge. Row ``N*N`` (a padding source, see ``reach``) is all ``N*N``. Gathering a board's emptiness
padded with one ``False`` at index ``N*N`` along a ray therefore reads "blocked" off the board,
so no bounds check is needed anywhere.

``neighbours`` is ``rays[:, :, 0]`` (the eight adjacent squares). ``line_of_flat[a]`` is the
queen-line action of flat action ``a`` (-1 when ``a`` is not a queen line), the torch copy of
``line_tables``.

>>> t = tables(6, "cpu")
>>> t.rays.shape, int(t.rays[0, 0, 0]), int(t.rays[0, 4, 0])   # a1 north is a2; a1 south is off
(torch.Size([37, 8, 5]), 6, 36)
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import torch

from amazons_env.envs.actions import DIRECTIONS, line_tables
from amazons_env.squares import check_size

__all__ = ["Tables", "tables"]


class Tables(NamedTuple):
    """The lookup tables of one size on one device (read them, never write them)."""

    size: int
    rays: torch.Tensor  # int64 [N*N + 1, 8, N - 1]
    line_of_flat: torch.Tensor  # int64 [N**4]
    neighbours: torch.Tensor  # int64 [N*N + 1, 8]: rays[:, :, 0], contiguous


def _rays(n: int) -> np.ndarray:
    nn = n * n
    rays = np.full((nn + 1, 8, n - 1), nn, np.int64)
    for sq in range(nn):
        rank, file = divmod(sq, n)
        for d, (dr, df) in enumerate(DIRECTIONS):
            for k in range(n - 1):
                r, f = rank + dr * (k + 1), file + df * (k + 1)
                if 0 <= r < n and 0 <= f < n:
                    rays[sq, d, k] = r * n + f
    return rays


# a plain dict rather than functools.lru_cache: torch.compile reads a hit as constants
_CACHE: dict[tuple[int, torch.device], Tables] = {}


def tables(size: int, device: torch.device | str | None = None) -> Tables:
    """The tables of ``size`` on ``device`` (default CPU), cached."""
    key = (size, torch.device("cpu" if device is None else device))
    found = _CACHE.get(key)
    if found is None:
        n = check_size(size)
        rays = torch.from_numpy(_rays(n)).to(key[1])
        line_of_flat = torch.from_numpy(line_tables(n)[1].copy()).to(key[1])
        found = _CACHE[key] = Tables(n, rays, line_of_flat, rays[:, :, 0].contiguous())
    return found
