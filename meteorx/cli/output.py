"""Where a command's output goes: output files checked before any work
(:func:`check_writable`) and written with their name in any error (:func:`write_file`),
standard output and error guarded for the command's duration
(:func:`standard_streams`), and a failed write to standard output reported in one line
(:func:`stdout_failed`)."""

from __future__ import annotations

import contextlib
import errno
import io
import os
import sys
from collections.abc import Iterator
from typing import Any

__all__ = [
    "ClosedStdout",
    "SafeStderr",
    "check_writable",
    "is_stdout_failure",
    "standard_streams",
    "stdout_failed",
    "write_file",
]


def check_writable(*paths: str | None) -> None:
    """Fail before any work if an output file cannot be created: its folder must exist
    and be writable, and an existing path must be a writable file. ``None`` and ``-``
    (standard output) are skipped."""
    from meteorx.errors import OutputError

    for path in paths:
        if path is None or path == "-":
            continue
        folder = os.path.dirname(path) or "."
        if os.path.isdir(path):
            raise OutputError(f"cannot write {path}: it is a directory")
        if not os.path.isdir(folder):
            raise OutputError(f"cannot write {path}: no folder {folder}")
        if os.path.exists(path):
            if not os.access(path, os.W_OK):
                raise OutputError(f"cannot write {path}: permission denied")
        elif not os.access(folder, os.W_OK):
            raise OutputError(f"cannot write {path}: the folder {folder} is not writable")


def write_file(path: str, text: str) -> None:
    """Write ``text`` to ``path`` (UTF-8); a failure (a full disk, a folder gone since
    :func:`check_writable`) is one :class:`~meteorx.errors.OutputError` naming the file."""
    from pathlib import Path

    from meteorx.errors import output_error

    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as error:
        raise output_error(path, error) from None


class ClosedStdout(io.TextIOBase):
    """Stands in for ``sys.stdout`` when the process started with standard output
    closed: the first write fails like a write to a closed descriptor would."""

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, "standard output is closed")


class SafeStderr(io.TextIOBase):
    """Stands in for ``sys.stderr`` during a command: messages are a courtesy, so a
    standard error that is closed (``2>&-``: ``None``), a closed pipe or a bad
    descriptor never changes the run. The first failed write points descriptor 2 at
    the null device (nothing left buffered can fail at exit) and later ones are dropped.
    """

    def __init__(self, target: Any) -> None:
        super().__init__()
        self._target = target

    def write(self, text: str) -> int:
        if self._target is not None:
            try:
                self._target.write(text)
            except (OSError, ValueError):
                self._drop()
        return len(text)

    def flush(self) -> None:
        if self._target is not None:
            try:
                self._target.flush()
            except (OSError, ValueError):
                self._drop()

    def isatty(self) -> bool:
        try:
            return self._target is not None and bool(self._target.isatty())
        except (OSError, ValueError):
            return False

    def fileno(self) -> int:
        if self._target is None:
            raise io.UnsupportedOperation("standard error is closed")
        return int(self._target.fileno())

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return str(getattr(self._target, "encoding", None) or "utf-8")

    def _drop(self) -> None:
        with contextlib.suppress(OSError, ValueError, AttributeError, io.UnsupportedOperation):
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, self._target.fileno())
            os.close(null)
        self._target = None


@contextlib.contextmanager
def standard_streams() -> Iterator[None]:
    """Standard output and error as a command needs them, for its duration.

    Standard output is UTF-8, whatever the locale or ``PYTHONIOENCODING`` say: inputs
    are UTF-8 and outputs are read by programs (a character the text cannot hold,
    such as an undecodable file name, is written as a backslash escape). Standard
    error is a :class:`SafeStderr`. Standard output closed at start-up is a
    :class:`ClosedStdout` (its first write is the error).
    """
    if sys.stdout is None:
        sys.stdout = ClosedStdout()
    elif isinstance(sys.stdout, io.TextIOWrapper):
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.reconfigure(encoding="utf-8", errors="backslashreplace")
    original = sys.stderr
    sys.stderr = SafeStderr(original)
    try:
        yield
    finally:
        sys.stderr = original


#: Errors a write to standard output gives (closed pipe, full disk, closed or bad fd).
_STDOUT_ERRNOS = {errno.EPIPE, errno.ENOSPC, errno.EIO, errno.EBADF, errno.EDQUOT, errno.EFBIG}


def is_stdout_failure(error: OSError) -> bool:
    """Whether ``error`` is a failed write to standard output (files opened by meteorx
    report their own failures with the file's name, as :class:`OutputError`)."""
    return error.errno in _STDOUT_ERRNOS and error.filename is None


def stdout_failed(error: OSError) -> int:
    """Report a failed write to standard output; the exit code to return.

    A closed pipe (``meteorx score ... | head``) is the reader's choice: exit 0
    silently. Anything else (disk full, closed descriptor) is one line on stderr and
    exit 2. Standard output is then pointed at the null device, so that the
    interpreter's final flush cannot print a traceback.
    """
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        pass
    if error.errno == errno.EPIPE:
        return 0
    if sys.stderr is not None:
        with contextlib.suppress(OSError):
            print(
                f"meteorx: error: cannot write to standard output: {error.strerror or error}",
                file=sys.stderr,
            )
    return 2
