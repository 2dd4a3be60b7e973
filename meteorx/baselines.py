"""Baseline metrics for meta-evaluation: sacreBLEU's chrF and BLEU (optional extra).

Segment scores are sacreBLEU's sentence scores (``sentence_chrf``, ``sentence_bleu``:
BLEU with effective n-gram order); a system score is its corpus score, computed from
the segments' summed n-gram statistics, so a bootstrap resample of the segments gets
its own corpus score.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import numpy as np

from meteorx.errors import InputError, ResourceError
from meteorx.metaeval import FloatArray, Metric, summed_system_scores

#: --baseline names -> the names results are reported under.
BASELINES = {"chrf": "chrF", "bleu": "BLEU"}
INSTALL = 'pip install sacrebleu (or pip install ".[baselines]" in a checkout of meteorx)'


def parse_baselines(text: str | None) -> list[str]:
    """``chrf,bleu`` -> the baselines' keys, checked."""
    names = [n.strip().lower() for n in (text or "").split(",") if n.strip()]
    unknown = [n for n in names if n not in BASELINES]
    if unknown:
        raise InputError(
            f"unknown baseline {unknown[0]!r}; use one or more of: {', '.join(BASELINES)}"
        )
    return list(dict.fromkeys(names))


def baseline_metric(
    name: str, hyps: Sequence[Sequence[str]], refs: Sequence[Sequence[str]]
) -> Metric:
    """The baseline ``name`` (a key of :data:`BASELINES`) on ``hyps`` [system][segment]
    against ``refs`` [reference][segment]."""
    try:
        from sacrebleu.metrics.bleu import BLEU
        from sacrebleu.metrics.chrf import CHRF
    except ImportError:
        raise ResourceError(f"--baseline needs sacreBLEU: {INSTALL}") from None
    sentence: Any
    corpus: Any
    if name == "chrf":
        sentence = corpus = CHRF()
    else:
        sentence, corpus = BLEU(effective_order=True), BLEU()
    # One pass of n-gram statistics per system; a segment's score is that of its own
    # statistics (what sentence_score computes), a system's that of their sum.
    logger = logging.getLogger("sacrebleu")
    level = logger.level
    logger.setLevel(logging.ERROR)  # not its advice on tokenisation, once per system
    try:
        rows = np.asarray(
            [corpus._extract_corpus_statistics(list(sys_hyps), [list(r) for r in refs])
             for sys_hyps in hyps],
            dtype=np.float64,
        )  # fmt: skip
    finally:
        logger.setLevel(level)
    segment = np.asarray(
        [[sentence._compute_score_from_stats(list(row)).score for row in system]
         for system in rows],
        dtype=np.float64,
    )  # fmt: skip

    def score(summed: FloatArray) -> FloatArray:
        flat = summed.reshape(-1, summed.shape[-1])
        values = [corpus._compute_score_from_stats(list(row)).score for row in flat]
        return np.asarray(values, dtype=np.float64).reshape(summed.shape[:-1])

    return Metric(BASELINES[name], segment, summed_system_scores(rows, score))
