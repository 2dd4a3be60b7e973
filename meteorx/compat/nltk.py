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
:func:`meteorx.scoring.breakdown_of` with ``fmean_form="nltk"``, which gives NLTK's
floats to the bit. α and γ must lie in [0, 1] and β ≥ 0 (finite), METEOR's ranges (NLTK
would return negative scores outside them); other values raise :class:`ValueError`.
Errors about the input are meteorx's too: :class:`NltkValueError` and
:class:`NltkTypeError` are both :class:`~meteorx.errors.InputError` and the
:class:`ValueError` / :class:`TypeError` NLTK raises for the same input.

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
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from typing import Any, Protocol, runtime_checkable

from meteorx import engine
from meteorx.error_text import quote
from meteorx.errors import InputError, PluginError
from meteorx.scoring import Parameters, breakdown_of
from meteorx.stats import Stats

__all__ = [
    "NltkTypeError",
    "NltkValueError",
    "align_words",
    "mean_meteor_score",
    "meteor_score",
    "single_meteor_score",
]


class NltkTypeError(InputError, TypeError):
    """Input of the wrong type (a string where NLTK wants tokens, a number of tokens)."""


class NltkValueError(InputError, ValueError):
    """Input NLTK refuses with a ValueError (no reference) or METEOR's ranges refuse."""


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


def _parameters(alpha: float, beta: float, gamma: float) -> Parameters:
    """NLTK's formula as meteorx's (:func:`_formula`), once α β γ are known to be numbers
    in METEOR's ranges."""
    for name, value in (("alpha", alpha), ("beta", beta), ("gamma", gamma)):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise NltkTypeError(f"{name} must be a number, not {type(value).__name__}")
    if not (0 <= alpha <= 1 and 0 <= beta <= sys.float_info.max and 0 <= gamma <= 1):
        raise NltkValueError(
            "METEOR needs 0 <= alpha <= 1, beta >= 0 (finite) and 0 <= gamma <= 1, not "
            f"alpha={quote(alpha, 40)}, beta={quote(beta, 40)}, gamma={quote(gamma, 40)}"
        )
    return _formula(float(alpha), float(beta), float(gamma))


@cache
def _formula(alpha: float, beta: float, gamma: float) -> Parameters:
    """NLTK's formula as meteorx's: every link counts 1, no function words (δ 1, so
    ``P = m/len(hyp)`` as NLTK divides), no perfect-match rule, NLTK's Fmean."""
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
    return breakdown_of(stats, params).score


def _tokens(value: Iterable[str], role: str, preprocess: Callable[[str], str]) -> list[str]:
    """The preprocessed tokens of ``value``: an iterable of strings (NLTK's type), each
    still a string after ``preprocess``."""
    if isinstance(value, str):
        raise NltkTypeError(
            f'"{role}" expects pre-tokenized {role} (Iterable[str]), got the string '
            f"{quote(value, 60)}; split it first, e.g. {role}.split()"
        )
    tokens = list(_iterable(value, role))
    if not all(isinstance(token, str) for token in tokens):
        raise NltkTypeError(f'"{role}" must hold strings (tokens)')
    tokens = list(map(preprocess, tokens))
    if not all(isinstance(token, str) for token in tokens):
        raise NltkTypeError(f'"{role}" tokens must still be strings after preprocess')
    return tokens


def _iterable(value: Any, role: str) -> Iterable[Any]:
    """``value`` if it is an iterable of items (not bytes, a string or a mapping)."""
    if not isinstance(value, Iterable) or isinstance(value, (str, bytes, bytearray, Mapping)):
        raise NltkTypeError(
            f'"{role}" expects an iterable (a list) of tokens, not {type(value).__name__}'
        )
    return value


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
    for reference in _iterable(references, "references"):
        if hyp is None:
            hyp = _tokens(hypothesis, "hypothesis", preprocess)
        ref = _tokens(reference, "reference", preprocess)
        _, matches, chunks = align(hyp, ref)
        value = _score(matches, chunks, len(hyp), len(ref), params)
        if best is None or value > best:
            best = value
    if best is None:
        raise NltkValueError("meteor_score() needs at least one reference")
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
    references = list(_iterable(references, "references"))
    hypotheses = list(_iterable(hypotheses, "hypotheses"))
    if len(references) != len(hypotheses):
        raise NltkValueError(
            f"{len(hypotheses)} hypotheses but {len(references)} references; they must pair up"
        )
    scores = [
        meteor_score(refs, hyp, **options) for refs, hyp in zip(references, hypotheses, strict=True)
    ]
    if not scores:
        raise NltkValueError("mean_meteor_score() needs at least one segment")
    return math.fsum(scores) / len(scores)
