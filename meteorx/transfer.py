"""Segment results in the form a worker process sends them (``--jobs``): the
pure-Python definition of the compiled :mod:`meteorx._transfer`.

The two modules have the same functions, with the same arguments, so the engine picks
one of them once (:func:`meteorx.worker_pool.transfer_kernel`) and the code that moves
results calls whichever it was given:

``encode(results, detail, *ENCODE_ARGS)``
    ``results`` as bytes; without ``detail`` the links and tokens are left out (see
    :func:`meteorx.parallel.score_pairs`). The compiled module returns None for a
    result holding a value it does not write (the caller then uses this module's).
``decode(data, *DECODE_ARGS)``
    the results ``encode`` wrote, as the same records.

Here a result is :func:`pack`'s flat tuple and the bytes are those tuples pickled. The
compiled module writes the same values (floats bit for bit) into its own byte form and
reads them back at a third of the cost.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Sequence
from itertools import chain, repeat
from operator import attrgetter
from typing import Any

from meteorx.results import SEGMENT_FIELDS, SegmentResult, without_detail
from meteorx.scoring import BREAKDOWN_FIELDS, Breakdown
from meteorx.stats import STATS_FIELDS, Stats
from meteorx.types import ALIGNMENT_FIELDS, Alignment, Match, make_record

__all__ = [
    "DECODE_ARGS",
    "ENCODE_ARGS",
    "Packed",
    "Unsupported",
    "decode",
    "encode",
    "pack",
    "unpack_all",
    "without_detail",
]

#: What ``encode`` takes after ``results`` and ``detail``: the links' type and the
#: statistics' and breakdown's field names (in the order the records are read).
ENCODE_ARGS: tuple[Any, ...] = (Match, STATS_FIELDS, BREAKDOWN_FIELDS)

#: What ``decode`` takes after the data: the record types, then their field names.
DECODE_ARGS: tuple[Any, ...] = (
    SegmentResult, Alignment, Stats, Breakdown, Match,
    SEGMENT_FIELDS, ALIGNMENT_FIELDS, STATS_FIELDS, BREAKDOWN_FIELDS,
)  # fmt: skip


class Unsupported(Exception):
    """A value the compiled ``encode`` does not write (this module writes every value)."""


#: A segment result as a flat tuple of numbers, strings and tuples of those. Unpickling
#: dataclasses, named tuples and one string per token costs the parent process about a
#: quarter of the scoring time; this form (the records' field values as tuples, tokens
#: joined into one string, links into one tuple of ints) costs a few per cent, and
#: rebuilding the records with ``make_record`` (no instance ``__dict__``) keeps them as
#: small as the scorer's own.
Packed = tuple[Any, ...]
_SEP = "\x1f"  # the ASCII unit separator: never inside a token in practice

_NO_TOKENS: tuple[str, ...] = ()

Getter = Callable[[Any], tuple[Any, ...]]


def _getter(names: tuple[str, ...]) -> Getter:
    """A C-level function returning an object's ``names`` attributes as a tuple."""
    get = attrgetter(*names)
    if len(names) == 1:  # pragma: no cover - attrgetter returns the bare value
        return lambda obj: (get(obj),)
    return get


_stats_values = _getter(STATS_FIELDS)
_breakdown_values = _getter(BREAKDOWN_FIELDS)


def _join(tokens: tuple[str, ...]) -> str | tuple[str, ...]:
    joined = _SEP.join(tokens)
    return joined if joined.count(_SEP) == max(len(tokens) - 1, 0) else tokens


def _split(packed: str | tuple[str, ...]) -> tuple[str, ...]:
    if isinstance(packed, tuple):
        return packed
    return tuple(packed.split(_SEP)) if packed else ()


def _shared_split(
    packed: str | tuple[str, ...], shared: dict[Any, tuple[str, ...]]
) -> tuple[str, ...]:
    tokens = shared.get(packed)
    if tokens is None:
        tokens = shared[packed] = _split(packed)
    return tokens


def _pack(result: SegmentResult, detail: bool, stats: Getter, breakdown: Getter) -> Packed:
    a = result.alignment
    if not detail:
        return (
            result.score, breakdown(result.breakdown), stats(result.stats),
            (), a.chunks, a.optimal, "", "", result.ref_index,
        )  # fmt: skip
    return (
        result.score, breakdown(result.breakdown), stats(result.stats),
        tuple(chain.from_iterable(a.matches)), a.chunks, a.optimal,
        _join(result.hyp_tokens), _join(result.ref_tokens), result.ref_index,
    )  # fmt: skip


def pack(result: SegmentResult, detail: bool = True) -> Packed:
    """A :class:`SegmentResult` as a flat tuple (see :data:`Packed`); without
    ``detail``, without its links and tokens."""
    return _pack(result, detail, _stats_values, _breakdown_values)


def unpack_all(
    packed: Sequence[Packed], shared: dict[Any, tuple[str, ...]] | None = None
) -> list[SegmentResult]:
    """Inverse of :func:`pack`, for every element in one loop (no Python call per
    result). ``shared`` (a dict kept across calls) lets results with the same reference
    share one token tuple instead of each building its own."""
    return _unpack(packed, {} if shared is None else shared, *DECODE_ARGS)


def _unpack(
    packed: Sequence[Packed],
    shared: dict[Any, tuple[str, ...]],
    segment: type,
    alignment: type,
    stats: type,
    breakdown: type,
    match: type,
    result_names: tuple[str, ...],
    alignment_names: tuple[str, ...],
    stats_names: tuple[str, ...],
    breakdown_names: tuple[str, ...],
) -> list[Any]:
    record = make_record
    if all(not p[3] and not p[6] and not p[7] for p in packed):  # no links, no tokens
        return [
            record(segment, result_names, (
                score, record(breakdown, breakdown_names, b), record(stats, stats_names, s),
                record(alignment, alignment_names, ((), chunks, optimal)),
                _NO_TOKENS, _NO_TOKENS, ref_index,
            ))
            for score, b, s, _, chunks, optimal, _, _, ref_index in packed
        ]  # fmt: skip
    new = tuple.__new__  # a link is a named tuple: this is its _make without the checks
    size = len(match._fields)  # type: ignore[attr-defined]
    return [
        record(segment, result_names, (
            score, record(breakdown, breakdown_names, b), record(stats, stats_names, s),
            record(alignment, alignment_names, (
                tuple(map(new, repeat(match), zip(*[iter(links)] * size, strict=True))),
                chunks, optimal,
            )),
            _split(hyp), _shared_split(ref, shared), ref_index,
        ))
        for score, b, s, links, chunks, optimal, hyp, ref, ref_index in packed
    ]  # fmt: skip


def encode(
    results: list[Any],
    detail: bool,
    match_type: type,
    stats_fields: tuple[str, ...],
    breakdown_fields: tuple[str, ...],
) -> bytes | None:
    """``results`` as bytes: their :func:`pack` tuples, pickled (never None here).
    ``match_type`` is the compiled twin's check that every link is one (a link here is
    any tuple of its fields)."""
    stats, breakdown = _getter(stats_fields), _getter(breakdown_fields)
    packed = [_pack(result, detail, stats, breakdown) for result in results]
    return pickle.dumps(packed, pickle.HIGHEST_PROTOCOL)


def decode(
    data: bytes,
    segment_type: type,
    alignment_type: type,
    stats_type: type,
    breakdown_type: type,
    match_type: type,
    segment_fields: tuple[str, ...],
    alignment_fields: tuple[str, ...],
    stats_fields: tuple[str, ...],
    breakdown_fields: tuple[str, ...],
) -> list[Any]:
    """The results :func:`encode` wrote, rebuilt as the same records (a reference's
    tokens shared by several results are one tuple again)."""
    packed: list[Packed] = pickle.loads(data)
    return _unpack(
        packed, {}, segment_type, alignment_type, stats_type, breakdown_type, match_type,
        segment_fields, alignment_fields, stats_fields, breakdown_fields,
    )  # fmt: skip
