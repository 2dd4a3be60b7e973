"""A segment's counts: an alignment and its two sentences -> a :class:`Stats` record.

This is the pure-Python definition; ``meteorx._links_and_counts.alignment_stats`` is its
compiled twin for the common case (a word each, no soft credit), and
``tests/test_engines.py`` holds the two to the same numbers. Characters (``units:
characters``) and soft credit are counted here only: a compiled copy would not pay.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from meteorx.config import MeteorConfig
from meteorx.stats import Stats
from meteorx.types import Alignment

#: ``best_similarities(hyp_words, ref_words, cutoff)``: each word's best similarity to
#: the other side's (see :mod:`meteorx.soft_credit`).
Similarities = Callable[[list[str], list[str], float], tuple[list[float], list[float]]]


@dataclass(frozen=True)
class Counting:
    """How a configuration counts: what the scorer resolves once and passes per segment."""

    n_stages: int
    function_words: frozenset[str]
    perfect_match_rule: bool
    #: a token's size in precision and recall: None for a word each (Meteor 1.5's
    #: default); for ``units: characters`` its length as the jar's -ch counts it.
    size: Callable[[tuple[str, ...]], list[int]] | None = None
    #: soft credit's cut-off and similarity function (None: off).
    soft_cutoff: float | None = None
    similarities: Similarities | None = None

    @classmethod
    def of(cls, cfg: MeteorConfig, function_words: frozenset[str]) -> Counting:
        """How ``cfg`` counts, with these function words."""
        size = utf16_lengths if cfg.units == "characters" else None
        if cfg.soft_credit is None:
            return cls(len(cfg.stages), function_words, cfg.perfect_match_rule, size)
        from meteorx.soft_credit import best_similarities  # RapidFuzz: only when used

        cutoff = cfg.soft_credit.cutoff
        return cls(
            len(cfg.stages), function_words, cfg.perfect_match_rule, size, cutoff, best_similarities
        )

    @property
    def words_only(self) -> bool:
        """A word each and no soft credit: what the compiled twin counts."""
        return self.size is None and self.soft_cutoff is None


def segment_stats(
    counting: Counting, hyp: tuple[str, ...], ref: tuple[str, ...], alignment: Alignment
) -> Stats:
    """The alignment's counts: a word each, or its characters with ``units:
    characters`` (lengths, function words and matches alike; the matched words that
    fragmentation divides by stay words). With soft credit, one more block after the
    stages': the unaligned words' similarities (:mod:`meteorx.soft_credit`)."""
    fw = counting.function_words
    n = counting.n_stages
    size = counting.size
    hyp_size = size(hyp) if size else [1] * len(hyp)
    ref_size = size(ref) if size else [1] * len(ref)
    hyp_is_fw = [t.lower() in fw for t in hyp] if fw else [False] * len(hyp)
    ref_is_fw = [t.lower() in fw for t in ref] if fw else [False] * len(ref)
    hc = [0.0] * n
    rc = [0.0] * n
    hf = [0.0] * n
    rf = [0.0] * n
    hyp_words = 0
    ref_words = 0
    for m in alignment.matches:
        for k in range(m.hyp_start, m.hyp_start + m.hyp_len):
            if hyp_is_fw[k]:
                hf[m.stage] += hyp_size[k]
            else:
                hc[m.stage] += hyp_size[k]
        for k in range(m.ref_start, m.ref_start + m.ref_len):
            if ref_is_fw[k]:
                rf[m.stage] += ref_size[k]
            else:
                rc[m.stage] += ref_size[k]
        hyp_words += m.hyp_len
        ref_words += m.ref_len
    if counting.soft_cutoff is not None:
        soft = _soft_block(counting, hyp, ref, alignment, hyp_is_fw, ref_is_fw, hyp_size, ref_size)
        hc.append(soft[0])
        rc.append(soft[1])
        hf.append(soft[2])
        rf.append(soft[3])
    chunks = alignment.chunks
    if (
        counting.perfect_match_rule
        and chunks == 1
        and hyp_words == len(hyp)
        and ref_words == len(ref)
    ):
        chunks = 0  # a perfect segment adds no fragmentation (Meteor 1.5)
    return Stats(
        hyp_len=sum(hyp_size),
        ref_len=sum(ref_size),
        hyp_function=sum(k for k, f in zip(hyp_size, hyp_is_fw, strict=True) if f),
        ref_function=sum(k for k, f in zip(ref_size, ref_is_fw, strict=True) if f),
        hyp_content_matches=tuple(hc),
        ref_content_matches=tuple(rc),
        hyp_function_matches=tuple(hf),
        ref_function_matches=tuple(rf),
        chunks=chunks,
        hyp_matched_words=hyp_words,
        ref_matched_words=ref_words,
    )


def _soft_block(
    counting: Counting,
    hyp: tuple[str, ...],
    ref: tuple[str, ...],
    alignment: Alignment,
    hyp_is_fw: Sequence[bool],
    ref_is_fw: Sequence[bool],
    hyp_size: Sequence[int],
    ref_size: Sequence[int],
) -> tuple[float, float, float, float]:
    """Soft credit's counts (hyp content, ref content, hyp function, ref function):
    each unaligned word's size times its best similarity to the other side's."""
    assert counting.soft_cutoff is not None and counting.similarities is not None
    hyp_free = [True] * len(hyp)
    ref_free = [True] * len(ref)
    for m in alignment.matches:
        hyp_free[m.hyp_start : m.hyp_start + m.hyp_len] = [False] * m.hyp_len
        ref_free[m.ref_start : m.ref_start + m.ref_len] = [False] * m.ref_len
    hyp_k = [k for k, free in enumerate(hyp_free) if free]
    ref_k = [k for k, free in enumerate(ref_free) if free]
    if not hyp_k or not ref_k:
        return 0.0, 0.0, 0.0, 0.0
    counts = [0.0, 0.0, 0.0, 0.0]
    hyp_best, ref_best = counting.similarities(
        [hyp[k] for k in hyp_k], [ref[k] for k in ref_k], counting.soft_cutoff
    )
    for side, positions, best, is_fw, size in (
        (0, hyp_k, hyp_best, hyp_is_fw, hyp_size),
        (1, ref_k, ref_best, ref_is_fw, ref_size),
    ):
        for k, similarity in zip(positions, best, strict=True):
            if similarity:
                counts[side + (2 if is_fw[k] else 0)] += similarity * size[k]
    return counts[0], counts[1], counts[2], counts[3]


def utf16_lengths(tokens: tuple[str, ...]) -> list[int]:
    """Each token's length as Java's ``String.length()`` counts it (what the jar's -ch
    adds up): UTF-16 code units, so a character outside the Basic Multilingual Plane
    (an emoji, a rare CJK ideograph) counts 2. One encoding per sentence tells whether
    any token has such a character (most sentences have none)."""
    lengths = [len(t) for t in tokens]
    if len("".join(tokens).encode("utf-16-le")) == 2 * sum(lengths):
        return lengths
    return [len(t.encode("utf-16-le")) // 2 for t in tokens]
