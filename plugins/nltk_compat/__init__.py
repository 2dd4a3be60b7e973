"""First-party plugin ``nltk_compat``: NLTK 3.10's METEOR, through the normal scorer and
behind :mod:`meteorx.compat.nltk`.

Provides what the ``nltk`` preset needs to give ``nltk.translate.meteor_score``'s
numbers per segment:

* matcher ``porter-nltk``: equal stems under NLTK's ``PorterStemmer`` (default mode
  ``NLTK_EXTENSIONS``, which is not Snowball's "porter");
* matcher ``wordnet-nltk``: NLTK METEOR's synonym relation, read from WordNet 3.0
  without ``nltk.download`` (found and read by the ``wordnet`` plugin:
  :mod:`meteorx_plugins.wordnet.locate` says where it is looked for). Like NLTK it
  compares Porter *stems*: a hypothesis stem links to a reference stem among the lemma
  names of ``wordnet.synsets(hypothesis_stem)``;
* aligner ``nltk``: NLTK's greedy search. Stage after stage, hypothesis words from
  last to first, each takes the last still-free reference word its stage proposes;
  no crossing minimisation, so chunks are often more than the fewest possible. For
  the ``nltk`` preset's stages it aligns straight from the tokens (``align_prepared``,
  the code behind ``meteorx.compat.nltk.meteor_score``), without collecting
  candidates; the matchers' ``candidates`` serve other stage lists.

With weights 1, no function words and no perfect-match rule, meteorx's formula with
``fmean: nltk`` is NLTK's, to the bit.

Modules: ``matchers`` and ``aligner`` (what is registered), ``links`` (the alignment
of token lists with NLTK's arguments), ``greedy`` (its inner loop, compiled as it is
to ``_greedy`` where built), ``porter`` (NLTK's Porter stemmer, ported),
``nltk_data`` (NLTK's own reader on the same WordNet, for comparisons).
"""

from __future__ import annotations

from collections.abc import Callable

from meteorx.engine import declare
from meteorx.hookspecs import hookimpl
from meteorx.matchers import Matcher
from meteorx.registry import AlignerFactory
from meteorx_plugins.nltk_compat.aligner import NltkAligner
from meteorx_plugins.nltk_compat.links import (
    COMPILED,
    PURPOSE,
    align_stages,
    clear_caches,
    synonym_prefilter,
    token_aligner,
)
from meteorx_plugins.nltk_compat.matchers import NltkPorterMatcher, NltkWordNetMatcher
from meteorx_plugins.nltk_compat.nltk_data import build_nltk_data, nltk_wordnet_reader
from meteorx_plugins.nltk_compat.porter import porter_stem_function

__all__ = [
    "NltkAligner",
    "NltkPorterMatcher",
    "NltkWordNetMatcher",
    "align_stages",
    "build_nltk_data",
    "clear_caches",
    "nltk_wordnet_reader",
    "porter_stem_function",
    "synonym_prefilter",
    "token_aligner",
]

declare(COMPILED, PURPOSE)


@hookimpl
def meteorx_register_matchers(register: Callable[[type[Matcher]], None]) -> None:
    register(NltkPorterMatcher)
    register(NltkWordNetMatcher)


@hookimpl
def meteorx_register_aligners(register: Callable[[str, AlignerFactory], None]) -> None:
    register("nltk", NltkAligner)
