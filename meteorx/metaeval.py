"""Meta-evaluation: how well a metric's scores agree with human judgments.

The one implementation of every agreement measure used by ``meteorx correlate``,
``meteorx tune`` and the benchmarks' agreement study, with bootstrap intervals and a
paired test between metrics. numpy only.

Scores come as arrays of shape (systems, segments); human judgments likewise, NaN
where a translation was not judged (higher = better). Every measure takes a batch of
**segment weights** (how often each segment appears in a bootstrap resample; all ones
for the data as it is), so a resample is never materialised.

Segment level (:class:`PairTau`, :class:`AccEq`, :class:`TauB`):

* ``darr`` — WMT's DARR Kendall-like τ for direct assessment (WMT17-20; Ma et al.
  2018): every pair of systems' translations of one segment whose human scores differ
  by **more than** a threshold (25 DA points), leaving out pairs of identical
  translations (no metric can separate them); τ = (concordant − discordant) /
  (concordant + discordant), where a metric tie counts as **discordant**.
* ``pairwise`` — the same over every pair whose human scores differ at all (the
  threshold is 0): WMT's segment τ for MQM and error counts.
* ``acc-eq`` — tie-calibrated pairwise accuracy (WMT23's acc*_eq; Deutsch, Foster and
  Freitag 2023, "Ties Matter: Meta-Evaluating Modern Metrics with Pairwise Accuracy
  and Tie Calibration", EMNLP): every pair of translations of a segment, ties
  included; a pair is correct when the metric orders it as the humans do, or when
  both tie; the metric ties a pair when its scores differ by at most ε. Accuracy is
  computed per segment and averaged over segments ("group by item"), and ε is the
  value (0 or one of the pairs' score differences) maximising that average — chosen
  afresh in every bootstrap resample, since the calibration is part of the measure.
* ``tau-b`` — Kendall τ-b over all judged translations pooled: the only segment
  measure when there is a single system (no pairs within a segment exist).

System level: Pearson r, Spearman ρ and pairwise accuracy (Kocmi et al. 2021: the
share of pairs of systems the metric orders as the humans do).

Intervals: percentile bootstrap (2.5th–97.5th) over resamples of the segments — or of
whole documents, which keeps correlated segments together. System scores of a
resample are recomputed from the resampled segments (a METEOR system score from
its summed statistics); human system scores too, unless they were given separately.

Judgments may be on any scale, up to ±1e308: nothing here subtracts or sums them
as they are. Pairs are ordered by comparing scores (a difference beyond the largest
float is still more than any threshold), and sums and correlations work on the scores
divided by a power of two (:func:`rescaled`: exact, so ordinary scales give the same
figures bit for bit).

Comparisons: a **paired bootstrap** of each metric against the first, on the same
resamples that give the intervals. The p-value is two-sided, with the resampled
differences centred on their mean (the null hypothesis): (1 + #{|Δ* − mean Δ*| ≥
|Δ|}) / (1 + resamples). A paired bootstrap rather than a permutation test because
it needs nothing but the resamples already drawn, works for every measure
(ratios, correlations, calibrated accuracies alike) and, unlike swapping two metrics'
scores, does not assume the metrics score on one scale (chrF 0–100, METEOR 0–1).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Metric score differences at or below this are ties (floating-point noise).
TIE = 1e-12
SEGMENT_MEASURES = ("darr", "pairwise", "acc-eq", "tau-b")
DEFAULT_SAMPLES = 1000
DEFAULT_SEED = 12345
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


# -- metrics, resampling and the report ----------------------------------------------


@dataclass
class Metric:
    """A metric's scores on the data: per (system, segment), and its system scores for
    any segment weights (``system(weights)``: (resamples, segments) -> (resamples,
    systems))."""

    name: str
    segment: FloatArray
    system: Callable[[FloatArray], FloatArray]


def mean_system_scores(segment: FloatArray) -> Callable[[FloatArray], FloatArray]:
    """System scores as the (weighted) mean of the segment scores."""
    return lambda weights: np.asarray(
        (weights @ segment.T) / weights.sum(axis=1, keepdims=True), dtype=np.float64
    )


def summed_system_scores(
    rows: FloatArray, score: Callable[[FloatArray], FloatArray]
) -> Callable[[FloatArray], FloatArray]:
    """System scores from statistics summed over the (weighted) segments: ``rows`` is
    (systems, segments, fields); ``score`` maps summed rows (…, fields) to scores."""
    return lambda weights: np.asarray(
        score(np.einsum("bn,snk->bsk", weights, rows)), dtype=np.float64
    )


@dataclass
class Judgments:
    """Human judgments of the systems' translations."""

    human: FloatArray  # (systems, segments), NaN = not judged, higher = better
    #: given system scores (NaN = none), or None: each system's mean segment judgment
    human_sys: FloatArray | None = None
    #: resampling unit (document) of each segment; None: every segment its own
    units: IntArray | None = None

    def system_scores(self, weights: FloatArray) -> FloatArray:
        if self.human_sys is not None:
            return np.broadcast_to(self.human_sys, (len(weights), len(self.human_sys)))
        judged = ~np.isnan(self.human)
        # Means of the rescaled scores, scaled back (a mean is no larger than the
        # largest score: only the sums could overflow).
        exponent = np.frexp(np.fmax.reduce(np.abs(self.human), axis=None, initial=0.0))[1]
        scaled = np.ldexp(np.where(judged, self.human, 0.0), -exponent)
        with np.errstate(divide="ignore", invalid="ignore"):
            means = (weights @ scaled.T) / (weights @ judged.T)
        return np.asarray(np.ldexp(means, exponent), dtype=np.float64)

    def systems_with_scores(self) -> IntArray:
        if self.human_sys is not None:
            return np.flatnonzero(~np.isnan(self.human_sys)).astype(np.int64)
        return np.flatnonzero((~np.isnan(self.human)).any(axis=1)).astype(np.int64)


@dataclass
class Figure:
    """One measure's value, its bootstrap interval, and the n behind it."""

    value: float
    ci: tuple[float, float]
    n: int
    samples: FloatArray = field(repr=False, default_factory=lambda: np.zeros(0))


@dataclass
class Comparison:
    """A metric against the first on one measure: difference, its interval, p."""

    metric: str
    baseline: str
    measure: str
    delta: float
    ci: tuple[float, float]
    p: float


def resample_weights(
    n_segments: int, units: IntArray | None, samples: int, seed: int
) -> FloatArray:
    """(samples, segments) weights: how often each segment is drawn when ``units``
    (segments, or the documents they belong to) are resampled with replacement."""
    rng = np.random.default_rng(seed)
    if units is None:
        units = np.arange(n_segments, dtype=np.int64)
    _, index = np.unique(units, return_inverse=True)
    n_units = int(index.max()) + 1 if index.size else 0
    draws = rng.integers(0, n_units, size=(samples, n_units))
    counts = np.zeros((samples, n_units))
    np.add.at(counts, (np.arange(samples)[:, None], draws), 1.0)
    return counts[:, index]


def interval(samples: FloatArray) -> tuple[float, float]:
    """The 2.5th and 97.5th percentiles (NaN resamples, with nothing to measure, left
    out)."""
    finite = samples[np.isfinite(samples)]
    if not finite.size:
        return (math.nan, math.nan)
    lo, hi = np.quantile(finite, [0.025, 0.975])
    return (float(lo), float(hi))


def p_value(delta: float, samples: FloatArray) -> float:
    """Two-sided paired-bootstrap p-value of the difference ``delta`` (see the module)."""
    finite = samples[np.isfinite(samples)]
    if not finite.size or not math.isfinite(delta):
        return math.nan
    extreme = np.count_nonzero(np.abs(finite - finite.mean()) >= abs(delta) - TIE)
    return float((1 + extreme) / (1 + finite.size))


def _figure(value: float, samples: FloatArray, n: int) -> Figure:
    return Figure(value, interval(samples), n, samples)


def evaluate(
    metrics: Sequence[Metric],
    judgments: Judgments,
    measure: SegmentMeasure | None,
    samples: int = DEFAULT_SAMPLES,
    seed: int = DEFAULT_SEED,
    system_measures: Sequence[str] = ("pearson", "spearman", "accuracy"),
) -> tuple[dict[str, dict[str, dict[str, Figure]]], list[Comparison]]:
    """Every metric's figures, ``{name: {"segment": {...}, "system": {...}}}`` (segment:
    ``tau`` or ``acc-eq`` by the measure; system: ``system_measures``, with three or
    more judged systems), and each metric compared with the first."""
    n_segments = judgments.human.shape[1]
    ones = np.ones((1, n_segments))
    weights = resample_weights(n_segments, judgments.units, samples, seed)
    keep = judgments.systems_with_scores()
    do_system = keep.size >= 3
    human_point = judgments.system_scores(ones)[:, keep]
    segment_name = "acc-eq" if isinstance(measure, AccEq) else "tau"
    out: dict[str, dict[str, dict[str, Figure]]] = {}
    for metric in metrics:
        figures: dict[str, dict[str, Figure]] = {"segment": {}, "system": {}}
        if measure is not None and measure.n:
            value = float(measure.values(metric.segment, ones)[0])
            figures["segment"][segment_name] = _figure(
                value, measure.values(metric.segment, weights), measure.n
            )
        point = metric.system(ones)[:, keep] if do_system else ones
        if do_system and np.isfinite(point).all():  # (a metric may have no system scores)
            resampled = metric.system(weights)[:, keep]
            human = judgments.system_scores(weights)[:, keep]
            for name in system_measures:
                fn = SYSTEM_MEASURES[name]
                figures["system"][name] = _figure(
                    float(fn(point, human_point)[0]), fn(resampled, human), int(keep.size)
                )
        out[metric.name] = figures
    comparisons: list[Comparison] = []
    first = metrics[0].name if metrics else ""
    for metric in metrics[1:]:
        for level in ("segment", "system"):
            for name, fig in out[metric.name][level].items():
                base = out[first][level].get(name)
                if base is None:
                    continue
                delta = fig.value - base.value
                diffs = fig.samples - base.samples
                comparisons.append(
                    Comparison(
                        metric.name, first, name, delta, interval(diffs), p_value(delta, diffs)
                    )
                )
    return out, comparisons
