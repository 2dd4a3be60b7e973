"""Bootstrap intervals and paired tests (:mod:`meteorx.metaeval`): every metric's
agreement figures on the data and on resamples of its segments (or documents), and
each metric compared with the first.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from meteorx.metaeval.agreement import (
    SYSTEM_MEASURES,
    TIE,
    AccEq,
    FloatArray,
    IntArray,
    SegmentMeasure,
)

DEFAULT_SAMPLES = 1000
DEFAULT_SEED = 12345

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
