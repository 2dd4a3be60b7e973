"""The METEOR formula, written once: for one statistics record and for arrays of them.

Follows Meteor 1.5 (Denkowski & Lavie), which generalises Banerjee & Lavie (2005):
with α=0.9 β=3 γ=0.5 δ=0.5, stage weights 1 and no perfect-match rule it is the 2005
metric exactly.

Every step takes plain numbers or NumPy arrays (elementwise, broadcasting) and does the
same operations in the same order on both: a segment scored by the scorer, a corpus
resampled by :mod:`meteorx.significance` and a grid of settings tried by
:mod:`meteorx.tune` give the same floats. A case without a value (a zero denominator)
gets a safe denominator and is then chosen by :func:`_where`, never by a branch that
only one of the two kinds of input takes. The steps are separate functions because
tuning re-applies the later ones alone (the fragmentation does not depend on α β γ δ).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from meteorx.stats import Stats

#: A number, or a NumPy array of numbers (every operation elementwise).
Value = Any


@dataclass(frozen=True)
class Parameters:
    """The numbers the formula needs, independent of how the alignment was found."""

    alpha: float
    beta: float
    gamma: float
    delta: float
    weights: tuple[float, ...]
    perfect_match_rule: bool = True
    #: "harmonic" (Meteor 1.5's form) or "nltk" (NLTK's form of the same mean)
    fmean_form: str = "harmonic"
    #: how many leading blocks of the weights are the alignment's (None: all); the
    #: rest (soft credit) count in P and R but never make a segment a perfect match
    aligned_blocks: int | None = None


@dataclass(frozen=True)
class Breakdown:
    """Every intermediate quantity, for reports and explanations."""

    precision: float
    recall: float
    fmean: float
    fragmentation: float
    penalty: float
    score: float


#: Breakdown's fields in declaration order (what ``make_record`` takes values in).
BREAKDOWN_FIELDS = tuple(f.name for f in fields(Breakdown))


def _where(condition: Value, then: Value, otherwise: Value) -> Value:
    """``then`` where ``condition`` holds, else ``otherwise``: a conditional expression
    for a plain truth value, :func:`numpy.where` for an array of them (NumPy is only
    imported for arrays: scoring a record does not need it)."""
    if condition is True:  # a comparison of numbers gives the bool singletons
        return then
    if condition is False:
        return otherwise
    import numpy as np

    return np.where(condition, then, otherwise)


def _div(a: Value, b: Value) -> Value:
    """``a / b``, 0 where ``b`` is 0 (the divisor is made 1 there: no error, no warning)."""
    return _where(b != 0, a / (b + (b == 0)), 0.0)


def precision_recall(counts: Stats, delta: float, weights: Sequence[float]) -> tuple[Value, Value]:
    """Weighted precision and recall: each stage's matches count with the stage's
    weight, content words with δ and function words with 1 − δ (0 for an empty side).

    Each is at most 1: summed stage by stage, the weighted matches of a fully matched
    side can round one ulp past its weighted length (two stages of weight 1, δ 0.57),
    and are then cut back to 1."""
    function_delta = 1.0 - delta
    hyp_len = delta * (counts.hyp_len - counts.hyp_function) + function_delta * counts.hyp_function
    ref_len = delta * (counts.ref_len - counts.ref_function) + function_delta * counts.ref_function
    hyp_matched: Value = 0.0
    ref_matched: Value = 0.0
    stages = range(min(len(weights), len(counts.hyp_content_matches)))
    hc, rc = counts.hyp_content_matches, counts.ref_content_matches
    for i in stages:  # content words of every stage first, then function words
        hyp_matched = hyp_matched + hc[i] * weights[i] * delta
        ref_matched = ref_matched + rc[i] * weights[i] * delta
    hf, rf = counts.hyp_function_matches, counts.ref_function_matches
    for i in stages:
        hyp_matched = hyp_matched + hf[i] * weights[i] * function_delta
        ref_matched = ref_matched + rf[i] * weights[i] * function_delta
    precision, recall = _div(hyp_matched, hyp_len), _div(ref_matched, ref_len)
    return _where(precision > 1.0, 1.0, precision), _where(recall > 1.0, 1.0, recall)


def fmean_of(precision: Value, recall: Value, alpha: float, form: str) -> Value:
    """Fmean of *positive* precision and recall, written as ``form`` says ("harmonic":
    Meteor 1.5's, "nltk": NLTK's; equal in exact arithmetic, not always in floats).

    Where tiny values (a weight of 5e-324) underflow, NLTK's denominator can round to 0:
    the Fmean is then 0, as NLTK answers a zero division (the exact value is below
    1e-323 there; the harmonic form rounds such values to 0 or 5e-324 too)."""
    if form == "nltk":
        return _div(precision * recall, alpha * precision + (1.0 - alpha) * recall)
    return 1.0 / ((1.0 - alpha) / precision + alpha / recall)


def fmean(precision: Value, recall: Value, alpha: float, form: str = "harmonic") -> Value:
    """Fmean of precision and recall; 0 unless both are positive."""
    both = (precision > 0.0) & (recall > 0.0)
    mean = fmean_of(_where(both, precision, 1.0), _where(both, recall, 1.0), alpha, form)
    return _where(both, mean, 0.0)


def _aligned(side: Sequence[Value], blocks: int | None) -> Value:
    """The sum of one side's counts over the first ``blocks`` blocks (None: all)."""
    return sum(side if blocks is None else side[:blocks])


def fragmentation(
    counts: Stats, perfect_match_rule: bool, aligned_blocks: int | None = None
) -> Value:
    """Chunks per matched word (the mean of both sides' matched words).

    0 under the perfect-match rule for a record whose every word was aligned in one
    chunk (the alignment's blocks: the first ``aligned_blocks``, all when None), and
    for a record of no segments (empty input); NaN when nothing matched.
    """
    # (the rule is a setting, one bool for every record: ``and`` skips the test without it)
    perfect = perfect_match_rule and (
        (counts.chunks == 1)
        & (
            _aligned(counts.hyp_content_matches, aligned_blocks)
            + _aligned(counts.hyp_function_matches, aligned_blocks)
            == counts.hyp_len
        )
        & (
            _aligned(counts.ref_content_matches, aligned_blocks)
            + _aligned(counts.ref_function_matches, aligned_blocks)
            == counts.ref_len
        )
    )
    matched = (counts.hyp_matched_words + counts.ref_matched_words) / 2.0
    frag = _where(matched > 0, counts.chunks / (matched + (matched == 0)), math.nan)
    return _where(perfect | (counts.segments == 0), 0.0, frag)


def penalty(frag: Value, beta: Value, gamma: Value) -> Value:
    """γ · frag^β (NaN where the fragmentation is); arrays of β and γ broadcast, as
    tuning's grids do."""
    return _where(frag != frag, math.nan, gamma * frag**beta)


def final_score(fmean: Value, penalty: Value) -> Value:
    """Fmean · (1 − penalty), clamped at 0. Where nothing was aligned the penalty is NaN
    (there is no fragmentation to penalise) and the score is the Fmean: 0, unless soft
    credit counted near misses (:mod:`meteorx.soft_credit`)."""
    score = _where(penalty == penalty, fmean * (1.0 - penalty), fmean)
    return _where(score >= 0.0, score, 0.0)


def formula(counts: Stats, params: Parameters) -> tuple[Value, ...]:
    """(precision, recall, fmean, fragmentation, penalty, score) of ``counts``: numbers
    for a record, arrays for statistics rows seen through :meth:`Layout.view
    <meteorx.stats.Layout.view>`.

    Division by zero (empty input, nothing matched) scores 0 rather than failing, as
    Meteor 1.5 does, and the score is clamped at 0.
    """
    precision, recall = precision_recall(counts, params.delta, params.weights)
    mean = fmean(precision, recall, params.alpha, params.fmean_form)
    frag = fragmentation(counts, params.perfect_match_rule, params.aligned_blocks)
    pen = penalty(frag, params.beta, params.gamma)
    return precision, recall, mean, frag, pen, final_score(mean, pen)


def breakdown_of(stats: Stats, params: Parameters) -> Breakdown:
    """Precision, recall, Fmean, fragmentation, penalty and score of a record."""
    return Breakdown(*formula(stats, params))


def system_score(
    rule: str, total: Breakdown, segments: Sequence[float] | Callable[[], tuple[float, int]]
) -> Breakdown:
    """A system's breakdown under the configuration's ``system_score`` rule, decided here
    and nowhere else: that of its summed statistics (``total``); with ``mean`` (NLTK's
    convention) the score is instead the mean of its segment scores: ``segments`` are
    those scores, or a function giving their sum and number (asked only then). The other
    fields still come from the sums, and a system of no segments keeps ``total``'s score.
    """
    if rule != "mean":
        return total
    score_sum, count = segments() if callable(segments) else (sum(segments), len(segments))
    return replace(total, score=score_sum / count) if count else total


def system_breakdown(
    total: Stats,
    params: Parameters,
    rule: str,
    segments: Sequence[float] | Callable[[], tuple[float, int]],
) -> Breakdown:
    """The corpus aggregation, written once: the formula over a system's (or a
    document's) summed statistics ``total``, under the ``system_score`` rule
    (:func:`system_score`). Every path that reports a system score -- a whole corpus,
    streaming, ``--jobs``, Spark, reports, ``meteorx.compute`` -- ends here."""
    return system_score(rule, breakdown_of(total, params), segments)
