"""``read_header`` with a tensor of any dtype (``None`` in ``expected``): a crafted header's dtype,
whatever JSON it is, is refused with ``ModelFileError``, never a ``TypeError``."""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import pytest

from agents.nets.safefiles import ModelFileError, read_header


def _safetensors(path: Path, dtype: Any, width: int) -> Path:
    header = json.dumps({"w": {"dtype": dtype, "shape": [2], "data_offsets": [0, 2 * width]}}).encode()
    path.write_bytes(struct.pack("<Q", len(header)) + header + b"\0" * (2 * width))
    return path


@pytest.mark.parametrize("dtype, width", [("F64", 8), ("U8", 1), ("BOOL", 1)])
def test_any_listed_dtype_is_taken(tmp_path, dtype, width):
    path = _safetensors(tmp_path / "w.safetensors", dtype, width)
    assert read_header(path, "state", {"w": (None, [2])}, 1 << 20) == {}


@pytest.mark.parametrize("dtype", [["F32"], {"F32": 4}, None, 4, "F128"])
def test_a_dtype_that_is_no_listed_name_is_refused(tmp_path, dtype):
    path = _safetensors(tmp_path / "w.safetensors", dtype, 4)
    with pytest.raises(ModelFileError, match=r"tensor w is not F32\[2\]"):
        read_header(path, "state", {"w": (None, [2])}, 1 << 20)
