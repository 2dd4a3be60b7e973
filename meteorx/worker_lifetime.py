"""Signals and a worker process's lifetime: workers end with the process that started
them, leave Ctrl-C to it, and a worker's death is told by the signal's name.

Used in the workers of :class:`meteorx.worker_pool.WorkerPool`, right after they start.
"""

from __future__ import annotations

import os
import signal
import sys

__all__ = ["exit_with_parent", "leave_signals_to_parent", "signal_name"]

_PR_SET_PDEATHSIG = 1  # from <sys/prctl.h>
_USE_PDEATHSIG = sys.platform.startswith("linux")  # off: the pipe's end only (tests)


def exit_with_parent(parent: int) -> None:  # pragma: no cover - in the worker
    """Have the kernel kill this process when its parent dies (Linux), and leave at
    once if that has already happened."""
    if _USE_PDEATHSIG:
        import ctypes

        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass  # the end of the task pipe still stops this process
    if os.getppid() != parent:
        os._exit(0)


def leave_signals_to_parent() -> None:  # pragma: no cover - in the worker
    """Ignore Ctrl-C (the parent stops its workers) and end on SIGTERM, whatever
    handler the parent had set when it forked this process."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def signal_name(number: int) -> str:
    """``SIGKILL`` for 9; ``signal N`` for a number the platform does not name."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
