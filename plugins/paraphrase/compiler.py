"""Compiling a paraphrase table into its compiled form (the cache file scoring opens).

:func:`compile_table` reads the source table once and writes the cache file
:mod:`.compiled_file` describes. Compiling a sorted table (Meteor's are) works on whole
decompressed blocks at once with ``numpy`` (:mod:`.sorted_scan`: line ends, runs of
equal phrases and the paraphrase lines are found by array operations, not per line)
while a thread decompresses the next block (zlib, or ISA-L when the optional ``isal``
package is installed), so the English table compiles in about the time it takes to
decompress it. Other tables (unsorted, odd spacing, ``\\r`` line ends) take a slower
general path (:func:`_general`) with the same result.

This module imports :mod:`.text_format` (the reader), :mod:`.sorted_scan`,
:mod:`.key_index`, :mod:`.byte_arrays`, :mod:`.compiled_file` (the writer) and
:mod:`meteorx.errors`; :mod:`.table` opens what it writes.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import queue
import threading
import time
import zlib
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, TypeVar

from meteorx.errors import ResourceError
from meteorx_plugins.paraphrase.byte_arrays import gather
from meteorx_plugins.paraphrase.compiled_file import Builder, fingerprint
from meteorx_plugins.paraphrase.key_index import Regroup, index_any, run_order
from meteorx_plugins.paraphrase.sorted_scan import scan
from meteorx_plugins.paraphrase.text_format import clean_line, raw_blocks, record_lines

__all__ = ["compile_table"]

_T = TypeVar("_T")


def _threaded(items: Iterator[_T], name: str) -> Generator[_T, None, None]:
    """Run ``items`` in a thread of its own (zlib, hashlib and numpy's array loops release
    the GIL) while the caller works on what it has produced."""
    channel: queue.Queue[_T | BaseException | None] = queue.Queue(maxsize=8)
    stop = threading.Event()

    def produce() -> None:
        try:
            for item in items:
                if stop.is_set():
                    return
                channel.put(item)
            channel.put(None)
        except BaseException as error:  # handed over to the consumer
            channel.put(error)
        finally:
            close = getattr(items, "close", None)
            if close is not None:
                close()  # stops the threads feeding it, if any

    worker = threading.Thread(target=produce, name=f"meteorx-paraphrase-{name}", daemon=True)
    worker.start()
    try:
        while True:
            item = channel.get()
            if item is None:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        with contextlib.suppress(queue.Empty):
            while True:  # unblock a producer waiting on a full queue
                channel.get_nowait()
        worker.join(timeout=10)


def _general(chunks: Iterable[list[bytes]], builder: Builder) -> None:
    """Any table: group the blocks by (cleaned) phrase in memory, then write them."""
    groups: dict[str, list[bytes]] = {}
    for lines in chunks:
        builder.entries += len(lines) // 3
        for phrase, target in zip(lines[1::3], lines[2::3], strict=True):
            phrase = clean_line(phrase)
            target = clean_line(target)
            if phrase and target:
                groups.setdefault(phrase.decode("utf-8", "replace"), []).append(target)
    keys = sorted(groups, key=run_order)
    starts: list[int] = []
    parts: list[bytes] = []
    at = 0
    for key in keys:
        starts.append(at)
        text = b"\n".join(groups[key]) + b"\n"
        parts.append(text)
        at += len(text)
    builder.targets(b"".join(parts), starts)
    if keys:
        builder.keys(index_any(keys, 1))


@dataclass(frozen=True)
class _Compiled:
    meta: dict[str, Any]


def compile_table(
    path: str | os.PathLike[str], out: IO[bytes], key: str | None = None
) -> _Compiled:
    """Compile the table at ``path`` into ``out`` (a seekable binary file) as a cache
    file for source ``key`` (default: the table's :func:`.compiled_file.fingerprint`).

    :raises ResourceError: unreadable, truncated or empty table.
    """
    source = Path(path)
    if key is None:
        key = fingerprint(source)
    started = time.perf_counter()
    base = out.tell()
    builder = Builder(out, base)
    digest = hashlib.sha256()
    # three threads: decompress, scan (the array work), index (here)
    fast = _threaded(scan(_threaded(raw_blocks(source, digest), "inflate")), "scan")
    general: Generator[bytes, None, None] | None = None
    try:
        try:
            for scanned in fast:
                builder.entries += scanned.entries
                # the paraphrase lines are gathered here, in parallel with the scan
                targets, target_at = gather(
                    scanned.data, scanned.target_starts, scanned.target_lengths
                )
                builder.targets(targets, target_at[scanned.new])
                builder.keys(scanned.keys, scanned.extends_before)
        except Regroup:
            fast.close()
            builder = Builder(out, base)
            digest = hashlib.sha256()
            general = _threaded(raw_blocks(source, digest), "inflate")
            _general(record_lines(general), builder)
    except (OSError, zlib.error, EOFError) as error:
        raise ResourceError(f"cannot read paraphrase table {source}: {error}") from error
    finally:
        fast.close()
        if general is not None:
            general.close()
    if not builder.groups:
        raise ResourceError(f"paraphrase table {source} has no entries")
    return _Compiled(builder.finish(source, key, digest.hexdigest(), started))
