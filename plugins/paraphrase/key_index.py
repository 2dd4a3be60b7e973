"""The key index of a compiled paraphrase table: phrases and their prefixes, in order.

Every phrase and every proper prefix of one (at word boundaries) is a key, with a value
``group << 1 | more`` (see :mod:`.compiled_file`). Two builders give the same keys:

* :func:`index_sorted`, for the new phrases of a table in byte order (Meteor's are),
  with array operations over a block of phrases at a time; it raises :class:`Regroup`
  when the order or the text does not allow it;
* :func:`index_any`, for any phrases given in :func:`run_order` (plain Python).

This module imports :mod:`.byte_arrays`, plus ``numpy``.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from itertools import repeat
from operator import itemgetter, lshift, or_

import numpy as np

from meteorx_plugins.paraphrase.byte_arrays import PAD, common_prefix

__all__ = ["Keys", "Regroup", "index_any", "index_sorted", "run_order"]


class Regroup(Exception):
    """The fast path cannot compile this table (unsorted, odd spacing, ``\\r`` line ends)."""


@dataclass(frozen=True)
class Keys:
    """Index keys of whole first words, in key order: their text (one per line), their
    values, the one-word keys as ``(word, key number, byte offset)`` (a first word's
    keys start at its own), and the most words in a phrase."""

    text: bytes
    values: np.ndarray
    singles: list[tuple[str, int, int]]
    longest: int


def index_sorted(
    phrases: bytes, starts: np.ndarray, lengths: np.ndarray, first_group: int, before: bytes | None
) -> tuple[Keys, bool]:
    """Index the phrases of new groups (``\\n``-terminated in ``phrases``) of a table in
    byte order, with array operations; ``before`` is the phrase before them.

    In byte order, with no control character in a phrase, a phrase's prefix ``p`` (up to
    a space) is a key already iff the phrase before is ``p`` or starts with ``p + " "``,
    and a longer phrase starts with a phrase iff the next one does; both follow from
    the common prefix of neighbours. Returns the keys and whether a phrase starts with
    ``before + " "``. Raises :class:`Regroup` if the order is not strictly increasing
    or the text is not UTF-8.
    """
    try:
        phrases.decode("utf-8")
    except UnicodeDecodeError:
        raise Regroup from None
    n = len(starts)
    buf = phrases + PAD
    data = np.frombuffer(buf, dtype=np.uint8)
    starts = starts.astype(np.int64)
    lengths = lengths.astype(np.int64)
    common = np.zeros(n, dtype=np.int64)  # with the phrase before
    before_len = np.full(n, -1, dtype=np.int64)
    if n > 1:
        before_len[1:] = lengths[:-1]
        common[1:] = common_prefix(
            buf, starts[1:], starts[:-1], np.minimum(lengths[1:], lengths[:-1])
        )
        at = common[1:]  # the first byte that differs (a "\n" ends the shorter one)
        if not (data[starts[1:] + at] > data[starts[:-1] + at]).all():
            raise Regroup
    extends_before = False
    if before is not None:
        first = phrases[: int(lengths[0])]
        if not before < first:
            raise Regroup
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
    spaces = np.flatnonzero(data[: -len(PAD)] == 32)
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
    return Keys(text, values, decoded, int(words.max())), bool(extends_before)


def run_order(key: str) -> tuple[str, str]:
    """Sort key keeping the keys of one first word together (a control character can
    sort a word like ``a\\x01`` between ``a`` and ``a b`` in plain order)."""
    first, _, rest = key.partition(" ")
    return first, rest


def index_any(keys: list[str], first_group: int) -> Keys:
    """Index phrases given in :func:`run_order` (the general path; plain Python)."""
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
    for prefix in sorted(extra, key=run_order):
        i = bisect_left(keys, run_order(prefix), at, key=run_order)
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
    return Keys(b"".join(lines), np.array(merged_values, dtype=np.uint64), singles, longest)
