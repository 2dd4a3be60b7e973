"""Writing a paraphrase table's compiled form (the cache file scoring opens).

Compiled form
-------------
A table is compiled once into one cache file (:mod:`meteorx.cache`: data only, with a
digest checked on every load) under the user cache folder, subfolder ``paraphrase-v4``,
named after a fingerprint of the source (size, mtime, gzip trailer, first 64 KiB), which
its header also records. The file holds these sections:

* *targets*: the paraphrase lines, grouped by phrase (a phrase's paraphrases keep
  their file order), decoded only when a sentence needs them;
* *group offsets*: where each phrase's group of lines starts (``uint64``);
* *keys*: every phrase and every proper prefix of one (at word boundaries), sorted,
  one per line, with a ``uint64`` *value* each: ``group << 1 | more`` where ``group``
  numbers the phrase's paraphrase group from 1 (0 for a prefix that is no phrase) and
  ``more`` says that a longer phrase starts with this key, so a left-to-right walk
  over a sentence stops as soon as no phrase can continue (Meteor 1.5 walks a trie);
* a *directory* from each first word to its run of keys (the words, one per line, and
  ``uint64`` triples: where the run starts and ends in *keys*, and its first key's
  number), and metadata (in the header) including the SHA-256 of the source file.

Compiling a sorted table (Meteor's are) works on whole decompressed blocks at once
with ``numpy`` (line ends, runs of equal phrases and the paraphrase lines are found by
array operations, not per line) while a thread decompresses the next block (zlib, or
ISA-L when the optional ``isal`` package is installed), so the English table compiles
in about the time it takes to decompress it. Other tables (unsorted, odd spacing,
``\\r`` line ends) take a slower general path with the same result.

This module imports :mod:`.text_format` (the reader), :mod:`meteorx.cache` (the cache
file format) and :mod:`meteorx.errors`, plus ``numpy``; :mod:`.table` opens what it
writes.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import queue
import threading
import time
import zlib
from bisect import bisect_left
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from itertools import repeat
from operator import itemgetter, lshift, or_
from pathlib import Path
from typing import IO, Any, TypeVar

import numpy as np

from meteorx.cache import Writer
from meteorx.errors import ResourceError
from meteorx_plugins.paraphrase.text_format import (
    TRUNCATED_BLOCK,
    clean_line,
    raw_blocks,
    record_lines,
)

__all__ = ["CACHE_KIND", "FORMAT_VERSION", "SECTIONS", "compile_table", "fingerprint"]

#: Bump when the compiled layout changes (old cache files are then ignored).
FORMAT_VERSION = 4

#: The sections of a compiled table, in the order of the native matcher's layout.
SECTIONS = ("targets", "offsets", "keys", "values", "directory.words", "directory.runs")
#: The cache files' kind (:mod:`meteorx.cache`), also their folder's name.
CACHE_KIND = f"paraphrase-v{FORMAT_VERSION}"
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


class _Regroup(Exception):
    """The fast path cannot compile this table (unsorted, odd spacing, ``\\r`` line ends)."""


_PAD = b"\0" * 8  # after a buffer, so 8-byte reads never run past its end
#: ``_LOW_BYTES[n]`` keeps the first ``n`` bytes of a little-endian ``uint64``.
_LOW_BYTES = np.array([(1 << (8 * n)) - 1 for n in range(9)], dtype=np.uint64)


def _windows(buf: bytes) -> np.ndarray:
    """Every 8-byte window of ``buf`` (they overlap): gathers copy 8 bytes from anywhere."""
    return np.ndarray((len(buf) - 7,), dtype="V8", buffer=buf, strides=(1,))


def _same_as_previous(buf: bytes, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """For each line of ``buf`` (``starts``, ``lengths``): is it equal to the one before?

    Compares 8 bytes at a time, only the pairs of equal length still equal so far.
    ``buf`` ends with :data:`_PAD`.
    """
    same = np.zeros(len(starts), dtype=bool)
    pairs = np.flatnonzero(lengths[1:] == lengths[:-1]) + 1
    if not len(pairs):
        return same
    windows = _windows(buf)
    equal = np.ones(len(pairs), dtype=bool)
    alive = np.arange(len(pairs))
    left = starts[pairs]
    right = starts[pairs - 1]
    size = lengths[pairs]
    offset = 0
    while len(alive):
        x = windows[left + offset].view("<u8")
        y = windows[right + offset].view("<u8")
        differ = ((x ^ y) & _LOW_BYTES[np.minimum(size - offset, 8)]) != 0
        equal[alive[differ]] = False
        offset += 8
        going = ~differ & (size > offset)
        alive = alive[going]
        left = left[going]
        right = right[going]
        size = size[going]
    same[pairs] = equal
    return same


def _common_prefix(
    buf: bytes, left: np.ndarray, right: np.ndarray, limit: np.ndarray
) -> np.ndarray:
    """Length of the common prefix of the strings at ``left`` and ``right`` in ``buf``
    (at most ``limit`` bytes each), 8 bytes at a time. ``buf`` ends with :data:`_PAD`."""
    common = limit.copy()
    windows = _windows(buf)
    alive = np.flatnonzero(limit > 0)
    offset = 0
    while len(alive):
        rest = limit[alive] - offset
        x = windows[left[alive] + offset].view("<u8")
        y = windows[right[alive] + offset].view("<u8")
        diff = (x ^ y) & _LOW_BYTES[np.minimum(rest, 8)]
        hit = diff != 0
        if hit.any():
            d = diff[hit]
            lowest = (d & (~d + np.uint64(1))).astype(np.float64)  # lowest set bit, exact
            common[alive[hit]] = offset + (np.frexp(lowest)[1] - 1) // 8
        offset += 8
        alive = alive[~hit & (rest > 8)]
    return common


def _gather(data: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> tuple[bytes, np.ndarray]:
    """The byte ranges ``[start, start + length)`` of ``data`` end to end, and where each
    one starts in the result."""
    kind = np.int32 if len(data) < 1 << 31 else np.int64
    lengths = lengths.astype(kind)
    ends = np.cumsum(lengths, dtype=kind)
    at = ends - lengths
    if not len(ends) or not ends[-1]:
        return b"", at
    index = np.repeat(starts.astype(kind) - at, lengths)
    index += np.arange(int(ends[-1]), dtype=kind)
    return data.take(index).tobytes(), at


@dataclass(frozen=True)
class _Keys:
    """Index keys of whole first words, in key order: their text (one per line), their
    values, the one-word keys as ``(word, key number, byte offset)`` (a first word's
    keys start at its own), and the most words in a phrase."""

    text: bytes
    values: np.ndarray
    singles: list[tuple[str, int, int]]
    longest: int


def _index_sorted(
    phrases: bytes, starts: np.ndarray, lengths: np.ndarray, first_group: int, before: bytes | None
) -> tuple[_Keys, bool]:
    """Index the phrases of new groups (``\\n``-terminated in ``phrases``) of a table in
    byte order, with array operations; ``before`` is the phrase before them.

    In byte order, with no control character in a phrase, a phrase's prefix ``p`` (up to
    a space) is a key already iff the phrase before is ``p`` or starts with ``p + " "``,
    and a longer phrase starts with a phrase iff the next one does; both follow from
    the common prefix of neighbours. Returns the keys and whether a phrase starts with
    ``before + " "``. Raises :class:`_Regroup` if the order is not strictly increasing
    or the text is not UTF-8.
    """
    try:
        phrases.decode("utf-8")
    except UnicodeDecodeError:
        raise _Regroup from None
    n = len(starts)
    buf = phrases + _PAD
    data = np.frombuffer(buf, dtype=np.uint8)
    starts = starts.astype(np.int64)
    lengths = lengths.astype(np.int64)
    common = np.zeros(n, dtype=np.int64)  # with the phrase before
    before_len = np.full(n, -1, dtype=np.int64)
    if n > 1:
        before_len[1:] = lengths[:-1]
        common[1:] = _common_prefix(
            buf, starts[1:], starts[:-1], np.minimum(lengths[1:], lengths[:-1])
        )
        at = common[1:]  # the first byte that differs (a "\n" ends the shorter one)
        if not (data[starts[1:] + at] > data[starts[:-1] + at]).all():
            raise _Regroup
    extends_before = False
    if before is not None:
        first = phrases[: int(lengths[0])]
        if not before < first:
            raise _Regroup
        common[0] = next(
            (i for i, (a, b) in enumerate(zip(before, first, strict=False)) if a != b),
            min(len(before), len(first)),
        )
        before_len[0] = len(before)
        extends_before = common[0] == len(before) and first[len(before) :].startswith(b" ")
    more = np.zeros(n, dtype=bool)
    if n > 1:
        shorter = np.minimum(lengths[:-1], lengths[1:])
        more[:-1] = (common[1:] == lengths[:-1]) & (data[starts[1:] + shorter] == 32)
    # prefixes that are no key yet: at the spaces past the common prefix
    spaces = np.flatnonzero(data[: -len(_PAD)] == 32)
    owner = np.searchsorted(starts, spaces, side="right") - 1
    cut = spaces - starts[owner]
    shared = common[owner]
    missing = (cut >= shared) & ~((cut == shared) & (before_len[owner] == shared))
    first_space = np.searchsorted(spaces, starts)  # index in spaces of each phrase's first
    words = np.searchsorted(spaces, starts + lengths) - first_space + 1
    lone = np.flatnonzero(words == 1)  # one-word phrases
    values = (np.arange(first_group, first_group + n, dtype=np.uint64) << np.uint64(1)) | more
    singles: list[tuple[int, int, bytes]] = []  # (key number, byte offset, word)
    if missing.any():
        owners = owner[missing]
        ends = spaces[missing]
        heads = starts[owners]
        sizes = ends - heads + 1
        shift = np.cumsum(sizes)  # bytes inserted up to each new prefix (included)
        pieces: list[bytes] = []
        done = 0
        for head, end in zip(heads.tolist(), ends.tolist(), strict=True):
            pieces += (phrases[done:head], phrases[head:end], b"\n")
            done = head
        pieces.append(phrases[done:])
        text = b"".join(pieces)
        values = np.insert(values, owners, np.uint64(1))
        # one-word prefixes: at a phrase's first space
        solo = np.flatnonzero(spaces[first_space[owners].clip(max=len(spaces) - 1)] == ends)
        for k in solo.tolist():
            head = int(heads[k])
            singles.append(
                (int(owners[k]) + k, head + int(shift[k] - sizes[k]), phrases[head : int(ends[k])])
            )
        before_count = np.searchsorted(owners, lone, side="right")
        lone_shift = np.concatenate(([0], shift))[before_count]
        lone_number = lone + before_count
    else:
        text = phrases
        lone_shift = np.zeros(len(lone), dtype=np.int64)
        lone_number = lone
    for i, number, offset in zip(
        lone.tolist(), lone_number.tolist(), (starts[lone] + lone_shift).tolist(), strict=True
    ):
        head = int(starts[i])
        singles.append((number, offset, phrases[head : head + int(lengths[i])]))
    singles.sort()
    decoded = [(word.decode("utf-8"), number, offset) for number, offset, word in singles]
    return _Keys(text, values, decoded, int(words.max())), bool(extends_before)


def _run_order(key: str) -> tuple[str, str]:
    """Sort key keeping the keys of one first word together (a control character can
    sort a word like ``a\\x01`` between ``a`` and ``a b`` in plain order)."""
    first, _, rest = key.partition(" ")
    return first, rest


def _index_any(keys: list[str], first_group: int) -> _Keys:
    """Index phrases given in :func:`_run_order` (the general path; plain Python)."""
    head = itemgetter(0)
    parents = set(map(head, map(str.rpartition, keys, repeat(" "))))
    parents.discard("")
    known = set(keys)
    missing = parents - known
    extra: set[str] = set()  # prefixes that are no phrase
    while missing:
        extra |= missing
        up = set(map(head, map(str.rpartition, missing, repeat(" "))))
        up.discard("")
        parents |= up
        missing = up - known - extra
    numbers = range(first_group, first_group + len(keys))
    values = list(map(or_, map(lshift, numbers, repeat(1)), map(parents.__contains__, keys)))
    longest = 1 + max(map(str.count, keys, repeat(" ")))
    merged_keys: list[str] = []
    merged_values: list[int] = []
    at = 0
    for prefix in sorted(extra, key=_run_order):
        i = bisect_left(keys, _run_order(prefix), at, key=_run_order)
        merged_keys += keys[at:i]
        merged_values += values[at:i]
        merged_keys.append(prefix)
        merged_values.append(1)
        at = i
    merged_keys += keys[at:]
    merged_values += values[at:]
    singles: list[tuple[str, int, int]] = []
    offset = 0
    lines: list[bytes] = []
    for number, key in enumerate(merged_keys):
        line = key.encode("utf-8") + b"\n"
        if " " not in key:
            singles.append((key, number, offset))
        lines.append(line)
        offset += len(line)
    return _Keys(b"".join(lines), np.array(merged_values, dtype=np.uint64), singles, longest)


class _Builder:
    """Writes a compiled table: paraphrase lines as they come, the key index at the end."""

    def __init__(self, out: IO[bytes], base: int) -> None:
        out.seek(base)
        out.truncate()
        self.writer = Writer(out)
        self.writer.begin("targets")
        self.targets_len = 0
        self.offsets: list[np.ndarray] = []  # start of each group in the targets
        self.groups = 0
        self.entries = 0
        self.longest = 0
        self.key_texts: list[bytes] = []
        self.key_bytes = 0
        self.values: list[np.ndarray] = []
        self.key_count = 0
        self.singles: list[tuple[str, int, int]] = []

    def targets(self, data: bytes, starts: np.ndarray | list[int]) -> None:
        """Paraphrase lines (``\\n``-terminated) and where new groups start in them."""
        self.writer.write(data)
        self.offsets.append(np.asarray(starts, dtype=np.uint64) + np.uint64(self.targets_len))
        self.targets_len += len(data)
        self.groups += len(starts)

    def keys(self, keys: _Keys, extends_before: bool = False) -> None:
        """The next keys; ``extends_before``: a longer phrase starts with the last key so far."""
        if extends_before:
            self.values[-1][-1] |= np.uint64(1)
        if not len(keys.values):
            return
        self.singles += [
            (word, number + self.key_count, offset + self.key_bytes)
            for word, number, offset in keys.singles
        ]
        self.key_texts.append(keys.text)
        self.key_bytes += len(keys.text)
        self.values.append(keys.values)
        self.key_count += len(keys.values)
        self.longest = max(self.longest, keys.longest)

    def finish(self, source: Path, key: str, sha256: str, started: float) -> dict[str, Any]:
        """Write the index sections, the header and the digest."""
        writer = self.writer
        writer.end()
        ends = np.array([self.targets_len], dtype=np.uint64)
        writer.section("offsets", np.concatenate([*self.offsets, ends]).astype(np.uint64))
        writer.section("keys", b"".join(self.key_texts))
        writer.section("values", np.concatenate([*self.values, np.zeros(0, np.uint64)]))
        # a first word's keys run from its own key to the next one-word key (a word in
        # several runs cannot happen in key order; it is listed once per run)
        singles = self.singles
        runs = np.array(
            [
                (offset, following - 1, number)
                for (_, number, offset), (_, _, following) in zip(
                    singles, [*singles[1:], ("", 0, self.key_bytes)], strict=True
                )
            ],
            dtype=np.uint64,
        ).reshape(-1, 3)
        writer.section("directory.words", "\n".join(word for word, _, _ in singles).encode())
        writer.section("directory.runs", runs)
        meta = {
            "format": FORMAT_VERSION,
            "source": os.fspath(source),
            "sha256": sha256,
            "entries": self.entries,
            "phrases": self.groups,
            "keys": self.key_count,
            "first_words": len(set(word for word, _, _ in singles)),
            "max_phrase_words": self.longest,
            "compile_seconds": round(time.perf_counter() - started, 3),
        }
        writer.finish(CACHE_KIND, key, meta)
        return meta


@dataclass(frozen=True)
class _Scanned:
    """What the fast path finds in a decompressed block's whole 3-line blocks: how many,
    where their paraphrase lines are in ``data`` (with the line end), which blocks start
    a new phrase's group, the keys of the new phrases, and whether a longer phrase starts
    with the last phrase before them."""

    entries: int
    data: np.ndarray
    target_starts: np.ndarray
    target_lengths: np.ndarray
    new: np.ndarray
    keys: _Keys
    extends_before: bool


def _scan_block(
    buf: bytes, last: bytes | None, first_group: int
) -> tuple[_Scanned | None, int, bytes | None]:
    """Scan the whole 3-line blocks of ``buf`` (which ends with :data:`_PAD`); ``last``
    is the phrase of the block before them, ``first_group`` the number of the next new
    group. Returns what was found, the bytes used and the last phrase."""
    before = last
    data = np.frombuffer(buf, dtype=np.uint8)
    ends = np.flatnonzero(data[: -len(_PAD)] == 10)
    blocks = len(ends) // 3
    if not blocks:
        return None, 0, last
    ends = ends[: 3 * blocks]
    phrase_start = ends[0::3] + 1
    phrase_end = ends[1::3]
    target_end = ends[2::3]
    lengths = phrase_end - phrase_start
    same = _same_as_previous(buf, phrase_start, lengths)
    same[0] = buf[int(phrase_start[0]) : int(phrase_end[0])] == last
    new = np.flatnonzero(~same)
    used = int(target_end[-1]) + 1
    last = buf[int(phrase_start[-1]) : int(phrase_end[-1])]
    found = partial(_Scanned, blocks, data, phrase_end + 1, target_end - phrase_end, new)
    if not len(new):
        return found(_Keys(b"", np.zeros(0, np.uint64), [], 0), False), used, last
    phrases, phrase_at = _gather(data, phrase_start[new], lengths[new] + 1)
    if (
        np.count_nonzero(np.frombuffer(phrases, dtype=np.uint8) < 32) != len(new)
        or b"  " in phrases
        or b" \n" in phrases
        or b"\n " in phrases
        or phrases.startswith(b" ")
    ):
        raise _Regroup  # odd spacing or control characters in a phrase
    keys, extends_before = _index_sorted(phrases, phrase_at, lengths[new], first_group, before)
    return found(keys, extends_before), used, last


def _scan(blocks: Iterator[bytes]) -> Generator[_Scanned, None, None]:
    """Fast path, first step: find the blocks, the runs of one phrase, the paraphrase
    lines and the keys with array operations, a decompressed block at a time.

    Raises :class:`_Regroup` for ``\\r`` line ends, phrases out of order, with odd
    spacing or control characters, and text that is not UTF-8.
    """
    carry = b""  # the text after the last whole block
    last: bytes | None = None
    group = 1
    for block in blocks:
        if b"\r" in block:
            raise _Regroup
        buf = b"".join((carry, block, _PAD))
        scanned, used, last = _scan_block(buf, last, group)
        carry = buf[used : -len(_PAD)]
        if scanned is not None:
            group += len(scanned.new)
            yield scanned
    # after the last whole block: blank lines, or a block without its final line end
    lines = carry.split(b"\n")
    tail = lines.pop()
    if tail:
        lines.append(tail)
    if any(line.strip() for line in lines):
        if len(lines) != 3:
            raise ResourceError(TRUNCATED_BLOCK)
        scanned, _, _ = _scan_block(b"\n".join(lines) + b"\n" + _PAD, last, group)
        if scanned is not None:
            yield scanned


def _general(chunks: Iterable[list[bytes]], builder: _Builder) -> None:
    """Any table: group the blocks by (cleaned) phrase in memory, then write them."""
    groups: dict[str, list[bytes]] = {}
    for lines in chunks:
        builder.entries += len(lines) // 3
        for phrase, target in zip(lines[1::3], lines[2::3], strict=True):
            phrase = clean_line(phrase)
            target = clean_line(target)
            if phrase and target:
                groups.setdefault(phrase.decode("utf-8", "replace"), []).append(target)
    keys = sorted(groups, key=_run_order)
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
        builder.keys(_index_any(keys, 1))


@dataclass(frozen=True)
class _Compiled:
    meta: dict[str, Any]


def compile_table(
    path: str | os.PathLike[str], out: IO[bytes], key: str | None = None
) -> _Compiled:
    """Compile the table at ``path`` into ``out`` (a seekable binary file) as a cache
    file for source ``key`` (default: the table's :func:`fingerprint`).

    :raises ResourceError: unreadable, truncated or empty table.
    """
    source = Path(path)
    if key is None:
        key = fingerprint(source)
    started = time.perf_counter()
    base = out.tell()
    builder = _Builder(out, base)
    digest = hashlib.sha256()
    # three threads: decompress, scan (the array work), index (here)
    fast = _threaded(_scan(_threaded(raw_blocks(source, digest), "inflate")), "scan")
    general: Generator[bytes, None, None] | None = None
    try:
        try:
            for scanned in fast:
                builder.entries += scanned.entries
                # the paraphrase lines are gathered here, in parallel with the scan
                targets, target_at = _gather(
                    scanned.data, scanned.target_starts, scanned.target_lengths
                )
                builder.targets(targets, target_at[scanned.new])
                builder.keys(scanned.keys, scanned.extends_before)
        except _Regroup:
            fast.close()
            builder = _Builder(out, base)
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


def fingerprint(path: str | os.PathLike[str]) -> str:
    """A cheap identity of a table file: size, mtime, gzip trailer and first 64 KiB."""
    source = Path(path)
    stat = source.stat()
    digest = hashlib.sha256(f"{FORMAT_VERSION}:{stat.st_size}:{stat.st_mtime_ns}:".encode())
    with open(source, "rb") as handle:
        digest.update(handle.read(1 << 16))
        if stat.st_size > 8:
            handle.seek(stat.st_size - 8)
            digest.update(handle.read(8))
    return digest.hexdigest()[:32]
