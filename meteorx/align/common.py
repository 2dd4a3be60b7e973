"""Helpers shared by the alignment searches."""

from __future__ import annotations

from collections.abc import Sequence

from meteorx.types import Match


def bucket_by_ref(candidates: Sequence[Match], ref_len: int) -> list[list[Match]]:
    """Candidates grouped by reference start, keeping their order (stage, then hyp)."""
    buckets: list[list[Match]] = [[] for _ in range(ref_len)]
    for m in candidates:
        buckets[m.ref_start].append(m)
    return buckets


def isolated_matches(
    candidates: Sequence[Match], buckets: list[list[Match]], hyp_len: int, ref_len: int
) -> dict[int, Match]:
    """Candidates that no other candidate touches, on either side, by reference start.

    Every alignment search keeps these: they conflict with nothing.
    """
    hyp_cover = [0] * hyp_len
    ref_cover = [0] * ref_len
    for m in candidates:
        for k in range(m.hyp_start, m.hyp_start + m.hyp_len):
            hyp_cover[k] += 1
        for k in range(m.ref_start, m.ref_start + m.ref_len):
            ref_cover[k] += 1
    fixed: dict[int, Match] = {}
    for j, bucket in enumerate(buckets):
        if len(bucket) != 1:
            continue
        m = bucket[0]
        if all(ref_cover[k] == 1 for k in range(j, j + m.ref_len)) and all(
            hyp_cover[k] == 1 for k in range(m.hyp_start, m.hyp_start + m.hyp_len)
        ):
            fixed[j] = m
    return fixed


def span_mask(start: int, length: int) -> int:
    """Bit mask of positions ``start .. start+length-1``."""
    return ((1 << length) - 1) << start
