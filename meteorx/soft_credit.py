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

Comparing every unaligned word with every other is quadratic, so each side's distinct
case-folded words are compared once, and only the first :data:`MAX_COMPARED` of them
(in segment order); a later word earns nothing. A segment's similarity matrix is then at
most 2,000 x 2,000 float64 (32 MB, well under a second) however long the segment, and
the rest of soft credit's memory is linear in its length. On the development sets no
segment has more than 61 distinct unaligned words a side, so the cap changes no score
there. The rule depends on the words alone: every engine, thread and process agrees.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice

import numpy as np
from rapidfuzz.distance import Indel
from rapidfuzz.process import cdist

__all__ = ["MAX_COMPARED", "best_similarities", "similarity_matrix"]

#: The most distinct unaligned words of a side that soft credit compares (see above).
MAX_COMPARED = 2_000


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
    ``cutoff``), and the same for each of ``ref_words``: among each side's first
    :data:`MAX_COMPARED` distinct case-folded words, words after them counting 0."""
    if not hyp_words or not ref_words:
        return [0.0] * len(hyp_words), [0.0] * len(ref_words)
    if len(hyp_words) <= MAX_COMPARED and len(ref_words) <= MAX_COMPARED:
        # every word of both sides is compared (the usual case: no time spent on the rule)
        matrix = similarity_matrix(hyp_words, ref_words, cutoff)
        return matrix.max(axis=1).tolist(), matrix.max(axis=0).tolist()
    hyp_folded = [w.casefold() for w in hyp_words]
    ref_folded = [w.casefold() for w in ref_words]
    hyp_compared = list(islice(dict.fromkeys(hyp_folded), MAX_COMPARED))
    ref_compared = list(islice(dict.fromkeys(ref_folded), MAX_COMPARED))
    # (folding the folded words again changes nothing: case folding is idempotent)
    hyp_best, ref_best = best_similarities(hyp_compared, ref_compared, cutoff)
    hyp_of = dict(zip(hyp_compared, hyp_best, strict=True))
    ref_of = dict(zip(ref_compared, ref_best, strict=True))
    return [hyp_of.get(w, 0.0) for w in hyp_folded], [ref_of.get(w, 0.0) for w in ref_folded]
