"""The METEOR formulas, applied to a :class:`~meteorx.stats.Stats` record.

Follows Meteor 1.5 (Denkowski & Lavie), which generalises Banerjee & Lavie (2005):
with α=0.9 β=3 γ=0.5 δ=0.5, stage weights 1 and no perfect-match rule it is the 2005
metric exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any

from meteorx.stats import Stats


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


def fmean_of(precision: Any, recall: Any, alpha: float, form: str) -> Any:
    """Fmean of positive precision and recall, written as ``form`` says ("harmonic":
    Meteor 1.5's, "nltk": NLTK's). Elementwise on NumPy arrays too, so the resampling
    code computes exactly the same floats."""
    if form == "nltk":
        return (precision * recall) / (alpha * precision + (1.0 - alpha) * recall)
    return 1.0 / ((1.0 - alpha) / precision + alpha / recall)


def compute(stats: Stats, params: Parameters) -> Breakdown:
    """Precision, recall, Fmean, fragmentation, penalty and score of a record.

    Division by zero (empty input, nothing matched) scores 0 rather than failing, as
    Meteor 1.5 does, and the score is clamped at 0. Fragmentation is undefined (NaN)
    when nothing matched, except in a record of no segments at all (empty input),
    where it and the penalty are 0.
    """
    delta = params.delta
    weights = params.weights
    hyp_weighted_len = delta * (stats.hyp_len - stats.hyp_function) + (1.0 - delta) * (
        stats.hyp_function
    )
    ref_weighted_len = delta * (stats.ref_len - stats.ref_function) + (1.0 - delta) * (
        stats.ref_function
    )
    hyp_weighted = 0.0
    ref_weighted = 0.0
    for i, w in enumerate(weights):
        if i < len(stats.hyp_content_matches):
            hyp_weighted += stats.hyp_content_matches[i] * w * delta
            ref_weighted += stats.ref_content_matches[i] * w * delta
    for i, w in enumerate(weights):
        if i < len(stats.hyp_function_matches):
            hyp_weighted += stats.hyp_function_matches[i] * w * (1.0 - delta)
            ref_weighted += stats.ref_function_matches[i] * w * (1.0 - delta)
    precision = _div(hyp_weighted, hyp_weighted_len)
    recall = _div(ref_weighted, ref_weighted_len)
    if precision > 0.0 and recall > 0.0:
        fmean = fmean_of(precision, recall, params.alpha, params.fmean_form)
    else:
        fmean = 0.0
    matched_mean = (stats.hyp_matched_words + stats.ref_matched_words) / 2.0
    perfect = (
        params.perfect_match_rule
        and stats.hyp_matches == stats.hyp_len
        and stats.ref_matches == stats.ref_len
        and stats.chunks == 1
    )
    if perfect or stats.segments == 0:
        frag = 0.0  # a record of no segments (empty input) has nothing to fragment
    elif matched_mean > 0:
        frag = stats.chunks / matched_mean
    else:
        frag = math.nan
    penalty = params.gamma * math.pow(frag, params.beta) if not math.isnan(frag) else math.nan
    score = fmean * (1.0 - penalty)
    if math.isnan(score):
        score = 0.0
    return Breakdown(
        precision=precision,
        recall=recall,
        fmean=fmean,
        fragmentation=frag,
        penalty=penalty,
        score=max(score, 0.0),
    )


def _div(a: float, b: float) -> float:
    return a / b if b else 0.0
