"""Sufficient statistics: the summable record every score is computed from.

A segment score and a corpus score go through the same formula; the corpus record is
the sum of the segment records (never an average of segment scores). Keeping the
record lets callers re-score with other α β γ δ or stage weights without re-aligning,
resample for confidence intervals, and merge results computed in parallel.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from types import ModuleType

_fastpath: ModuleType | None
try:  # the compiled twin of sum_stats (optional)
    from meteorx import _fastpath
except ImportError:  # pragma: no cover - without the C extension
    _fastpath = None


def _add_lists(a: tuple[float, ...], b: tuple[float, ...]) -> tuple[float, ...]:
    if len(a) < len(b):
        a = a + (0.0,) * (len(b) - len(a))
    elif len(b) < len(a):
        b = b + (0.0,) * (len(a) - len(b))
    return tuple(x + y for x, y in zip(a, b, strict=True))


@dataclass(frozen=True)
class Stats:
    """Counts for one segment, or summed over many.

    Per-stage tuples are indexed by stage. ``chunks`` is the chunk count used for
    fragmentation: under Meteor 1.5's perfect-match rule, a segment whose every word
    matched in a single chunk contributes 0 (it has no fragmentation at all).
    """

    hyp_len: float = 0.0
    ref_len: float = 0.0
    hyp_function: float = 0.0
    ref_function: float = 0.0
    hyp_content_matches: tuple[float, ...] = field(default_factory=tuple)
    ref_content_matches: tuple[float, ...] = field(default_factory=tuple)
    hyp_function_matches: tuple[float, ...] = field(default_factory=tuple)
    ref_function_matches: tuple[float, ...] = field(default_factory=tuple)
    chunks: float = 0.0
    hyp_matched_words: float = 0.0
    ref_matched_words: float = 0.0
    segments: int = 1

    def __add__(self, other: Stats) -> Stats:
        return Stats(
            hyp_len=self.hyp_len + other.hyp_len,
            ref_len=self.ref_len + other.ref_len,
            hyp_function=self.hyp_function + other.hyp_function,
            ref_function=self.ref_function + other.ref_function,
            hyp_content_matches=_add_lists(self.hyp_content_matches, other.hyp_content_matches),
            ref_content_matches=_add_lists(self.ref_content_matches, other.ref_content_matches),
            hyp_function_matches=_add_lists(self.hyp_function_matches, other.hyp_function_matches),
            ref_function_matches=_add_lists(self.ref_function_matches, other.ref_function_matches),
            chunks=self.chunks + other.chunks,
            hyp_matched_words=self.hyp_matched_words + other.hyp_matched_words,
            ref_matched_words=self.ref_matched_words + other.ref_matched_words,
            segments=self.segments + other.segments,
        )

    @property
    def hyp_matches(self) -> float:
        return sum(self.hyp_content_matches) + sum(self.hyp_function_matches)

    @property
    def ref_matches(self) -> float:
        return sum(self.ref_content_matches) + sum(self.ref_function_matches)

    def to_list(self) -> list[float]:
        """A flat list (Meteor 1.5 ``-ssOut`` order, per-stage blocks of four)."""
        out = [self.hyp_len, self.ref_len, self.hyp_function, self.ref_function]
        for i in range(len(self.hyp_content_matches)):
            out += [
                self.hyp_content_matches[i],
                self.ref_content_matches[i],
                self.hyp_function_matches[i],
                self.ref_function_matches[i],
            ]
        out += [self.chunks, self.hyp_matched_words, self.ref_matched_words]
        return out

    @classmethod
    def from_list(cls, values: list[float], segments: int = 1) -> Stats:
        """Inverse of :meth:`to_list`."""
        if len(values) < 7 or (len(values) - 7) % 4:
            raise ValueError(f"a statistics row needs 7 + 4k numbers, got {len(values)}")
        n = (len(values) - 7) // 4
        blocks = [values[4 + 4 * i : 8 + 4 * i] for i in range(n)]
        return cls(
            hyp_len=values[0],
            ref_len=values[1],
            hyp_function=values[2],
            ref_function=values[3],
            hyp_content_matches=tuple(b[0] for b in blocks),
            ref_content_matches=tuple(b[1] for b in blocks),
            hyp_function_matches=tuple(b[2] for b in blocks),
            ref_function_matches=tuple(b[3] for b in blocks),
            chunks=values[-3],
            hyp_matched_words=values[-2],
            ref_matched_words=values[-1],
            segments=segments,
        )


#: Stats' fields in declaration order (what ``make_record`` takes values in).
STATS_FIELDS = tuple(f.name for f in fields(Stats))


def sum_stats(records: Iterable[Stats]) -> Stats:
    """Sum records; an empty iterable gives an empty record with zero segments.

    Equal to adding the records one by one with ``+`` (same additions, same order),
    without building a record per step (in C when the extension is built).
    """
    if _fastpath is not None:
        values, (hc, rc, hf, rf), count = _fastpath.sum_stats_values(records)
        return Stats(
            hyp_len=values[0],
            ref_len=values[1],
            hyp_function=values[2],
            ref_function=values[3],
            hyp_content_matches=hc,
            ref_content_matches=rc,
            hyp_function_matches=hf,
            ref_function_matches=rf,
            chunks=values[4],
            hyp_matched_words=values[5],
            ref_matched_words=values[6],
            segments=count,
        )
    return python_sum_stats(records)


def python_sum_stats(records: Iterable[Stats]) -> Stats:
    """:func:`sum_stats` in plain Python (the definition the C twin follows)."""
    scalars = [0.0] * 7
    stages: list[list[float]] = [[], [], [], []]
    segments = 0
    for r in records:
        scalars[0] += r.hyp_len
        scalars[1] += r.ref_len
        scalars[2] += r.hyp_function
        scalars[3] += r.ref_function
        scalars[4] += r.chunks
        scalars[5] += r.hyp_matched_words
        scalars[6] += r.ref_matched_words
        segments += r.segments
        for total, part in zip(
            stages,
            (
                r.hyp_content_matches,
                r.ref_content_matches,
                r.hyp_function_matches,
                r.ref_function_matches,
            ),
            strict=True,
        ):
            if len(total) < len(part):
                total.extend([0.0] * (len(part) - len(total)))
            for i, value in enumerate(part):
                total[i] += value
    return Stats(
        hyp_len=scalars[0],
        ref_len=scalars[1],
        hyp_function=scalars[2],
        ref_function=scalars[3],
        hyp_content_matches=tuple(stages[0]),
        ref_content_matches=tuple(stages[1]),
        hyp_function_matches=tuple(stages[2]),
        ref_function_matches=tuple(stages[3]),
        chunks=scalars[4],
        hyp_matched_words=scalars[5],
        ref_matched_words=scalars[6],
        segments=segments,
    )
