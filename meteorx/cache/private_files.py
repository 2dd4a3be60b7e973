"""Cache files on disk: read only when private and regular, replaced atomically.

A file is read into memory whole (:func:`read_private`) and verified there, so nothing
another process does to it afterwards (truncating it, rewriting it) can reach the run.
It is written to a new private (0600) file that then replaces it (:func:`replacing`),
never written or read through a symbolic link, and must belong to the current user.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from meteorx.cache.errors import CacheError
from meteorx.cache.layout import SUFFIX

__all__ = ["MAX_FILE_BYTES", "read_private", "replacing"]

#: No cache file meteorx writes comes near this (the English paraphrase table's is
#: 107 MB); a larger file (a sparse one, say) is refused before any byte is read.
MAX_FILE_BYTES = 4 << 30


@contextlib.contextmanager
def replacing(target: Path) -> Iterator[IO[bytes]]:
    """A new private (0600) file next to ``target`` that replaces it if the block
    succeeds (``os.replace``: a symbolic link at ``target`` is replaced, not followed)
    and is deleted otherwise."""
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=SUFFIX)
    try:
        with os.fdopen(fd, "w+b") as handle:
            yield handle
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _check_file(info: os.stat_result) -> None:
    if stat.S_ISLNK(info.st_mode):
        raise CacheError("is a symbolic link")
    if not stat.S_ISREG(info.st_mode):
        raise CacheError("is not a regular file")
    if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
        raise CacheError("belongs to another user")
    if info.st_size > MAX_FILE_BYTES:
        raise CacheError(f"is larger than any cache file ({info.st_size} bytes)")


def read_private(path: Path) -> bytes:
    """The bytes of ``path``, a regular file (not a symbolic link) of the current user.

    Its type and size are checked before it is opened (a FIFO or a device is never
    opened, a huge sparse file never read), and again on the open file, which is opened
    non-blocking and without following links so that nothing swapped in meanwhile can
    hang the run.

    :raises CacheError: it is a symbolic link, not a regular file, someone else's, or
        larger than :data:`MAX_FILE_BYTES`.
    :raises OSError: it cannot be read (:class:`FileNotFoundError`: there is none).
    """
    _check_file(os.lstat(path))
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_NONBLOCK", 0))
    except OSError as error:
        if os.path.islink(path):
            raise CacheError("is a symbolic link") from None
        raise error
    with open(fd, "rb", buffering=0) as handle:
        _check_file(os.fstat(handle.fileno()))
        try:
            return handle.readall()
        except MemoryError:
            raise CacheError("is too large to read into memory") from None
