"""Ctrl-C as at a terminal: a command line run in a process group of its own, interrupted once it
has started its work, must stop with one line, keep what it finished and leave no process behind."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from typing import Callable

import pytest

__all__ = ["ctrl_c", "terminal_sigint"]


def terminal_sigint() -> None:
    """In the child: Ctrl-C as at a terminal, even when the tests run in a background job (which
    starts with SIGINT ignored, and Python then installs no KeyboardInterrupt handler)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def ctrl_c(command: list[str], started: Callable[[], bool], name: str) -> str:
    """Run ``command`` (``amazons NAME ...``) in a session of its own, wait until ``started()`` is
    true or it ends (two minutes at most), send SIGINT to its process group as a terminal's Ctrl-C
    does, and check that it exits with 130 and ``amazons NAME: interrupted`` as its last line, no
    traceback, and that no process of its group outlives it. Returns its standard error."""
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=terminal_sigint,
    )
    for _ in range(1200):
        if started() or process.poll() is not None:
            break
        time.sleep(0.1)
    os.killpg(process.pid, signal.SIGINT)  # the whole process group, as a terminal's Ctrl-C
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130 and err.strip().splitlines()[-1] == f"amazons {name}: interrupted", err
    assert "Traceback" not in err
    for _ in range(100):  # the workers are gone too
        try:
            os.killpg(process.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"a process of amazons {name} outlived it")
    return err
