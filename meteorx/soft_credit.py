"""Soft credit: partial matches for the words an alignment leaves out.

METEOR counts a word as matched or not. A near miss no stage links (a wrong inflection
the stemmer does not know, a typo, one part of a compound, a transliterated name)
counts nothing, while chrF gives it most of its characters' credit. Soft credit adds,
to precision and recall only, each unaligned word's best character similarity to an
unaligned word of the other side. The alignment, and so the fragmentation penalty,
stay as they are: soft credit never links words. On the development sets with human
judgments it lifted held-out segment-level agreement on every set but one
(``benchmarks/results/human_agreement.md``).

The similarity is RapidFuzz's normalised Indel similarity of the case-folded words,
``1 - indel distance / (len a + len b)`` (twice the longest common subsequence over the
total length); below ``cutoff`` it counts 0.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from rapidfuzz.distance import Indel
from rapidfuzz.process import cdist

__all__ = ["best_similarities", "similarity_matrix"]


def similarity_matrix(
    hyp_words: Sequence[str], ref_words: Sequence[str], cutoff: float
) -> np.ndarray:
    """The similarity of every hypothesis word (rows) to every reference word (columns),
    0 below ``cutoff``; both lists non-empty."""
    return cdist(
        [w.casefold() for w in hyp_words],
        [w.casefold() for w in ref_words],
        scorer=Indel.normalized_similarity,
        score_cutoff=cutoff,
        dtype=np.float64,  # (the default, float32, would round every similarity)
    )


def best_similarities(
    hyp_words: Sequence[str], ref_words: Sequence[str], cutoff: float
) -> tuple[list[float], list[float]]:
    """For each of ``hyp_words``, its best similarity to any of ``ref_words`` (0 below
    ``cutoff``), and the same for each of ``ref_words``."""
    if not hyp_words or not ref_words:
        return [0.0] * len(hyp_words), [0.0] * len(ref_words)
    matrix = similarity_matrix(hyp_words, ref_words, cutoff)
    return matrix.max(axis=1).tolist(), matrix.max(axis=0).tolist()
