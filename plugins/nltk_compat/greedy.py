"""NLTK's greedy alignment over tokens: the inner loop of the NLTK-exact mode.

Kept in a module of its own so that it can be compiled: when the package is built with
Cython, this very file is also compiled, as it is, to the C extension
``meteorx_plugins.nltk_compat._greedy`` (same code, same results, about a quarter
faster). :func:`meteorx_plugins.nltk_compat.links.greedy_module` asks the engine seam
which of the two runs; ``tests/test_nltk_compat.py`` compares them.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

_NONE = -2  # "not linked" in a link list (so that _NONE + 1 is no position either)


#: ``synset_ids``, ``lemma_ids`` and ``synset_names`` of a :class:`WordNetSynonyms`.
Prefilter = tuple[
    Callable[[str], frozenset[int]],
    Callable[[str], frozenset[int]],
    Callable[[int], tuple[str, ...]],
]


def greedy_links(
    hyp: Sequence[str],
    ref: Sequence[str],
    stem: Callable[[str], str],
    synonyms: Callable[[str], frozenset[str]],
    prefilter: Prefilter | None = None,
) -> tuple[list[int], int, list[int], list[int]]:
    """NLTK's greedy three-stage alignment of preprocessed tokens, in one pass.

    Returns ``link`` (for each hypothesis position its reference position, or a
    negative number), the number of links, and the hypothesis positions the stem and
    the synonym stage linked (in the order NLTK links them); the other links are the
    exact stage's. Each stage, as NLTK's: hypothesis positions from last to first, each
    takes the last still-unlinked reference position with the same key (the word, then
    its stem) or, in the synonym stage, among the hypothesis stem's ``synonyms``.

    ``prefilter``, optional (see :func:`synonym_prefilter`), replaces ``synonyms`` by
    what they are made of, for a :class:`WordNetSynonyms` and lower-case keys: a
    reference stem is among the synonyms of a hypothesis stem when it is a lemma name
    (without ``_``) of one of its synsets, and then the index lists that synset for
    the reference stem. So only synsets shared by both sides are read, and most
    synonym sets are never built.
    """
    n = len(hyp)
    link = [_NONE] * n
    # Exact stage. Unlinked reference positions stay in ``positions``, ascending.
    positions = positions_by_key(ref)
    rest: list[int] = []
    for i in range(n - 1, -1, -1):
        found = positions.get(hyp[i])
        if found:
            link[i] = found.pop()
        else:
            rest.append(i)
    matches = n - len(rest)
    ref_left = len(ref) - matches
    if not rest or not ref_left:
        return link, matches, [], []
    # Stem stage, on what is left; reference positions regrouped by stem.
    by_stem: dict[str, list[int]] = {}
    for word, found in positions.items():
        if found:
            key = stem(word)
            same = by_stem.get(key)
            if same is None:
                by_stem[key] = found
            else:
                same.extend(found)
                same.sort()
    stem_links: list[int] = []
    rest_keys: list[tuple[int, str]] = []
    for i in rest:
        key = stem(hyp[i])
        found = by_stem.get(key)
        if found:
            link[i] = found.pop()
            stem_links.append(i)
        else:
            rest_keys.append((i, key))
    matches += len(stem_links)
    ref_left -= len(stem_links)
    if not rest_keys or not ref_left:
        return link, matches, stem_links, []
    # Synonym stage. A stem left on both sides is impossible here (the stem stage
    # would have linked it), so a link needs a reference stem among the synonyms.
    pool = {key: found for key, found in by_stem.items() if found}
    syn_links: list[int] = []
    if prefilter is not None:
        synset_ids, lemma_ids, synset_names = prefilter
        reachable = set().union(*map(lemma_ids, pool))  # synsets of reference stems
        if not reachable:
            return link, matches, stem_links, []
    for i, key in rest_keys:
        # The latest still-unlinked reference position among the key's synonyms.
        best_j = -1
        best: list[int] | None = None
        if prefilter is None:
            syns = synonyms(key)
            if syns.isdisjoint(pool):
                continue
            for word in syns.intersection(pool):
                found = pool[word]
                if found and found[-1] > best_j:
                    best_j = found[-1]
                    best = found
        else:
            ids = synset_ids(key)
            if reachable.isdisjoint(ids):
                continue
            for synset_id in reachable.intersection(ids):
                for word in synset_names(synset_id):
                    found = pool.get(word)
                    if found and found[-1] > best_j:
                        best_j = found[-1]
                        best = found
        if best is not None:
            best.pop()
            link[i] = best_j
            syn_links.append(i)
            ref_left -= 1
            if not ref_left:
                break
    return link, matches + len(syn_links), stem_links, syn_links


def positions_by_key(keys: Iterable[K | None]) -> dict[K, list[int]]:
    """Each key's positions in ``keys``, ascending (``None``: no key). Also the NLTK
    matchers' index of a sentence's stems or synonym keys."""
    index: dict[K, list[int]] = {}
    for i, key in enumerate(keys):
        if key is not None:
            found = index.get(key)
            if found is None:
                index[key] = [i]
            else:
                found.append(i)
    return index
