"""NLTK-exact METEOR: the numbers of ``nltk.translate.meteor_score`` (NLTK 3.10), fast.

Most published Python "METEOR" numbers (Hugging Face ``evaluate``, many LLM evaluation
kits) come from NLTK, which differs from the metric's definition and from Meteor 1.5.
:func:`meteor_score` and :func:`single_meteor_score` take NLTK's arguments and return
NLTK's floats, computed the way NLTK computes them:

* tokens are ``preprocess``-ed (``str.lower``); raw strings raise :class:`TypeError`;
* three stages, each on the words the previous ones left unlinked: identical words,
  then equal stems (NLTK's ``PorterStemmer``, whose default mode is
  ``NLTK_EXTENSIONS``, not Snowball's "porter"), then WordNet synonyms. The synonym
  stage sees the *stems* the stem stage produced: a hypothesis stem links to a
  reference stem that is one of the lemma names (those without ``_``) of
  ``wordnet.synsets(hypothesis_stem)``, or equal to it;
* every stage is greedy: hypothesis words from last to first, each linked to the
  last still-unlinked reference word that qualifies (no crossing minimisation);
* chunks are counted on that alignment, so "on the mat sat the cat" against
  "the cat sat on the mat" has 6 chunks and scores 0.5 (the definition says 0.9375);
* ``P = m/len(hyp)``, ``R = m/len(ref)``, ``Fmean = P·R / (α·P + (1−α)·R)``,
  ``penalty = γ·(chunks/m)^β``, ``score = (1 − penalty)·Fmean``, 0.0 when any of
  these divides by zero; the best score over the references.

This module is the API; the work is done by the ``nltk_compat`` plugin, found through
the plugin registry like every aligner: its ``nltk`` aligner aligns the tokens (with
NLTK's Porter stemmer, ported, and WordNet read straight from its files by the
``wordnet`` plugin, memoised per word: a custom ``stemmer`` or ``wordnet`` must be
deterministic, as NLTK's are), and the score is meteorx's one formula,
:func:`meteorx.scoring.compute` with ``fmean_form="nltk"``, which gives NLTK's floats
to the bit. α and γ must lie in [0, 1] and β ≥ 0, METEOR's ranges (NLTK would
return negative scores outside them); other values raise :class:`ValueError`.

**Where the default WordNet comes from**: the one search order of
:mod:`meteorx_plugins.wordnet.locate` (the ``wordnet_dir`` option of the
``wordnet-nltk`` matcher, ``$METEORX_WORDNET``, ``$WNSEARCHDIR``, ``$WNHOME/dict``,
NLTK's data folders, then system folders such as ``/usr/share/wordnet``); WordNet 3.0
with its ``data.*`` files is what NLTK ships. If none is found,
:class:`~meteorx.errors.ResourceError` says, on one line, what to install. Passing
``wordnet=nltk.corpus.wordnet`` (or any object with NLTK's ``synsets``) uses that
object instead, memoised. To run NLTK itself on the same files without
``nltk.download``, see :func:`meteorx_plugins.nltk_compat.build_nltk_data`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from typing import Any, Protocol, runtime_checkable

from meteorx import engine
from meteorx.errors import PluginError
from meteorx.scoring import Parameters, compute
from meteorx.stats import Stats

__all__ = ["align_words", "mean_meteor_score", "meteor_score", "single_meteor_score"]

#: ``(hyp, ref) -> (link per hypothesis position, negative when unlinked; matches; chunks)``
TokenAligner = Callable[[Sequence[str], Sequence[str]], tuple[list[int], int, int]]


@runtime_checkable
class NltkEngine(Protocol):
    """What the ``nltk`` aligner offers this module besides aligning candidates."""

    def token_aligner(self, stemmer: Any = None, wordnet: Any = None) -> TokenAligner:
        """NLTK METEOR's alignment of two preprocessed token lists, with NLTK's
        ``stemmer`` and ``wordnet`` arguments (``None``: NLTK's defaults)."""
        ...


_ENGINES: dict[str, NltkEngine] = {}


def _engine() -> NltkEngine:
    """The ``nltk`` aligner of the plugin registry, built once per engine (compiled or
    pure Python: :mod:`meteorx.engine`)."""
    which = engine.requested()
    aligner = _ENGINES.get(which)
    if aligner is None:
        from meteorx.registry import get_registry

        factory = get_registry().aligner("nltk")
        built = factory(factory.Options())
        if not isinstance(built, NltkEngine):
            raise PluginError(
                "the installed 'nltk' aligner cannot align token lists (token_aligner); "
                "meteorx.compat.nltk needs the nltk_compat plugin's"
            )
        aligner = _ENGINES[which] = built
    return aligner


@cache
def _parameters(alpha: float, beta: float, gamma: float) -> Parameters:
    """NLTK's formula as meteorx's: every link counts 1, no function words (δ 1, so
    ``P = m/len(hyp)`` as NLTK divides), no perfect-match rule, NLTK's Fmean."""
    if not (0.0 <= alpha <= 1.0 and beta >= 0.0 and 0.0 <= gamma <= 1.0):
        raise ValueError(
            f"METEOR needs 0 <= alpha <= 1, beta >= 0 and 0 <= gamma <= 1, not "
            f"alpha={alpha!r}, beta={beta!r}, gamma={gamma!r}"
        )
    return Parameters(
        alpha=alpha,
        beta=beta,
        gamma=gamma,
        delta=1.0,
        weights=(1.0,),
        perfect_match_rule=False,
        fmean_form="nltk",
    )


def _score(matches: int, chunks: int, hyp_len: int, ref_len: int, params: Parameters) -> float:
    stats = Stats(
        hyp_len=hyp_len,
        ref_len=ref_len,
        hyp_content_matches=(matches,),
        ref_content_matches=(matches,),
        hyp_function_matches=(0,),
        ref_function_matches=(0,),
        chunks=chunks,
        hyp_matched_words=matches,
        ref_matched_words=matches,
    )
    return compute(stats, params).score


def _tokens(value: Iterable[str], role: str, preprocess: Callable[[str], str]) -> list[str]:
    if isinstance(value, str):
        raise TypeError(
            f'"{role}" expects pre-tokenized {role} (Iterable[str]), got the string '
            f"{value!r}; split it first, e.g. {role}.split()"
        )
    return list(map(preprocess, value))


def align_words(
    hypothesis: Iterable[str],
    reference: Iterable[str],
    stemmer: Any = None,
    wordnet: Any = None,
) -> list[tuple[int, int]]:
    """NLTK's ``align_words(...)[0]``: ``(hypothesis index, reference index)`` links
    sorted by hypothesis index (NLTK lower-cases the tokens here, and so do we)."""
    hyp = _tokens(hypothesis, "hypothesis", str.lower)
    ref = _tokens(reference, "reference", str.lower)
    link = _engine().token_aligner(stemmer, wordnet)(hyp, ref)[0]
    return [(i, j) for i, j in enumerate(link) if j >= 0]


def single_meteor_score(
    reference: Iterable[str],
    hypothesis: Iterable[str],
    preprocess: Callable[[str], str] = str.lower,
    stemmer: Any = None,
    wordnet: Any = None,
    alpha: float = 0.9,
    beta: float = 3.0,
    gamma: float = 0.5,
) -> float:
    """NLTK's ``single_meteor_score``: one tokenised reference, one tokenised hypothesis.

    ``stemmer`` defaults to NLTK's ``PorterStemmer()`` and ``wordnet`` to the WordNet
    the search order finds; any NLTK stemmer / WordNet reader may be passed.

    >>> single_meteor_score("the cat sat on the mat".split(), "on the mat sat the cat".split())
    0.5
    """
    params = _parameters(alpha, beta, gamma)
    hyp = _tokens(hypothesis, "hypothesis", preprocess)
    ref = _tokens(reference, "reference", preprocess)
    _, matches, chunks = _engine().token_aligner(stemmer, wordnet)(hyp, ref)
    return _score(matches, chunks, len(hyp), len(ref), params)


def meteor_score(
    references: Iterable[Iterable[str]],
    hypothesis: Iterable[str],
    preprocess: Callable[[str], str] = str.lower,
    stemmer: Any = None,
    wordnet: Any = None,
    alpha: float = 0.9,
    beta: float = 3.0,
    gamma: float = 0.5,
) -> float:
    """NLTK's ``meteor_score``: the best :func:`single_meteor_score` over the references.

    Like NLTK: tokenised input only (a string raises :class:`TypeError`), and no
    references raises :class:`ValueError`. (A one-shot iterator as ``hypothesis`` is
    read once and reused; NLTK would see it empty from the second reference on.)

    >>> round(meteor_score([["the", "cat", "sat", "on", "the", "mat"]],
    ...                    ["the", "cat", "was", "sat", "on", "the", "mat"]), 4)
    0.9654
    """
    params = _parameters(alpha, beta, gamma)
    align = _engine().token_aligner(stemmer, wordnet)
    hyp: list[str] | None = None
    best: float | None = None
    for reference in references:
        if hyp is None:
            hyp = _tokens(hypothesis, "hypothesis", preprocess)
        ref = _tokens(reference, "reference", preprocess)
        _, matches, chunks = align(hyp, ref)
        value = _score(matches, chunks, len(hyp), len(ref), params)
        if best is None or value > best:
            best = value
    if best is None:
        raise ValueError("meteor_score() needs at least one reference")
    return best


def mean_meteor_score(
    references: Iterable[Iterable[Iterable[str]]],
    hypotheses: Iterable[Iterable[str]],
    **options: Any,
) -> float:
    """The mean of :func:`meteor_score` over segments: what Hugging Face ``evaluate``'s
    "meteor" and most NLTK-based papers report as a corpus score (they average segment
    scores; meteorx's own corpus score comes from summed statistics instead).

    ``references`` holds, per segment, its tokenised references. (``evaluate`` tokenises
    with ``nltk.word_tokenize``; pass tokens made the same way to reproduce it.)
    ``options`` are :func:`meteor_score`'s keyword arguments.
    """
    scores = [
        meteor_score(refs, hyp, **options) for refs, hyp in zip(references, hypotheses, strict=True)
    ]
    if not scores:
        raise ValueError("mean_meteor_score() needs at least one segment")
    return math.fsum(scores) / len(scores)
