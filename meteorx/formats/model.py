"""The result model of a run: test sets read in, scored systems and reports written out.

Readers (:mod:`meteorx.formats.readers`) give a :class:`TestSet`; the command line
scores it into a :class:`Report` of :class:`ScoredSystem` objects, which the writers
(:mod:`meteorx.formats.writers`) print. The column layout of statistics files is here
too, shared by their writer and their reader, and a record's row (:func:`stats_row`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain
from operator import attrgetter
from typing import Any

from meteorx.errors import InputError
from meteorx.scoring import Breakdown, Parameters, breakdown_of
from meteorx.stats import HEAD_COLUMNS, STAGE_COLUMNS, TAIL_COLUMNS, Layout, Stats, sum_stats

#: The first line of a statistics file (``meteorx score --stats-out``).
STATS_MAGIC = "# meteorx-stats v1"


@dataclass
class TestSet:
    """Systems' hypotheses and the references, aligned by segment.

    ``refs[i]`` lists the references of segment ``i``; ``docs[i]`` is its document
    (``None`` when the format has no documents); ``seg_ids[i]`` its identifier
    (1-based line numbers for text).
    """

    systems: list[tuple[str, list[str]]]
    refs: list[list[str]]
    seg_ids: list[str]
    docs: list[str] | None = None
    setid: str | None = None
    #: references per segment when there are no segments (the number of reference
    #: files or columns), so that an empty input's signature still says ``refs:N``
    declared_refs: int = 0

    @property
    def n_refs(self) -> int:
        return max((len(r) for r in self.refs), default=self.declared_refs)

    def __post_init__(self) -> None:
        n = len(self.refs)
        for name, hyps in self.systems:
            if len(hyps) != n:
                raise InputError(
                    f"system {name!r} has {len(hyps)} segments but there are {n} references"
                )
        if len(self.seg_ids) != n or (self.docs is not None and len(self.docs) != n):
            raise InputError("segment identifiers do not match the number of segments")


@dataclass(frozen=True)
class Scored:
    """A score with its breakdown and statistics (a segment, a document or a system)."""

    breakdown: Breakdown
    stats: Stats

    @property
    def score(self) -> float:
        return self.breakdown.score


@dataclass
class ScoredSystem:
    """Everything printed about one system."""

    name: str
    system: Scored
    segments: list[Scored]
    documents: list[tuple[str, Scored]] | None = None
    chunks: list[int] | None = None  # alignment chunks per segment (not in stats files)
    ref_index: list[int] | None = None  # best reference per segment
    interval: Any = None  # significance.Interval
    comparison: Any = None  # significance.PairedResult (vs. the baseline)


@dataclass
class Report:
    """A complete run: systems, identifiers, parameters, signature, significance info."""

    systems: list[ScoredSystem]
    signature: str
    seg_ids: list[str]
    docs: list[str] | None
    setid: str | None
    params: Parameters
    stage_names: list[str]
    significance: dict[str, Any] = field(default_factory=dict)
    #: the configuration's rule for a system's score, which resampling follows too
    system_score: str = "statistics"


def document_scores(
    docs: Sequence[str], segments: Sequence[Scored], params: Parameters
) -> list[tuple[str, Scored]]:
    """Per-document scores from summed segment statistics, in first-appearance order."""
    grouped: dict[str, list[Stats]] = {}
    for doc, seg in zip(docs, segments, strict=True):
        grouped.setdefault(doc, []).append(seg.stats)
    out = []
    for doc, records in grouped.items():
        total = sum_stats(records)
        out.append((doc, Scored(breakdown_of(total, params), total)))
    return out


def stats_columns(stage_names: Sequence[str]) -> list[str]:
    """Column names of a statistics row (:class:`~meteorx.stats.Layout`)."""
    return Layout(len(stage_names)).names(stage_names)


_HEAD = attrgetter(*HEAD_COLUMNS)
_STAGES = attrgetter(*STAGE_COLUMNS)
_TAIL = attrgetter(*TAIL_COLUMNS)


def stats_row(stats: Stats) -> Sequence[Any]:
    """``stats.to_list()``, made faster (the statistics and JSON writers call it for every
    segment): the row of a record whose stage blocks are of one length (any other goes
    through ``to_list``)."""
    stages = _STAGES(stats)
    row = (*_HEAD(stats), *chain.from_iterable(zip(*stages, strict=False)), *_TAIL(stats))
    return row if len(row) == 7 + 4 * len(stages[0]) else stats.to_list()
