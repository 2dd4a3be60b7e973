"""Loading a resource from its cache file, or building it and storing it.

A cache file that does not verify, cannot be read or that the resource's decoder
rejects is rebuilt, with one :class:`~meteorx.cache.CacheWarning` per file and process:
a cache never changes a score and never stops a run. A slow first build is announced
(:func:`compiling`).
"""

from __future__ import annotations

import contextlib
import gc
import logging
import os
import threading
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from meteorx.cache.errors import CacheError, CacheWarning
from meteorx.cache.folder import cache_path
from meteorx.cache.layout import CacheFile, Record, Writer, parse
from meteorx.cache.private_files import read_private, replacing

__all__ = [
    "NOTICE_AFTER_SECONDS",
    "cached",
    "compiling",
    "load",
    "read",
    "warn_once",
    "write",
]

_T = TypeVar("_T")


def write(target: Path, kind: str, source: str, record: Record) -> None:
    """Write ``record`` as the cache file ``target`` (atomically).

    :raises OSError: the folder is not writable.
    """
    with replacing(target) as handle:
        writer = Writer(handle)
        for name, data in record.sections.items():
            writer.section(name, data)
        writer.finish(kind, source, record.meta)


def read(path: Path, kind: str, source: str) -> CacheFile:
    """Read and verify the cache file ``path`` (see :func:`parse`).

    :raises FileNotFoundError: there is none.
    :raises CacheError: it cannot be used (why, in a few words).
    :raises OSError: it cannot be read.
    """
    return parse(read_private(path), kind, source)


_WARNED: set[str] = set()


def warn_once(path: Path, reason: str, action: str = "rebuilding it") -> None:
    """One :class:`CacheWarning` per path and process."""
    key = os.fspath(path)
    if key not in _WARNED:
        _WARNED.add(key)
        warnings.warn(f"cache file {path} {reason}; {action}", CacheWarning, stacklevel=3)


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Decoding makes many small containers at once: collecting them while doing so only
    costs time (a third of an OMW index's decoding)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def load(target: Path, kind: str, source: str, decode: Callable[[CacheFile], _T]) -> _T | None:
    """``decode`` of the verified cache file ``target``, or ``None`` if there is none or
    it cannot be used: unreadable, not verifying (:func:`read`) or rejected by ``decode``
    (one warning; the caller rebuilds it)."""
    try:
        with _gc_paused():
            return decode(read(target, kind, source))
    except FileNotFoundError:
        pass
    except CacheError as error:
        warn_once(target, str(error))
    except OSError as error:
        warn_once(target, f"cannot be read ({error.strerror or error})")
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError) as error:
        warn_once(target, f"cannot be decoded ({type(error).__name__})")
    return None


#: A compilation lasting longer than this is announced (quick ones stay silent).
NOTICE_AFTER_SECONDS = 1.0
_ANNOUNCED = threading.Event()


@contextlib.contextmanager
def compiling(target: Path) -> Iterator[None]:
    """Around compiling a resource into the cache file ``target``: once per process, if
    it lasts over :data:`NOTICE_AFTER_SECONDS`, say so at INFO on the ``meteorx``
    logger (the command line shows it on stderr), since the first run of the English
    default compiles for seconds and would otherwise look hung."""

    def announce() -> None:
        if not _ANNOUNCED.is_set():
            _ANNOUNCED.set()
            logging.getLogger("meteorx").info(
                "building the resource cache once (a few seconds; later runs load it from %s)",
                target.parent.parent,
            )

    timer = threading.Timer(NOTICE_AFTER_SECONDS, announce)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        timer.join()  # no thread left running when --jobs forks its workers


def cached(
    kind: str,
    source: str,
    build: Callable[[], Record],
    decode: Callable[[Record], _T],
) -> tuple[_T, Path | None, bool]:
    """Load ``kind``'s cache file for ``source``, or build it and store it.

    :param kind: a subfolder per resource type and format version ("wordnet-v3").
    :param source: identifies the source (its checksum, or path, size, mtime and
        version); stored in the file and compared on load.
    :param build: compiles the resource into a :class:`Record`.
    :param decode: turns a record (built or read) into the object used; a cached and
        a freshly built resource go through the same ``decode``.
    :returns: ``(object, cache file or None, loaded_from_cache)``. A file that does
        not verify, or that ``decode`` rejects, is rebuilt (one warning); an unusable
        or unwritable cache folder is not an error.
    """
    target = cache_path(kind, source)
    if target is not None:
        value = load(target, kind, source, lambda file: decode(file.record()))
        if value is not None:
            return value, target, True
    with compiling(target) if target is not None else contextlib.nullcontext():
        record = build()
        with _gc_paused():
            value = decode(record)
        if target is not None:
            try:
                write(target, kind, source, record)
            except OSError:
                target = None
    return value, target, False
