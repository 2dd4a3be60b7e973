"""NLTK's greedy alignment of token lists, with the stemmer and WordNet NLTK's
``meteor_score`` takes: what :mod:`meteorx.compat.nltk` and the ``nltk`` aligner run.

Speed comes from memoising per-word work (stems, synsets, synonym sets; so a custom
``stemmer`` or ``wordnet`` must be deterministic, as NLTK's are), from the Porter port
(:mod:`~meteorx_plugins.nltk_compat.porter`), from reading WordNet directly
(:mod:`meteorx_plugins.wordnet.synsets`) instead of through NLTK's corpus reader (which
takes seconds to load), from running the three greedy stages in one pass over the
tokens (:mod:`~meteorx_plugins.nltk_compat.greedy`, compiled where built), and, with
the default WordNet, from building a synonym set only for a hypothesis stem that shares
a synset with a reference stem still unlinked (:func:`synonym_prefilter`).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any, Protocol

from meteorx.engine import compiled
from meteorx.types import count_chunks
from meteorx_plugins.nltk_compat import greedy, porter
from meteorx_plugins.nltk_compat.greedy import Prefilter
from meteorx_plugins.nltk_compat.porter import porter_stem_function
from meteorx_plugins.wordnet.synsets import Memo, WordNetSynonyms, clear_shared, shared_synonyms

__all__ = [
    "StemmerLike",
    "align_stages",
    "clear_caches",
    "greedy_module",
    "synonym_prefilter",
    "token_aligner",
]

#: The compiled twin of :mod:`~meteorx_plugins.nltk_compat.greedy` (that file, compiled).
COMPILED = "meteorx_plugins.nltk_compat._greedy"
PURPOSE = "NLTK's greedy alignment (the nltk preset, meteorx.compat.nltk)"

#: (link per hypothesis position, negative when unlinked; matches; chunks)
Links = tuple[list[int], int, int]
TokenAligner = Callable[[Sequence[str], Sequence[str]], Links]


class StemmerLike(Protocol):
    """What NLTK calls a stemmer: ``stem(word) -> str``."""

    def stem(self, word: str) -> str: ...


def greedy_module() -> ModuleType:
    """The greedy alignment the engine in use runs: compiled, or its source."""
    return compiled(COMPILED, purpose=PURPOSE) or greedy


def _memoised(function: Callable[[str], Any]) -> Callable[[str], Any]:
    memoised: Callable[[str], Any] = Memo(function).__getitem__
    return memoised


_STEMMERS: weakref.WeakKeyDictionary[Any, Callable[[str], str]] = weakref.WeakKeyDictionary()
_SYNONYMS: weakref.WeakKeyDictionary[Any, Callable[[str], frozenset[str]]] = (
    weakref.WeakKeyDictionary()
)


def _stem_function(stemmer: StemmerLike | None) -> Callable[[str], str]:
    function: Callable[[str], str]
    if stemmer is None or porter.is_default_porter(stemmer):
        function = porter_stem_function()
        return function
    try:
        return _STEMMERS[stemmer]
    except KeyError:
        function = _STEMMERS[stemmer] = _memoised(stemmer.stem)
        return function
    except TypeError:  # not weak-referenceable or not hashable: no memo
        return stemmer.stem


def _nltk_synonyms(wordnet: Any) -> Callable[[str], frozenset[str]]:
    def synonyms(word: str) -> frozenset[str]:
        names = {
            lemma.name()
            for synset in wordnet.synsets(word)
            for lemma in synset.lemmas()
            if "_" not in lemma.name()
        }
        names.add(word)
        return frozenset(names)

    memoised: Callable[[str], frozenset[str]] = _memoised(synonyms)
    return memoised


def _synonym_function(wordnet: Any) -> Callable[[str], frozenset[str]]:
    own: Callable[[str], frozenset[str]]
    if wordnet is None:
        own = shared_synonyms().synonyms
        return own
    if isinstance(wordnet, WordNetSynonyms):
        own = wordnet.synonyms
        return own
    try:
        return _SYNONYMS[wordnet]
    except KeyError:
        function = _SYNONYMS[wordnet] = _nltk_synonyms(wordnet)
        return function
    except TypeError:
        return _nltk_synonyms(wordnet)


def clear_caches() -> None:
    """Forget every memoised stem and synonym set (loaded WordNet files stay): for
    benchmarks that start cold, and long-running processes that want the memory."""
    porter.clear()
    clear_shared()
    _STEMMERS.clear()
    _SYNONYMS.clear()


def synonym_prefilter(
    stem: Callable[[str], str], synonyms: Callable[[str], frozenset[str]]
) -> Prefilter | None:
    """The ``prefilter`` of ``greedy_links`` when it is known to be safe: stems from
    :func:`~meteorx_plugins.nltk_compat.porter.porter_stem_function` (lower case) and
    synonyms from a :class:`~meteorx_plugins.wordnet.synsets.WordNetSynonyms`; None
    otherwise."""
    if not porter.is_porter_function(stem):
        return None
    memo = getattr(synonyms, "__self__", None)
    wordnet = getattr(getattr(memo, "function", None), "__self__", None)
    if isinstance(wordnet, WordNetSynonyms) and synonyms == wordnet.synonyms:
        return wordnet.synset_ids, wordnet.lemma_ids, wordnet.synset_names
    return None


_Functions = tuple[Callable[[str], str], Callable[[str], frozenset[str]], Prefilter | None]
_DEFAULT_FUNCTIONS: list[_Functions] = []  # the defaults' (stable: memos are cleared in place)


def _functions(stemmer: StemmerLike | None, wordnet: Any) -> _Functions:
    """Stemmer, synonyms and prefilter for NLTK's ``stemmer`` and ``wordnet`` arguments."""
    if stemmer is None and wordnet is None:
        if not _DEFAULT_FUNCTIONS:
            stem, synonyms = porter_stem_function(), shared_synonyms().synonyms
            _DEFAULT_FUNCTIONS.append((stem, synonyms, synonym_prefilter(stem, synonyms)))
        return _DEFAULT_FUNCTIONS[0]
    stem = _stem_function(stemmer)
    synonyms = _synonym_function(wordnet)
    return stem, synonyms, synonym_prefilter(stem, synonyms)


def token_aligner(
    stemmer: StemmerLike | None = None, wordnet: Any = None, module: ModuleType | None = None
) -> TokenAligner:
    """NLTK METEOR's alignment of two preprocessed token lists, ``(hyp, ref) -> (link,
    matches, chunks)``, with NLTK's ``stemmer`` (default: its ``PorterStemmer()``) and
    ``wordnet`` (default: the WordNet the search order finds; or any object with NLTK's
    ``synsets``). Chunks are counted as NLTK counts them; 0 without links. ``module``
    is the greedy alignment to run (default: :func:`greedy_module`'s)."""
    stem, synonyms, prefilter = _functions(stemmer, wordnet)
    module = module or greedy_module()
    links = module.greedy_links

    def align(hyp: Sequence[str], ref: Sequence[str]) -> Links:
        link, matches, _, _ = links(hyp, ref, stem, synonyms, prefilter)
        # NLTK counts chunks on its links in hypothesis order: the same number
        # (count_chunks reads hypothesis-ordered links with the sides swapped).
        return link, matches, count_chunks([(i, 1, j, 1) for i, j in enumerate(link) if j >= 0])

    return align


def align_stages(
    hyp: Sequence[str],
    ref: Sequence[str],
    stem: Callable[[str], str] | None = None,
    synonyms: Callable[[str], frozenset[str]] | None = None,
) -> tuple[list[tuple[int, int]], list[tuple[int, int]], list[tuple[int, int]]]:
    """NLTK's greedy alignment of already preprocessed tokens, stage by stage.

    Returns the (hypothesis index, reference index) links of the exact, stem and
    synonym stages, each in the order NLTK makes them. ``stem`` and ``synonyms``
    default to the memoised NLTK Porter stemmer and the default WordNet.
    """
    link, _, stem_links, syn_links = greedy_module().greedy_links(
        hyp, ref, stem or porter_stem_function(), synonyms or shared_synonyms().synonyms
    )
    later = set(stem_links) | set(syn_links)
    exact = [(i, link[i]) for i in range(len(hyp) - 1, -1, -1) if link[i] >= 0 and i not in later]
    return exact, [(i, link[i]) for i in stem_links], [(i, link[i]) for i in syn_links]
