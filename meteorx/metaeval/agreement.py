"""Agreement measures between a metric's scores and human judgments
(:mod:`meteorx.metaeval`): at segment level WMT's DARR τ, pairwise τ, tie-calibrated
pairwise accuracy (acc-eq) and τ-b; at system level Pearson r, Spearman ρ and pairwise
accuracy.

Each segment measure is built once on the judgments and then takes a metric's scores,
(systems, segments), and a batch of segment weights, (resamples, segments), giving one
value per row of weights: the bootstrap (:mod:`meteorx.metaeval.bootstrap`) never
materialises a resample. A system measure takes system scores along the last axis.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Metric score differences at or below this are ties (floating-point noise).
TIE = 1e-12
SEGMENT_MEASURES = ("darr", "pairwise", "acc-eq", "tau-b")
#: Resamples evaluated at once (bounds memory: resamples × pairs floats).
_CHUNK = 50


def default_segment_measure(human: FloatArray) -> str:
    """The segment measure for these judgments: ``tau-b`` for one system, ``darr`` when
    every score lies in 0..100 and some exceed 1 (the DA scale), else ``pairwise``
    (MQM, error counts, edit rates: scores at most 0 once negated)."""
    judged = human[~np.isnan(human)]
    if human.shape[0] < 2:
        return "tau-b"
    if judged.size and judged.min() >= 0 and judged.max() <= 100 and judged.max() > 1:
        return "darr"
    return "pairwise"


def rescaled(values: FloatArray, axis: int | None = None) -> FloatArray:
    """``values`` divided by the power of two that brings their largest magnitude (along
    ``axis``; NaN left aside) into [0.5, 1): their sums, differences and squares cannot
    overflow, and since only exponents change, anything that does not depend on the
    scale (a correlation, an order) is what the values themselves give, bit for bit."""
    largest = np.fmax.reduce(np.abs(values), axis=axis, keepdims=True, initial=0.0)
    return np.asarray(np.ldexp(values, -np.frexp(largest)[1]), dtype=np.float64)


def order_sign(a: FloatArray, b: FloatArray) -> FloatArray:
    """The sign of ``a - b`` without computing it (which may overflow): 1, 0 or -1."""
    return np.asarray((a > b).astype(np.float64) - (a < b), dtype=np.float64)


# -- segment level -------------------------------------------------------------------


def segment_pairs(
    human: FloatArray,
    threshold: float = 0.0,
    identical: Callable[[int, int, int], bool] | None = None,
) -> tuple[IntArray, IntArray, IntArray]:
    """Pairs of translations of one segment whose human scores differ by more than
    ``threshold`` (and at all), ``identical(system_a, system_b, segment)`` ones left
    out: the systems of the better and the worse member, and the segment."""
    better: list[int] = []
    worse: list[int] = []
    segment: list[int] = []
    n_systems, n_segments = human.shape
    # Python floats: a difference too large for a float is inf (more than any
    # threshold, as it should be) without numpy's overflow warning.
    rows: list[list[float]] = human.tolist()
    for i in range(n_segments):
        judged = [s for s in range(n_systems) if not math.isnan(rows[s][i])]
        for pos, a in enumerate(judged):
            for b in judged[pos + 1 :]:
                diff = rows[a][i] - rows[b][i]
                if abs(diff) <= threshold or diff == 0:
                    continue
                if identical is not None and identical(a, b, i):
                    continue
                hi, lo = (a, b) if diff > 0 else (b, a)
                better.append(hi)
                worse.append(lo)
                segment.append(i)
    return (
        np.asarray(better, dtype=np.int64),
        np.asarray(worse, dtype=np.int64),
        np.asarray(segment, dtype=np.int64),
    )


def identical_outputs(hyps: Sequence[Sequence[str]]) -> Callable[[int, int, int], bool]:
    """Whether two systems' translations of a segment are the same text (surrounding
    white space aside)."""
    return lambda a, b, i: hyps[a][i].strip() == hyps[b][i].strip()


class PairTau:
    """WMT's Kendall-like τ over pairs within segments (``darr``, ``pairwise``)."""

    def __init__(
        self,
        human: FloatArray,
        threshold: float = 0.0,
        identical: Callable[[int, int, int], bool] | None = None,
    ) -> None:
        self.threshold = threshold
        self.better, self.worse, self.segment = segment_pairs(human, threshold, identical)
        self.n_segments = human.shape[1]
        self.n = int(self.better.size)
        self.per_segment = np.bincount(self.segment, minlength=self.n_segments).astype(float)

    def concordant(self, scores: FloatArray) -> FloatArray:
        """1.0 for each pair the metric orders as the humans do (a tie is discordant)."""
        diff = scores[self.better, self.segment] - scores[self.worse, self.segment]
        return (diff > TIE).astype(np.float64)

    def values(self, scores: FloatArray, weights: FloatArray) -> FloatArray:
        con = np.bincount(self.segment, self.concordant(scores), minlength=self.n_segments)
        pairs = weights @ self.per_segment
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.asarray((2.0 * (weights @ con) - pairs) / pairs, dtype=np.float64)


class AccEq:
    """Tie-calibrated pairwise accuracy, grouped by segment (WMT23's acc*_eq)."""

    def __init__(self, human: FloatArray) -> None:
        first: list[int] = []
        second: list[int] = []
        segment: list[int] = []
        n_systems, n_segments = human.shape
        for i in range(n_segments):
            judged = [s for s in range(n_systems) if not math.isnan(human[s, i])]
            for pos, a in enumerate(judged):
                for b in judged[pos + 1 :]:
                    first.append(a)
                    second.append(b)
                    segment.append(i)
        self.a = np.asarray(first, dtype=np.int64)
        self.b = np.asarray(second, dtype=np.int64)
        self.segment = np.asarray(segment, dtype=np.int64)
        self.n = int(self.a.size)
        self.n_segments = n_segments
        self.per_segment = np.bincount(self.segment, minlength=n_segments).astype(float)
        self.human_order = order_sign(human[self.a, self.segment], human[self.b, self.segment])
        self.epsilon = 0.0  # the last point estimate's ε

    def values(self, scores: FloatArray, weights: FloatArray) -> FloatArray:
        metric = scores[self.a, self.segment] - scores[self.b, self.segment]
        gap = np.abs(metric)
        order = np.argsort(gap, kind="stable")
        gap, metric = gap[order], metric[order]
        human = self.human_order[order]
        segment = self.segment[order]
        # A pair untied by the metric is right when the signs agree; tied, when the
        # humans tie it too. At ε = 0 exact metric ties are ties.
        right_untied = ((np.sign(metric) == human) & (metric != 0)).astype(float)
        right_tied = (human == 0).astype(float)
        # Candidate ε: 0 and every distinct gap; pairs up to a group's end tie.
        ends = np.flatnonzero(np.r_[gap[1:] != gap[:-1], True])
        candidates = np.r_[0.0, gap[ends]]
        out = np.empty(weights.shape[0])
        for start in range(0, weights.shape[0], _CHUNK):
            w = weights[start : start + _CHUNK]
            rows = (w[:, segment] / self.per_segment[segment]) / (w @ (self.per_segment > 0))[
                :, None
            ]  # each pair's share of the mean over segments
            base = rows @ right_untied
            flips = np.cumsum(rows * (right_tied - right_untied), axis=1)[:, ends]
            # ε = 0 ties exactly equal scores: the flips of a zero-gap group.
            zero = flips[:, 0] if gap.size and gap[0] == 0 else np.zeros(len(w))
            accuracy = base[:, None] + np.c_[zero, flips]
            best = np.argmax(accuracy, axis=1)
            out[start : start + _CHUNK] = accuracy[np.arange(len(w)), best]
            if start == 0:
                self.epsilon = float(candidates[best[0]])
        return out


class TauB:
    """Kendall τ-b over every judged translation pooled."""

    def __init__(self, human: FloatArray) -> None:
        system, segment = np.nonzero(~np.isnan(human))
        self.system, self.segment = system.astype(np.int64), segment.astype(np.int64)
        self.human = human[system, segment]
        self.n = int(self.system.size)

    def values(self, scores: FloatArray, weights: FloatArray) -> FloatArray:
        x = scores[self.system, self.segment]
        out = np.empty(len(weights))
        for k, w in enumerate(weights):
            # a resample repeats items; copies tie in both and count in no sum
            times = w[self.segment].astype(np.int64)
            out[k] = kendall_tau_b(np.repeat(x, times), np.repeat(self.human, times))
        return out


def _tie_pairs(change: npt.NDArray[np.bool_]) -> int:
    """Pairs of equal items in a sorted sequence, from where consecutive items differ."""
    runs = np.diff(np.flatnonzero(np.r_[True, change, True]))
    return int((runs * (runs - 1) // 2).sum())


def _inversions(values: IntArray) -> int:
    """Pairs i < j with values[i] > values[j] (a bottom-up merge sort, vectorised)."""
    n = values.size
    if n < 2:
        return 0
    size = 1 << (n - 1).bit_length()
    top = int(values.max()) + 1
    a = np.concatenate([values, np.full(size - n, top)])  # padding sorts last
    span = top + 1
    count = 0
    width = 1
    while width < size:
        pairs = a.reshape(-1, 2, width)
        offset = (np.arange(len(pairs)) * span)[:, None]
        left = (pairs[:, 0] + offset).ravel()  # each run sorted, runs increasing
        right = (pairs[:, 1] + offset).ravel()
        below = np.searchsorted(left, right, side="right")
        starts = np.repeat(np.arange(len(pairs)) * width, width)
        count += int((width - (below - starts)).sum())  # left values above each right one
        a = np.sort(pairs.reshape(-1, 2 * width), axis=1).ravel()
        width *= 2
    return count


def kendall_tau_b(x: FloatArray, y: FloatArray) -> float:
    """Kendall τ-b of two vectors (NaN when either is constant), in O(n log² n)."""
    n = x.size
    total = n * (n - 1) // 2
    order = np.lexsort((y, x))  # by x, then y: within equal x no pair is inverted
    xs, ys = x[order], y[order]
    x_change = xs[1:] != xs[:-1]
    x_ties, both = _tie_pairs(x_change), _tie_pairs(x_change | (ys[1:] != ys[:-1]))
    y_sorted = np.sort(y)
    y_ties = _tie_pairs(y_sorted[1:] != y_sorted[:-1])
    y_rank = np.searchsorted(y_sorted, ys)  # equal values, equal ranks
    discordant = _inversions(y_rank.astype(np.int64))
    concordant = total - x_ties - y_ties + both - discordant
    denominator = math.sqrt(float(total - x_ties) * float(total - y_ties))
    return (concordant - discordant) / denominator if denominator else math.nan


SegmentMeasure = PairTau | AccEq | TauB


def segment_measure(
    kind: str,
    human: FloatArray,
    hyps: Sequence[Sequence[str]] | None = None,
    darr_threshold: float = 25.0,
) -> SegmentMeasure:
    """The segment measure ``kind`` (one of :data:`SEGMENT_MEASURES`) on ``human``."""
    identical = identical_outputs(hyps) if hyps is not None else None
    if kind == "darr":
        return PairTau(human, darr_threshold, identical)
    if kind == "pairwise":
        return PairTau(human, 0.0, identical)
    if kind == "acc-eq":
        return AccEq(human)
    if kind == "tau-b":
        return TauB(human)
    raise ValueError(f"unknown segment measure {kind!r}")


# -- system level --------------------------------------------------------------------


def pearson(x: FloatArray, y: FloatArray) -> FloatArray:
    """Pearson r along the last axis (NaN where a side is constant); r does not depend
    on the scale, so each side is :func:`rescaled` first."""
    x, y = rescaled(x, axis=-1), rescaled(y, axis=-1)
    xc = x - x.mean(axis=-1, keepdims=True)
    yc = y - y.mean(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = (xc * yc).sum(axis=-1) / np.sqrt((xc * xc).sum(axis=-1) * (yc * yc).sum(axis=-1))
    return np.asarray(r, dtype=np.float64)


def ranks(x: FloatArray) -> FloatArray:
    """Ranks along the last axis, 1 for the lowest, ties sharing their mean rank."""
    below = (x[..., None, :] < x[..., :, None]).sum(axis=-1)
    equal = (x[..., None, :] == x[..., :, None]).sum(axis=-1)
    return np.asarray(below + (equal + 1) / 2.0, dtype=np.float64)


def spearman(x: FloatArray, y: FloatArray) -> FloatArray:
    """Spearman ρ along the last axis: Pearson r of the ranks."""
    return pearson(ranks(x), ranks(y))


def pairwise_accuracy(x: FloatArray, y: FloatArray) -> FloatArray:
    """Share of pairs (along the last axis) whose difference has the same sign in
    ``x`` and ``y`` (Kocmi et al. 2021; a tie agrees only with a tie)."""
    n = x.shape[-1]
    i, j = np.triu_indices(n, 1)
    agree = order_sign(x[..., i], x[..., j]) == order_sign(y[..., i], y[..., j])
    undefined = np.isnan(x).any(axis=-1) | np.isnan(y).any(axis=-1)
    return np.where(undefined, np.nan, agree.mean(axis=-1))


SYSTEM_MEASURES: dict[str, Callable[[FloatArray, FloatArray], FloatArray]] = {
    "pearson": pearson,
    "spearman": spearman,
    "accuracy": pairwise_accuracy,
}
