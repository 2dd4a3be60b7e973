"""Array operations over the lines of a byte buffer, for compiling sorted tables.

The fast path of :mod:`.compiler` handles a decompressed block's lines all at once with
``numpy`` instead of one at a time: comparing each line with the one before, measuring
common prefixes, gathering byte ranges end to end. Comparisons read 8 bytes at a time
through overlapping 8-byte windows of the buffer, which therefore ends with :data:`PAD`.

This module imports ``numpy`` only.
"""

from __future__ import annotations

import numpy as np

__all__ = ["PAD", "common_prefix", "gather", "same_as_previous"]

PAD = b"\0" * 8  # after a buffer, so 8-byte reads never run past its end
#: ``_LOW_BYTES[n]`` keeps the first ``n`` bytes of a little-endian ``uint64``.
_LOW_BYTES = np.array([(1 << (8 * n)) - 1 for n in range(9)], dtype=np.uint64)


def _windows(buf: bytes) -> np.ndarray:
    """Every 8-byte window of ``buf`` (they overlap): gathers copy 8 bytes from anywhere."""
    return np.ndarray((len(buf) - 7,), dtype="V8", buffer=buf, strides=(1,))


def same_as_previous(buf: bytes, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """For each line of ``buf`` (``starts``, ``lengths``): is it equal to the one before?

    Compares 8 bytes at a time, only the pairs of equal length still equal so far.
    ``buf`` ends with :data:`PAD`.
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


def common_prefix(buf: bytes, left: np.ndarray, right: np.ndarray, limit: np.ndarray) -> np.ndarray:
    """Length of the common prefix of the strings at ``left`` and ``right`` in ``buf``
    (at most ``limit`` bytes each), 8 bytes at a time. ``buf`` ends with :data:`PAD`."""
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


def gather(data: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> tuple[bytes, np.ndarray]:
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
