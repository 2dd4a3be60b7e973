"""The ``nltk`` aligner: NLTK's greedy search, over candidates or straight from the tokens."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import Any

from meteorx.align import Aligner
from meteorx.matchers import Matcher
from meteorx.types import ALIGNMENT_FIELDS, Alignment, Match, count_chunks, record_maker
from meteorx_plugins.nltk_compat.greedy import Prefilter
from meteorx_plugins.nltk_compat.links import (
    StemmerLike,
    TokenAligner,
    greedy_module,
    synonym_prefilter,
    token_aligner,
)
from meteorx_plugins.nltk_compat.matchers import NltkPorterMatcher, NltkWordNetMatcher
from meteorx_plugins.nltk_compat.porter import porter_stem_function

__all__ = ["NltkAligner"]


class NltkAligner(Aligner):
    """NLTK's greedy alignment of meteorx candidates.

    Stages in order; within a stage, hypothesis positions from last to first, each
    taking the free candidate with the largest reference position (for multi-word
    spans: every covered position must be free; longer spans first on ties).
    """

    uses_weights = False  # stage order decides, not the weights

    def describe(self) -> str:
        return "nltk"

    def __init__(self, options: Any = None) -> None:
        self._plan: tuple[list[Matcher], _FastPlan | None] | None = None
        self._greedy = greedy_module()  # compiled or not: asked once, when it is built
        self._greedy_links = self._greedy.greedy_links
        self._default_aligner: TokenAligner | None = None  # NLTK's stemmer and WordNet
        self._record = record_maker()

    def token_aligner(
        self, stemmer: StemmerLike | None = None, wordnet: Any = None
    ) -> TokenAligner:
        """NLTK METEOR's alignment of two preprocessed token lists with NLTK's
        ``stemmer`` and ``wordnet`` arguments (see
        :func:`~meteorx_plugins.nltk_compat.links.token_aligner`): what
        :mod:`meteorx.compat.nltk` scores with (the default one is built once)."""
        if stemmer is not None or wordnet is not None:
            return token_aligner(stemmer, wordnet, self._greedy)
        if self._default_aligner is None:
            self._default_aligner = token_aligner(None, None, self._greedy)
        return self._default_aligner

    def prepared_stages(self, matchers: Sequence[Matcher]) -> frozenset[int] | None:
        """The stages whose prepared forms :meth:`align_prepared` reads (None: all of
        them), so that a scorer can skip preparing the others."""
        plan = self._plan
        if plan is None or plan[0] != matchers:
            plan = self._plan = (list(matchers), _fast_plan(matchers))
        return None if plan[1] is None else frozenset({1})

    def align_prepared(
        self,
        matchers: Sequence[Matcher],
        hyp_prepared: Sequence[Any],
        ref_prepared: Sequence[Any],
        hyp_len: int,
        ref_len: int,
    ) -> Alignment | None:
        """The same alignment straight from the prepared sentences, without candidates.

        Only for the ``nltk`` preset's stages (``exact``, ``porter-nltk``,
        ``wordnet-nltk`` with ``stem``, same Porter mode); ``None`` otherwise, meaning
        "collect candidates and call :meth:`align`". A scorer may try this first: it
        skips building and sorting every candidate link (NLTK's three greedy stages run
        in one pass over the tokens, with memoised stems and synonym sets).
        """
        plan = self._plan
        if plan is None or plan[0] != matchers:  # a list compares its items by identity
            plan = self._plan = (list(matchers), _fast_plan(matchers))
        fast = plan[1]
        if fast is None:
            return None
        # porter-nltk's prepared form is the token tuple itself.
        link, _, stem_links, syn_links = self._greedy_links(
            hyp_prepared[1], ref_prepared[1], fast[0], fast[1], fast[2]
        )
        new = _tuple_new
        # The links in reference order (no sort: each reference position is linked to
        # at most one hypothesis position).
        hyp_of = [-1] * ref_len
        for i, j in enumerate(link):
            if j >= 0:
                hyp_of[j] = i
        if stem_links or syn_links:
            stage = [0] * len(link)
            for i in stem_links:
                stage[i] = 1
            for i in syn_links:
                stage[i] = 2
            matches = [new(Match, (j, 1, i, 1, stage[i])) for j, i in enumerate(hyp_of) if i >= 0]
        else:
            matches = [new(Match, (j, 1, i, 1, 0)) for j, i in enumerate(hyp_of) if i >= 0]
        alignment: Alignment = self._record(  # Alignment(matches, chunks), built faster
            Alignment, ALIGNMENT_FIELDS, (tuple(matches), count_chunks(matches), True)
        )
        return alignment

    def align(
        self,
        candidates: Sequence[Match],
        hyp_len: int,
        ref_len: int,
        weights: Sequence[float],
        exact_stages: frozenset[int],
    ) -> Alignment:
        hyp_free = [True] * hyp_len
        ref_free = [True] * ref_len
        chosen: list[Match] = []
        # Stage ascending; within a stage hypothesis and reference descending (longer
        # spans first on ties): two C-level sorts, the second one stable.
        ordered = sorted(candidates, key=_hyp_ref_desc, reverse=True)
        ordered.sort(key=_stage)
        for m in ordered:
            ref_start, ref_n, hyp_start, hyp_n, _ = m
            if hyp_n == 1 and ref_n == 1:
                if hyp_free[hyp_start] and ref_free[ref_start]:
                    hyp_free[hyp_start] = False
                    ref_free[ref_start] = False
                    chosen.append(m)
                continue
            hyp_span = range(hyp_start, hyp_start + hyp_n)
            ref_span = range(ref_start, ref_start + ref_n)
            if all(hyp_free[k] for k in hyp_span) and all(ref_free[k] for k in ref_span):
                for k in hyp_span:
                    hyp_free[k] = False
                for k in ref_span:
                    ref_free[k] = False
                chosen.append(m)
        chosen.sort()  # reference order (Match starts with ref_start)
        return Alignment(tuple(chosen), count_chunks(chosen))


_FastPlan = tuple[Callable[[str], str], Callable[[str], frozenset[str]], Prefilter | None]


def _fast_plan(matchers: Sequence[Matcher]) -> _FastPlan | None:
    """Stemmer, synonyms and synonym prefilter when the stages are exactly the nltk preset's."""
    if len(matchers) != 3:
        return None
    exact, porter, wordnet = matchers
    if not (exact.is_exact and exact.name == "exact"):
        return None
    if not (isinstance(porter, NltkPorterMatcher) and isinstance(wordnet, NltkWordNetMatcher)):
        return None
    if not wordnet.options.stem or wordnet.options.porter_mode != porter.mode:
        return None
    stem = porter_stem_function(porter.mode)
    return stem, wordnet._synonyms, synonym_prefilter(stem, wordnet._synonyms)


_tuple_new = tuple.__new__  # builds a Match without NamedTuple's Python-level __new__
_hyp_ref_desc = itemgetter(2, 0, 3, 1)  # Match: ref_start, ref_len, hyp_start, hyp_len, stage
_stage = itemgetter(4)
