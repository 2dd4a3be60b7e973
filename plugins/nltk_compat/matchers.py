"""The ``porter-nltk`` and ``wordnet-nltk`` matchers: NLTK METEOR's stem and synonym stages.

Both look at words in pairs (``candidates``); the ``nltk`` aligner, for the ``nltk``
preset's stages, does not even ask them (it aligns straight from the tokens). With
``prune`` they propose only the links NLTK's greedy stages could still make.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from operator import itemgetter
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from meteorx.languages import Language
from meteorx.matchers import Matcher
from meteorx.types import Span
from meteorx_plugins.nltk_compat.greedy import positions_by_key
from meteorx_plugins.nltk_compat.porter import porter_stem_function
from meteorx_plugins.wordnet.synsets import shared_synonyms

__all__ = ["NltkPorterMatcher", "NltkWordNetMatcher", "PorterOptions", "WordNetOptions"]

PorterMode = Literal["NLTK_EXTENSIONS", "MARTIN_EXTENSIONS", "ORIGINAL_ALGORITHM"]


def _surplus(own: dict[str, int], other: dict[str, int]) -> dict[str, int]:
    """Words with more copies on this side than on the other, and how many more."""
    return {w: c - other.get(w, 0) for w, c in own.items() if c > other.get(w, 0)}


class _Side:
    """One sentence as the candidate path of both NLTK matchers sees it (see ``_side``)."""

    __slots__ = ("counts", "pair", "tokens")

    def __init__(self, tokens: Sequence[str]) -> None:
        self.tokens = tokens
        counts: dict[str, int] = {}
        for token in tokens:
            counts[token] = counts.get(token, 0) + 1
        self.counts = counts
        #: (reference side, porter mode, _Leftovers) of the last pair this hypothesis
        #: side was aligned in: the stem stage computes it, the synonym stage reuses it.
        self.pair: tuple[_Side, str, _Leftovers] | None = None


_SIDES: dict[int, tuple[Sequence[str], _Side]] = {}


def _side(tokens: Sequence[str]) -> _Side:
    """The :class:`_Side` of a token tuple, reused while the scorer asks both matchers
    for the candidates of the same pair (it does, stage after stage)."""
    found = _SIDES.get(id(tokens))
    if found is not None and found[0] is tokens:
        return found[1]
    side = _Side(tokens)
    if isinstance(tokens, tuple):
        if len(_SIDES) >= 4:
            _SIDES.clear()
        _SIDES[id(tokens)] = (tokens, side)
    return side


class _Leftovers:
    """Words NLTK's exact stage cannot link (with their stems) for one pair.

    For each word, the exact stage links ``min(hyp copies, ref copies)`` copies, so
    only the side with more copies keeps any, and only the surplus. With ``prune``
    the later stages look at these words only: their other links could never be
    chosen by the greedy aligner.
    """

    __slots__ = ("hyp", "hyp_stems", "ref", "ref_stems")

    def __init__(self, hyp: _Side, ref: _Side, stem: Callable[[str], str], prune: bool) -> None:
        if prune:
            self.hyp = _surplus(hyp.counts, ref.counts)
            self.ref = _surplus(ref.counts, hyp.counts) if self.hyp else {}
        else:
            self.hyp, self.ref = hyp.counts, ref.counts
        if self.hyp and self.ref:
            self.hyp_stems = {w: stem(w) for w in self.hyp}
            self.ref_stems = {w: stem(w) for w in self.ref}
        else:
            self.hyp_stems = self.ref_stems = {}


def _leftovers(hyp: _Side, ref: _Side, mode: str, prune: bool) -> _Leftovers:
    pair = hyp.pair
    if prune and pair is not None and pair[0] is ref and pair[1] == mode:
        return pair[2]
    found = _Leftovers(hyp, ref, porter_stem_function(mode), prune)
    if prune:
        hyp.pair = (ref, mode, found)
    return found


_PRUNE_HELP = (
    "only for the nltk preset's stage order (exact, porter-nltk, wordnet-nltk) with the "
    "nltk aligner: propose only links that aligner can still make after the earlier "
    "stages (same alignment, far fewer candidates, stems and synonyms looked up only for "
    "words still unlinked)"
)


class PorterOptions(BaseModel):
    """Options of the ``porter-nltk`` matcher."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    mode: PorterMode = Field("NLTK_EXTENSIONS", description="NLTK PorterStemmer mode")
    prune: bool = Field(False, description=_PRUNE_HELP)


class NltkPorterMatcher(Matcher[PorterOptions]):
    """Links words with equal stems under NLTK's ``PorterStemmer`` (as NLTK's METEOR)."""

    name = "porter-nltk"
    Options = PorterOptions

    def __init__(self, options: PorterOptions, language: Language) -> None:
        super().__init__(options, language)
        self.mode = options.mode
        self._prune = options.prune
        porter_stem_function(options.mode)  # load the stemmer now

    def prepare(self, tokens: Sequence[str]) -> Sequence[str]:
        return tokens  # the work is per pair (align_prepared, or candidates)

    def candidates(self, hyp_tokens: Any, ref_tokens: Any) -> Iterable[Span]:
        hyp, ref = _side(hyp_tokens), _side(ref_tokens)
        left = _leftovers(hyp, ref, self.mode, self._prune)
        hyp_stems, ref_stems = left.hyp_stems, left.ref_stems
        if not hyp_stems:
            return ()
        by_stem = positions_by_key(map(hyp_stems.get, hyp.tokens))
        out: list[Span] = []
        for j, word in enumerate(ref.tokens):
            key = ref_stems.get(word)
            if key is not None:
                for i in by_stem.get(key, ()):
                    out.append(Span(i, 1, j, 1))
        return out

    def describe(self) -> str:
        pruned = ",pruned" if self._prune else ""
        return f"{self.name}.v{self.version}({self.mode.lower()}{pruned})"


class WordNetOptions(BaseModel):
    """Options of the ``wordnet-nltk`` matcher."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    stem: bool = Field(
        True,
        description="compare Porter stems, as NLTK does (its synonym stage sees the stem "
        "stage's output); false compares the words themselves",
    )
    porter_mode: PorterMode = Field("NLTK_EXTENSIONS", description="stemmer mode when stem")
    wordnet_dir: str | None = Field(
        None, description="WordNet dict folder (default: $METEORX_WORDNET, NLTK's, system)"
    )
    prune: bool = Field(False, description=_PRUNE_HELP)


class NltkWordNetMatcher(Matcher[WordNetOptions]):
    """Links a hypothesis word to a reference word among its WordNet synonyms (NLTK)."""

    name = "wordnet-nltk"
    Options = WordNetOptions

    def __init__(self, options: WordNetOptions, language: Language) -> None:
        super().__init__(options, language)
        self.wordnet = shared_synonyms(options.wordnet_dir)
        self._synonyms = self.wordnet.synonyms
        if options.stem:
            porter_stem_function(options.porter_mode)

    def prepare(self, tokens: Sequence[str]) -> Sequence[str]:
        return tokens  # the work is per pair (align_prepared, or candidates)

    def _keys(self, hyp: _Side, ref: _Side) -> tuple[dict[str, str], dict[str, str]]:
        """word -> key (its stem, or itself) of the words on each side that may still be
        unlinked when this stage runs."""
        options = self.options
        if not options.stem:
            if options.prune:
                hyp_words = _surplus(hyp.counts, ref.counts)
                ref_words = _surplus(ref.counts, hyp.counts) if hyp_words else {}
            else:
                hyp_words, ref_words = hyp.counts, ref.counts
            return {w: w for w in hyp_words}, {w: w for w in ref_words}
        left = _leftovers(hyp, ref, options.porter_mode, options.prune)
        if not options.prune or not left.hyp_stems:
            return left.hyp_stems, left.ref_stems
        # The stem stage leaves each stem unlinked on one side at most (the surplus).
        hyp_left: dict[str, int] = {}
        for w, key in left.hyp_stems.items():
            hyp_left[key] = hyp_left.get(key, 0) + left.hyp[w]
        ref_left: dict[str, int] = {}
        for w, key in left.ref_stems.items():
            ref_left[key] = ref_left.get(key, 0) + left.ref[w]
        hyp_keep = _surplus(hyp_left, ref_left)
        if not hyp_keep:
            return {}, {}
        ref_keep = _surplus(ref_left, hyp_left)
        return (
            {w: k for w, k in left.hyp_stems.items() if k in hyp_keep},
            {w: k for w, k in left.ref_stems.items() if k in ref_keep},
        )

    def candidates(self, hyp_tokens: Any, ref_tokens: Any) -> Iterable[Span]:
        hyp, ref = _side(hyp_tokens), _side(ref_tokens)
        hyp_keys, ref_keys = self._keys(hyp, ref)
        if not hyp_keys or not ref_keys:
            return ()
        ref_index = positions_by_key(map(ref_keys.get, ref.tokens))
        synonyms = self._synonyms
        out: list[Span] = []
        for i, word in enumerate(hyp.tokens):
            key = hyp_keys.get(word)
            if key is None:
                continue
            syns = synonyms(key)
            if len(syns) <= len(ref_index):
                for other in syns:
                    for j in ref_index.get(other, ()):
                        out.append(Span(i, 1, j, 1))
            else:
                for other, found in ref_index.items():
                    if other in syns:
                        for j in found:
                            out.append(Span(i, 1, j, 1))
        out.sort(key=_ref_then_hyp)  # the Matcher contract: by reference, then hypothesis
        return out

    def describe(self) -> str:
        options = self.options
        keys = f"porter-{options.porter_mode.lower()}" if options.stem else "words"
        pruned = ",pruned" if options.prune else ""
        return f"{self.name}.v{self.version}({keys}{pruned},{self.wordnet.describe()})"

    def resources(self) -> dict[str, str]:
        return {"wordnet": str(self.wordnet.location)}


_ref_then_hyp = itemgetter(2, 0)
