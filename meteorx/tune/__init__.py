"""Tuning α β γ δ and the stage weights to agree with human judgments.

The expensive part of METEOR — matching and alignment — does not depend on α β γ δ,
and with Meteor 1.5's aligner not on the stage weights either (its search uses fixed
weights, 1.0 for exact stages and 0.5 for the others). So every (system, segment,
reference) is aligned **once**, its sufficient statistics are stored in an array, and
each candidate setting only re-applies the formula (vectorised with numpy). Aligners
whose choices depend on the weights (``optimal``) are re-run once per distinct weight
vector tried, and cached.

Agreement measures, as WMT computes them:

* ``seg-tau`` — segment-level "DARR" Kendall-like τ: for each segment, every pair of
  systems whose human scores differ by more than a threshold (25 DA points) and whose
  outputs differ; τ = (concordant − discordant) / (concordant + discordant), a metric
  tie counting as discordant.
* ``seg-pearson`` — Pearson r between segment scores and human segment scores.
* ``sys-pearson`` — Pearson r between system scores (summed statistics) and human
  system scores (given, or the mean of the human segment scores).

Search: a coarse grid over α β γ δ (δ only when the configuration has function words;
without them δ cancels out), a finer grid around the best point, then a line search
over each stage weight but the first (fixed at 1, as in Meteor 1.5), repeated until
nothing improves. Segments can be split in two halves (by document when document ids
are given): tune on one, report on both, so the gain can be judged on held-out data.
"""

from meteorx.tune.data import (
    StatsBank,
    TuningData,
    discover_systems,
    fold_segments,
    load_tuning_data,
    read_documents,
    read_human_segments,
    read_human_systems,
    split_segments,
)
from meteorx.tune.objectives import OBJECTIVES, Objective, darr_pairs
from meteorx.tune.output import config_yaml, safe_name, tuned_config
from meteorx.tune.search import (
    COARSE,
    WEIGHT_GRID,
    WEIGHT_GRID_REALIGN,
    Evaluator,
    Setting,
    TuneResult,
    evaluate,
    tune,
)

__all__ = [
    "COARSE",
    "OBJECTIVES",
    "WEIGHT_GRID",
    "WEIGHT_GRID_REALIGN",
    "Evaluator",
    "Objective",
    "Setting",
    "StatsBank",
    "TuneResult",
    "TuningData",
    "config_yaml",
    "darr_pairs",
    "discover_systems",
    "evaluate",
    "fold_segments",
    "load_tuning_data",
    "read_documents",
    "read_human_segments",
    "read_human_systems",
    "safe_name",
    "split_segments",
    "tune",
    "tuned_config",
]
