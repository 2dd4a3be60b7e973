"""The fast path's reading of a sorted table: whole decompressed blocks at a time.

:func:`scan` finds the 3-line blocks of each decompressed block, the runs of one
phrase, the paraphrase lines and the new phrases' keys with array operations
(:mod:`.byte_arrays`, :func:`.key_index.index_sorted`). It raises
:class:`~.key_index.Regroup` for a table it cannot read this way (``\\r`` line ends,
phrases out of order, with odd spacing or control characters, text that is not UTF-8);
:mod:`.compiler` then takes the general path.

This module imports :mod:`.byte_arrays`, :mod:`.key_index`, :mod:`.text_format` (the
truncation error) and :mod:`meteorx.errors`, plus ``numpy``.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from dataclasses import dataclass
from functools import partial

import numpy as np

from meteorx.errors import ResourceError
from meteorx_plugins.paraphrase.byte_arrays import PAD, gather, same_as_previous
from meteorx_plugins.paraphrase.key_index import Keys, Regroup, index_sorted
from meteorx_plugins.paraphrase.text_format import TRUNCATED_BLOCK

__all__ = ["Scanned", "scan"]


@dataclass(frozen=True)
class Scanned:
    """What the fast path finds in a decompressed block's whole 3-line blocks: how many,
    where their paraphrase lines are in ``data`` (with the line end), which blocks start
    a new phrase's group, the keys of the new phrases, and whether a longer phrase starts
    with the last phrase before them."""

    entries: int
    data: np.ndarray
    target_starts: np.ndarray
    target_lengths: np.ndarray
    new: np.ndarray
    keys: Keys
    extends_before: bool


def _scan_block(
    buf: bytes, last: bytes | None, first_group: int
) -> tuple[Scanned | None, int, bytes | None]:
    """Scan the whole 3-line blocks of ``buf`` (which ends with :data:`.byte_arrays.PAD`);
    ``last`` is the phrase of the block before them, ``first_group`` the number of the
    next new group. Returns what was found, the bytes used and the last phrase."""
    before = last
    data = np.frombuffer(buf, dtype=np.uint8)
    ends = np.flatnonzero(data[: -len(PAD)] == 10)
    blocks = len(ends) // 3
    if not blocks:
        return None, 0, last
    ends = ends[: 3 * blocks]
    phrase_start = ends[0::3] + 1
    phrase_end = ends[1::3]
    target_end = ends[2::3]
    lengths = phrase_end - phrase_start
    same = same_as_previous(buf, phrase_start, lengths)
    same[0] = buf[int(phrase_start[0]) : int(phrase_end[0])] == last
    new = np.flatnonzero(~same)
    used = int(target_end[-1]) + 1
    last = buf[int(phrase_start[-1]) : int(phrase_end[-1])]
    found = partial(Scanned, blocks, data, phrase_end + 1, target_end - phrase_end, new)
    if not len(new):
        return found(Keys(b"", np.zeros(0, np.uint64), [], 0), False), used, last
    phrases, phrase_at = gather(data, phrase_start[new], lengths[new] + 1)
    if (
        np.count_nonzero(np.frombuffer(phrases, dtype=np.uint8) < 32) != len(new)
        or b"  " in phrases
        or b" \n" in phrases
        or b"\n " in phrases
        or phrases.startswith(b" ")
    ):
        raise Regroup  # odd spacing or control characters in a phrase
    keys, extends_before = index_sorted(phrases, phrase_at, lengths[new], first_group, before)
    return found(keys, extends_before), used, last


def scan(blocks: Iterator[bytes]) -> Generator[Scanned, None, None]:
    """Fast path, first step: find the blocks, the runs of one phrase, the paraphrase
    lines and the keys with array operations, a decompressed block at a time.

    Raises :class:`~.key_index.Regroup` for ``\\r`` line ends, phrases out of order,
    with odd spacing or control characters, and text that is not UTF-8.
    """
    carry = b""  # the text after the last whole block
    last: bytes | None = None
    group = 1
    for block in blocks:
        if b"\r" in block:
            raise Regroup
        buf = b"".join((carry, block, PAD))
        scanned, used, last = _scan_block(buf, last, group)
        carry = buf[used : -len(PAD)]
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
        scanned, _, _ = _scan_block(b"\n".join(lines) + b"\n" + PAD, last, group)
        if scanned is not None:
            yield scanned
