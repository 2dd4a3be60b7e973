"""Sufficient statistics: the summable record every score is computed from.

A segment score and a corpus score go through the same formula; the corpus record is
the sum of the segment records (never an average of segment scores). Keeping the
record lets callers re-score with other α β γ δ or stage weights without re-aligning,
resample for confidence intervals, and merge results computed in parallel.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields
from functools import reduce
from itertools import zip_longest
from operator import add, attrgetter
from typing import Any


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
        """The record as a statistics row (:class:`Layout`: Meteor 1.5's ``-ssOut``)."""
        return Layout(len(self.hyp_content_matches)).row(self)

    @classmethod
    def from_list(cls, values: Sequence[float], segments: int = 1) -> Stats:
        """Inverse of :meth:`to_list`."""
        return Layout.of_width(len(values)).record(values, segments)


#: Stats' fields in declaration order (what ``make_record`` takes values in).
STATS_FIELDS = tuple(f.name for f in fields(Stats))

#: The columns of a statistics row (:class:`Layout`): the whole segment's counts, the
#: block repeated for every stage, and the counts after the blocks.
HEAD_COLUMNS = ("hyp_len", "ref_len", "hyp_function", "ref_function")
STAGE_COLUMNS = (
    "hyp_content_matches",
    "ref_content_matches",
    "hyp_function_matches",
    "ref_function_matches",
)
TAIL_COLUMNS = ("chunks", "hyp_matched_words", "ref_matched_words")

_head = attrgetter(*HEAD_COLUMNS)
_stages = attrgetter(*STAGE_COLUMNS)
_tail = attrgetter(*TAIL_COLUMNS)


@dataclass(frozen=True)
class Layout:
    """Where each count of a :class:`Stats` record sits in a statistics row.

    A row is Meteor 1.5's ``-ssOut`` line, ``7 + 4 x stages`` numbers::

        hyp_len ref_len hyp_function ref_function
        hyp_content_matches ref_content_matches hyp_function_matches
            ref_function_matches                  (once per stage, in stage order)
        chunks hyp_matched_words ref_matched_words

    (the number of segments is not in it). Whatever stores, sums or resamples rows
    (``--stats-out`` files, Spark, significance tests, tuning) finds a column here by
    its name, and the formula reads rows through :meth:`view`.
    """

    stages: int

    @classmethod
    def of_width(cls, width: int) -> Layout:
        """The layout of rows of ``width`` numbers."""
        stages, rest = divmod(width - len(HEAD_COLUMNS) - len(TAIL_COLUMNS), len(STAGE_COLUMNS))
        if stages < 0 or rest:
            raise ValueError(f"a statistics row needs 7 + 4k numbers, got {width}")
        return cls(stages)

    @property
    def width(self) -> int:
        return len(HEAD_COLUMNS) + len(STAGE_COLUMNS) * self.stages + len(TAIL_COLUMNS)

    def column(self, name: str, stage: int | None = None) -> int:
        """The index of column ``name``; a per-stage count needs its ``stage``."""
        if stage is None and name in HEAD_COLUMNS:
            return HEAD_COLUMNS.index(name)
        if stage is None and name in TAIL_COLUMNS:
            return self.width - len(TAIL_COLUMNS) + TAIL_COLUMNS.index(name)
        if name in STAGE_COLUMNS and stage is not None and 0 <= stage < self.stages:
            return len(HEAD_COLUMNS) + len(STAGE_COLUMNS) * stage + STAGE_COLUMNS.index(name)
        where = "" if stage is None else f" of stage {stage}"
        raise KeyError(f"no statistics column {name!r}{where} in a row of {self.stages} stages")

    def names(self, stage_names: Sequence[str]) -> list[str]:
        """The columns' names as the statistics files' header writes them: a per-stage
        count as ``stage:hyp_content`` (its name without ``_matches``)."""
        if len(stage_names) != self.stages:
            raise ValueError(f"{len(stage_names)} stage names for {self.stages} stages")
        per_stage = [name.removesuffix("_matches") for name in STAGE_COLUMNS]
        stages = [f"{stage}:{name}" for stage in stage_names for name in per_stage]
        return [*HEAD_COLUMNS, *stages, *TAIL_COLUMNS]

    def row(self, stats: Stats) -> list[Any]:
        """``stats`` as a row, its values as they are (a record of fewer stages is
        padded with zero blocks)."""
        per_stage = _stages(stats)
        n = len(per_stage[0])
        if n > self.stages:
            raise ValueError(f"a statistics record has {n} stages, expected {self.stages}")
        values = list(_head(stats))
        for i in range(self.stages):
            values += [counts[i] if i < n else 0.0 for counts in per_stage]
        values += _tail(stats)
        return values

    def record(self, row: Sequence[Any], segments: int = 1) -> Stats:
        """The :class:`Stats` record of a row (of this layout's width)."""
        if len(row) != self.width:
            raise ValueError(
                f"a statistics row of {self.stages} stages has {self.width} numbers, got {len(row)}"
            )
        return Stats(**self._columns(row), segments=segments)

    def view(self, rows: Any) -> Stats:
        """The columns of ``rows`` (a NumPy array, the last axis a row) as a record
        whose fields are arrays: what the formula of :mod:`meteorx.scoring` reads.
        Every row counts as a non-empty record (``segments`` 1)."""
        if rows.shape[-1] != self.width:
            raise ValueError(
                f"statistics rows of {self.stages} stages have {self.width} "
                f"numbers, got {rows.shape[-1]}"
            )
        return Stats(**self._columns(rows[..., k] for k in range(self.width)))

    def _columns(self, values: Iterable[Any]) -> dict[str, Any]:
        items = list(values)
        out: dict[str, Any] = {}
        for name in HEAD_COLUMNS + TAIL_COLUMNS:
            out[name] = items[self.column(name)]
        for name in STAGE_COLUMNS:
            out[name] = tuple(items[self.column(name, i)] for i in range(self.stages))
        return out


def sum_stats(records: Iterable[Stats]) -> Stats:
    """Sum records; an empty iterable gives an empty record with zero segments.

    Equal to adding the records one by one with ``+`` (the same additions in the same
    order), column by column, without building a record per step (2,489 records: 1.4 ms,
    about 1% of scoring them; its C twin, 0.5 ms, did not pay for itself).
    """
    columns = list(zip(*map(_FIELD_VALUES, records), strict=True))
    if not columns:
        return Stats(segments=0)
    totals: list[Any] = []
    for name, column in zip(STATS_FIELDS, columns, strict=True):
        if name in STAGE_COLUMNS:  # stage by stage; a shorter record adds nothing there
            stages = zip_longest(*column, fillvalue=0.0)
            totals.append(tuple(reduce(add, stage, 0.0) for stage in stages))
        else:
            totals.append(reduce(add, column, 0 if name == "segments" else 0.0))
    return Stats(*totals)


#: A record's field values, in declaration order.
_FIELD_VALUES = attrgetter(*STATS_FIELDS)
