"""agents.nets: the nets an agent plays with, and their files.

* ``agents.nets.models``: the architectures (``StudyCNN``, ``ResValueNet``, ``PolicyValueNet``), needs torch;
* ``agents.nets.policy_value``: what the policy-value net's outputs mean (moves to logits, symmetries);
* ``agents.nets.export``: safe model files (safetensors + JSON, no pickle), needs torch and safetensors;
* ``agents.nets.planes``: the input planes, built in numba from the rules core's arrays;
* ``agents.nets.inference``: a loaded net run for search (``PVNet``, ``ValueNet``), ONNX Runtime
  through ``agents.nets.onnx_runtime`` when installed;
* ``agents.nets.store``: the committed weights by name, model files by path, one cache per process;
* ``agents/nets/weights/``: the committed weights (package data).

``training`` builds on this package (it trains and exports these nets); nothing here imports
``training``. torch and safetensors come with the ``nn`` extra (``pip install "amazons[nn]"``);
where they are missing, ``require_torch`` says so in one line instead of a traceback.

>>> require_torch("the uct-net agent")  # torch is installed here: nothing happens
"""

from __future__ import annotations

from amazons_env.errors import AmazonsError

__all__ = ["TorchMissingError", "require_torch", "INSTALL_NN"]

INSTALL_NN = (
    'pip install "amazons[nn]" (on Linux, for the CPU-only build of torch, first: '
    "pip install torch --index-url https://download.pytorch.org/whl/cpu)"
)


class TorchMissingError(ImportError, AmazonsError):
    """torch or safetensors is not installed. An input error too (``AmazonsError``): the caller
    asked for what this installation lacks, and installing the extra fixes it, so the command
    line prints its one line like any other refused input."""


def require_torch(what: str) -> None:
    """Raise ``TorchMissingError`` naming ``what`` (e.g. ``"the uct-net agent"``) and the install
    command unless torch and safetensors import."""
    try:
        import safetensors  # noqa: F401
        import torch  # noqa: F401
    except ImportError as error:
        raise TorchMissingError(
            f"{what} needs torch and safetensors ({error}); install them with {INSTALL_NN}"
        ) from None
