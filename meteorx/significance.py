"""Confidence intervals and paired significance tests, by resampling stored statistics.

Every test works on the summable :class:`~meteorx.stats.Stats` rows of the segments: a
resampled corpus is a sum of rows, scored with the same formula as the real corpus
(:func:`meteorx.scoring.breakdown_of`, here in a vectorised form). No segment is
re-aligned.

Definitions follow sacreBLEU 2.x (``sacrebleu/significance.py``), which follows Koehn
(2004) for the paired bootstrap and MultEval (Clark et al., 2011) for approximate
randomisation:

* **Bootstrap confidence interval** (:func:`bootstrap_ci`): draw ``n`` resamples of the
  segments with replacement; the interval is the 2.5th–97.5th percentile of the
  resampled scores (sacreBLEU's ``n // 40`` order statistics), reported with the mean
  of the resampled scores and the half-width ``(upper - lower) / 2`` (sacreBLEU's
  ``μ ± CI``).
* **Paired bootstrap** (:func:`paired_bootstrap`): the *same* resampled segment indices
  for the baseline and the system; the test statistic of a resample is
  ``|score_sys - score_base|`` minus the mean of that quantity over all resamples (the
  resampled differences shifted to satisfy the null hypothesis); the p-value is
  ``(c + 1) / (n + 1)`` where ``c`` counts resamples whose statistic reaches the
  observed difference ``|score_sys - score_base|``.
* **The system score's rule**: under ``system_score: mean`` (the ``nltk`` preset) a
  system's score is the mean of its segment scores, and so is every resampled one: each
  function takes the configuration's ``rule`` (:func:`resampled`).
* **Approximate randomisation** (:func:`paired_approximate_randomization`): in each of
  ``n`` trials, every segment's pair of statistics rows is swapped between the two
  systems with probability 1/2; the p-value is ``(c + 1) / (n + 1)`` where ``c`` counts
  trials whose ``|score_a - score_b|`` reaches the observed difference.

The p-value is "the probability of the absolute score difference (delta) *or higher*
occurring due to chance, under the assumption that the null hypothesis is correct"
(sacreBLEU's printed explanation). We therefore count trials with a statistic **at
least** as large as the observed one. sacreBLEU's code counts strictly larger ones,
which only differs on exact ties: for two identical systems it reports p = 1/(n+1)
("significantly different"), where this module reports p = 1. A system that differs
from the baseline on even one segment has tied statistics only by coincidence.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from meteorx.scoring import Parameters, formula
from meteorx.stats import Layout, Stats

FloatArray = npt.NDArray[np.float64]

#: Default numbers of resamples / trials, as in sacreBLEU.
DEFAULT_BOOTSTRAP = 1000
DEFAULT_AR_TRIALS = 10000
DEFAULT_SEED = 12345
#: Above this many random draws, randomisation trials are drawn in batches.
_MAX_DRAW = 200_000_000


# -- statistics as arrays -----------------------------------------------------------


def stats_matrix(records: Sequence[Stats], n_stages: int) -> FloatArray:
    """The records as statistics rows (:class:`~meteorx.stats.Layout`, padded to
    ``n_stages``), one row per record, as a float matrix."""
    layout = Layout(n_stages)
    rows = np.array([layout.row(r) for r in records], dtype=np.float64)
    return rows.reshape(len(records), layout.width)


def scores_of_rows(rows: FloatArray, params: Parameters) -> FloatArray:
    """The METEOR score of every statistics row (the last axis holds the row): the
    formula of :func:`meteorx.scoring.breakdown_of`, applied to arrays."""
    rows = np.asarray(rows, dtype=np.float64)
    counts = Layout.of_width(rows.shape[-1]).view(rows)
    return np.asarray(formula(counts, params)[-1], dtype=np.float64)


def corpus_score(rows: FloatArray, params: Parameters, rule: str = "statistics") -> float:
    """The corpus score of a set of segment rows (their sum, scored once; the mean of
    their scores under the ``mean`` rule)."""
    summable, score = resampled(rows, params, rule)
    return float(score(summable.sum(axis=0)))


def resampled(
    rows: FloatArray, params: Parameters, rule: str = "statistics"
) -> tuple[FloatArray, Callable[[FloatArray], FloatArray]]:
    """What a resampled corpus sums and how its sum is scored, under the configuration's
    ``system_score`` rule: the statistics rows and the formula (``statistics``), or each
    segment's score beside a 1 and their ratio (``mean``: the mean of segment scores,
    as :func:`meteorx.scoring.system_score` defines it)."""
    if rule != "mean":
        return rows, lambda sums: scores_of_rows(sums, params)
    pairs = np.column_stack([scores_of_rows(rows, params), np.ones(rows.shape[0])])

    def mean(sums: FloatArray) -> FloatArray:
        return np.asarray(sums[..., 0] / sums[..., 1], dtype=np.float64)

    return pairs, mean


# -- resampling ---------------------------------------------------------------------


def _rng(seed: int | None) -> np.random.Generator:
    return np.random.default_rng(seed)


def _resample_batches(
    rng: np.random.Generator, n_samples: int, n_rows: int
) -> Iterator[FloatArray]:
    """Bootstrap resamples as draw counts per row, in batches (each batch: k x n_rows).

    Row ``i`` of a batch says how often each segment was drawn in that resample, so
    ``batch @ rows`` is the summed statistics of every resample at once.
    """
    batch = max(1, 4_000_000 // max(n_rows, 1))
    for start in range(0, n_samples, batch):
        size = min(n_samples, start + batch) - start
        idx = rng.integers(0, n_rows, size=(size, n_rows))
        flat = (idx + np.arange(size)[:, None] * n_rows).ravel()
        counts = np.bincount(flat, minlength=size * n_rows).reshape(size, n_rows)
        yield counts.astype(np.float64)


@dataclass(frozen=True)
class Interval:
    """A bootstrap estimate: the observed score and the resampled distribution's summary."""

    score: float  # the observed corpus score
    mean: float  # mean of the resampled scores
    lower: float  # 2.5th percentile (sacreBLEU's n // 40 order statistic)
    upper: float  # 97.5th percentile
    n_samples: int
    seed: int | None

    @property
    def half_width(self) -> float:
        """sacreBLEU's "± CI": half the distance between the bounds."""
        return 0.5 * (self.upper - self.lower)


def _interval(score: float, samples: FloatArray, seed: int | None) -> Interval:
    ordered = np.sort(samples)
    n = len(ordered)
    lower_idx = n // 40
    upper_idx = n - lower_idx - 1
    return Interval(
        score=score,
        mean=float(ordered.mean()),
        lower=float(ordered[lower_idx]),
        upper=float(ordered[upper_idx]),
        n_samples=n,
        seed=seed,
    )


def bootstrap_ci(
    rows: FloatArray,
    params: Parameters,
    n_samples: int = DEFAULT_BOOTSTRAP,
    seed: int | None = DEFAULT_SEED,
    rule: str = "statistics",
) -> Interval:
    """95% bootstrap confidence interval of a system's corpus score (under ``rule``)."""
    _check(rows, n_samples)
    summable, score = resampled(rows, params, rule)
    samples = np.concatenate(
        [
            score(counts @ summable)
            for counts in _resample_batches(_rng(seed), n_samples, rows.shape[0])
        ]
    )
    return _interval(float(score(summable.sum(axis=0))), samples, seed)


@dataclass(frozen=True)
class PairedResult:
    """A system compared with the baseline."""

    baseline_score: float
    score: float
    p_value: float
    test: str  # "bs" or "ar"
    n_samples: int
    seed: int | None
    interval: Interval | None = None  # the system's bootstrap interval (paired bs)
    baseline_interval: Interval | None = None

    @property
    def delta(self) -> float:
        return self.score - self.baseline_score


def p_value(statistics: FloatArray, observed: float) -> float:
    """``(c + 1) / (n + 1)``, c = how many statistics reach the observed value.

    A tolerance of 1e-12 makes "reach" robust to floating-point noise in sums that
    are mathematically equal (e.g. identical systems).
    """
    c = int(np.sum(statistics >= observed - 1e-12))
    return (c + 1) / (len(statistics) + 1)


def paired_bootstrap(
    baseline: FloatArray,
    system: FloatArray,
    params: Parameters,
    n_samples: int = DEFAULT_BOOTSTRAP,
    seed: int | None = DEFAULT_SEED,
    rule: str = "statistics",
) -> PairedResult:
    """Paired bootstrap resampling test (Koehn 2004; sacreBLEU ``--paired-bs``)."""
    _check_pair(baseline, system, n_samples)
    base_rows, score = resampled(baseline, params, rule)
    sys_rows, _ = resampled(system, params, rule)
    base_parts: list[FloatArray] = []
    sys_parts: list[FloatArray] = []
    for counts in _resample_batches(_rng(seed), n_samples, baseline.shape[0]):
        base_parts.append(score(counts @ base_rows))
        sys_parts.append(score(counts @ sys_rows))
    base_samples = np.concatenate(base_parts)
    sys_samples = np.concatenate(sys_parts)
    base_score = float(score(base_rows.sum(axis=0)))
    sys_score = float(score(sys_rows.sum(axis=0)))
    observed = abs(sys_score - base_score)
    diffs = np.abs(sys_samples - base_samples)
    shifted = diffs - diffs.mean()
    return PairedResult(
        baseline_score=base_score,
        score=sys_score,
        p_value=p_value(shifted, observed),
        test="bs",
        n_samples=n_samples,
        seed=seed,
        interval=_interval(sys_score, sys_samples, seed),
        baseline_interval=_interval(base_score, base_samples, seed),
    )


def paired_approximate_randomization(
    baseline: FloatArray,
    system: FloatArray,
    params: Parameters,
    n_trials: int = DEFAULT_AR_TRIALS,
    seed: int | None = DEFAULT_SEED,
    rule: str = "statistics",
) -> PairedResult:
    """Paired two-sided approximate randomisation (MultEval; sacreBLEU ``--paired-ar``)."""
    _check_pair(baseline, system, n_trials)
    rng = _rng(seed)
    n = baseline.shape[0]
    baseline, score = resampled(baseline, params, rule)
    system, _ = resampled(system, params, rule)
    base_score = float(score(baseline.sum(axis=0)))
    sys_score = float(score(system.sum(axis=0)))
    observed = abs(sys_score - base_score)
    diffs = np.empty(n_trials, dtype=np.float64)
    # The swap decisions are drawn in one call, as sacreBLEU draws them, so the same
    # seed gives the same trials; only huge inputs are drawn in batches.
    whole = n_trials * n <= _MAX_DRAW
    all_keep = rng.integers(2, size=(n_trials, n), dtype=bool) if whole else None
    batch = max(1, 4_000_000 // max(n, 1))
    for start in range(0, n_trials, batch):
        stop = min(n_trials, start + batch)
        if all_keep is not None:
            keep_mask = all_keep[start:stop]
        else:
            keep_mask = rng.integers(2, size=(stop - start, n), dtype=bool)
        keep = keep_mask.astype(np.float64)
        swap = 1.0 - keep
        shuffled_a = keep @ baseline + swap @ system
        shuffled_b = swap @ baseline + keep @ system
        diffs[start:stop] = np.abs(score(shuffled_a) - score(shuffled_b))
    return PairedResult(
        baseline_score=base_score,
        score=sys_score,
        p_value=p_value(diffs, observed),
        test="ar",
        n_samples=n_trials,
        seed=seed,
    )


def _check(rows: FloatArray, n_samples: int) -> None:
    if rows.ndim != 2 or rows.shape[0] == 0:
        raise ValueError("resampling needs at least one segment")
    if n_samples < 1:
        raise ValueError(f"the number of resamples must be at least 1, got {n_samples}")


def _check_pair(baseline: FloatArray, system: FloatArray, n_samples: int) -> None:
    _check(baseline, n_samples)
    if baseline.shape != system.shape:
        raise ValueError(
            f"paired tests need the same segments: baseline has {baseline.shape[0]} rows of "
            f"{baseline.shape[1]}, system {system.shape[0]} rows of {system.shape[1]}"
        )
