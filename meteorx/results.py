"""What scoring returns: a segment's result and a system's (corpus) result."""

from __future__ import annotations

from dataclasses import dataclass, fields

from meteorx.scoring import Breakdown
from meteorx.stats import Stats
from meteorx.types import ALIGNMENT_FIELDS, Alignment, make_record


@dataclass(frozen=True)
class SegmentResult:
    """One hypothesis scored against its best reference."""

    score: float
    breakdown: Breakdown
    stats: Stats
    alignment: Alignment
    hyp_tokens: tuple[str, ...]
    ref_tokens: tuple[str, ...]
    ref_index: int  # which reference scored best

    @property
    def precision(self) -> float:
        return self.breakdown.precision

    @property
    def recall(self) -> float:
        return self.breakdown.recall


#: SegmentResult's fields in declaration order (what ``make_record`` takes values in).
SEGMENT_FIELDS = tuple(f.name for f in fields(SegmentResult))

_NO_TOKENS: tuple[str, ...] = ()


def without_detail(result: SegmentResult) -> SegmentResult:
    """``result`` without its links and tokens (scores, statistics, chunks kept): what
    a run that reports only scores keeps, and sends between processes."""
    a = result.alignment
    light: SegmentResult = make_record(SegmentResult, SEGMENT_FIELDS, (
        result.score, result.breakdown, result.stats,
        make_record(Alignment, ALIGNMENT_FIELDS, ((), a.chunks, a.optimal)),
        _NO_TOKENS, _NO_TOKENS, result.ref_index,
    ))  # fmt: skip
    return light


@dataclass(frozen=True)
class CorpusResult:
    """A system's score from summed statistics, with every segment's result."""

    score: float
    breakdown: Breakdown
    stats: Stats
    segments: tuple[SegmentResult, ...]
    signature: str
