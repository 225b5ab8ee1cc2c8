"""The process of an external engine (``agents.protocols.uci_client``): its start, its pipes
and its end.

**Every wait has a deadline, every child dies with the engine.** The engine runs in a process
group of its own (a new session), and ending it (``quit``, a second to leave, then ``SIGKILL``)
kills the whole group, so that a wrapper script that does not ``exec`` the engine, or an engine
that forks, leaves no process behind. Its output is read by threads that put lines (cut at
``MAX_LINE`` characters) on a queue, and every read of the queue has a deadline; a pipe is
closed only by the thread that reads it, once the group is gone, never under a blocked read.
The handshake (``uci`` to ``uciok``, ``isready`` to ``readyok``) has ``handshake`` seconds in
all, however many lines the engine prints meanwhile. A move not answered within ``time +
grace`` seconds gets a ``stop``; one second later the engine is killed. Each way an engine can
fail (it does not start, exits, hangs, floods, answers an illegal or malformed move) is an
``EngineError`` naming the engine, what it was asked, the last line it said and the last lines
of its stderr. An ``info`` line it garbles is ignored (it only informs).
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import threading
from typing import Any, Callable, Optional

__all__ = ["start", "terminate", "exit_note", "pump", "MAX_LINE", "QUEUED", "LEAVE_SECONDS"]

#: the longest line kept from an engine (a longer one is cut, its rest read as further lines)
MAX_LINE = 1 << 16
#: the most lines of an engine's output queued unread (past it, lines are dropped: a flood)
QUEUED = 10_000
#: seconds an engine is given to leave after ``quit`` before its process group is killed
LEAVE_SECONDS = 1.0


def start(argv: list[str], stderr: Callable[[str], Any]) -> "tuple[subprocess.Popen, queue.Queue[Optional[str]]]":
    """Start ``argv`` in a process group of its own and its reader threads: its output's lines
    go on the queue returned (``None`` at its end), its stderr's to ``stderr``. ``OSError`` if
    it cannot start."""
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        bufsize=1,
        errors="replace",  # an engine's bytes that are not UTF-8 are its fault, not a crash here
        start_new_session=True,  # a process group of its own, killed as one (module docstring)
    )
    lines: "queue.Queue[Optional[str]]" = queue.Queue(maxsize=QUEUED)

    def offer(line: Optional[str]) -> None:  # a flood is dropped past the queue's size, not kept
        try:
            lines.put(line, timeout=LEAVE_SECONDS)
        except queue.Full:
            pass

    # reader threads: a pipe read cannot time out, a queue can
    for stream, sink, end in ((proc.stdout, offer, True), (proc.stderr, stderr, False)):
        threading.Thread(target=pump, args=(stream, sink, end), daemon=True).start()
    return proc, lines


def exit_note(proc: subprocess.Popen) -> str:
    """How the engine's output ended: its exit code, or that it closed the pipe and lives on."""
    try:
        return f"exited (code {proc.wait(timeout=LEAVE_SECONDS)})"
    except subprocess.TimeoutExpired:
        return "closed its output"


def terminate(proc: subprocess.Popen) -> None:
    """End ``proc`` and its process group: ``quit``, a second to leave, then ``SIGKILL`` to the
    group (whatever it forked dies with it). Only our end of its input is closed here: the
    reader threads close the output pipes when they end, which the kill brings about."""
    stdin = proc.stdin
    assert stdin is not None  # ``start`` made the pipes
    if proc.poll() is None:
        try:
            stdin.write("quit\n")
            stdin.flush()
            proc.wait(timeout=LEAVE_SECONDS)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # the group outlives its leader if a child lingers
    except (ProcessLookupError, PermissionError):
        pass  # the group is gone already
    proc.wait()
    try:
        stdin.close()
    except (OSError, ValueError):
        pass  # the pipe broke: the engine had gone


def pump(stream: Any, sink: Any, end: bool) -> None:
    """Feed ``stream``'s lines (cut at ``MAX_LINE``) to ``sink`` (then ``None`` if ``end``), and
    close it at its end; a reader thread's body. It holds no reference to the agent, so the
    agent that started it can still be garbage collected."""
    try:
        while line := stream.readline(MAX_LINE):
            sink(line.rstrip("\r\n"))
    except (OSError, ValueError):
        pass  # the pipe broke: the engine is gone
    finally:
        stream.close()
    if end:
        sink(None)
