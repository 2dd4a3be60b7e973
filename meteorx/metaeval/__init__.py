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

from meteorx.metaeval.agreement import (
    SEGMENT_MEASURES,
    SYSTEM_MEASURES,
    TIE,
    AccEq,
    FloatArray,
    IntArray,
    PairTau,
    SegmentMeasure,
    TauB,
    default_segment_measure,
    identical_outputs,
    kendall_tau_b,
    order_sign,
    pairwise_accuracy,
    pearson,
    ranks,
    rescaled,
    segment_measure,
    segment_pairs,
    spearman,
)
from meteorx.metaeval.bootstrap import (
    DEFAULT_SAMPLES,
    DEFAULT_SEED,
    Comparison,
    Figure,
    Judgments,
    Metric,
    evaluate,
    interval,
    mean_system_scores,
    p_value,
    resample_weights,
    summed_system_scores,
)

__all__ = [
    "DEFAULT_SAMPLES",
    "DEFAULT_SEED",
    "SEGMENT_MEASURES",
    "SYSTEM_MEASURES",
    "TIE",
    "AccEq",
    "Comparison",
    "Figure",
    "FloatArray",
    "IntArray",
    "Judgments",
    "Metric",
    "PairTau",
    "SegmentMeasure",
    "TauB",
    "default_segment_measure",
    "evaluate",
    "identical_outputs",
    "interval",
    "kendall_tau_b",
    "mean_system_scores",
    "order_sign",
    "p_value",
    "pairwise_accuracy",
    "pearson",
    "ranks",
    "resample_weights",
    "rescaled",
    "segment_measure",
    "segment_pairs",
    "spearman",
    "summed_system_scores",
]
