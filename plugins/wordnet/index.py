"""The compact WordNet index the ``synonym`` matcher looks words up in.

:class:`WordNet` holds every lemma's synset ids and the exception lists, and answers
with them: synsets of a lemma, WordNet's ``morphy``, Meteor 1.5's base-form lookup.
:mod:`~meteorx_plugins.wordnet.reader` builds one from a database (and caches it).
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Literal

from meteorx.errors import ResourceError
from meteorx.resources import Located, short_checksum
from meteorx_plugins.wordnet.locate import POS_TAGS

__all__ = ["DETACHMENT_RULES", "METEOR15_RULES", "Morphology", "WordNet", "synset_id"]

#: WordNet's detachment rules (morphy(7WN)): (suffix, replacement) per part of speech.
DETACHMENT_RULES: dict[str, tuple[tuple[str, str], ...]] = {
    "n": (
        ("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"),
        ("ches", "ch"), ("shes", "sh"), ("men", "man"), ("ies", "y"),
    ),
    "v": (
        ("s", ""), ("ies", "y"), ("es", "e"), ("es", ""),
        ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", ""),
    ),
    "a": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    "r": (),
}  # fmt: skip

#: Meteor 1.5 tries the noun, verb and adjective rules in one list, in this order.
METEOR15_RULES: tuple[tuple[str, str], ...] = (
    DETACHMENT_RULES["n"] + DETACHMENT_RULES["v"] + DETACHMENT_RULES["a"]
)
#: METEOR15_RULES by the suffix's last letter (order kept): most words end in a letter
#: no suffix ends in and are done with one dict lookup.
_METEOR15_BY_LAST: dict[str, tuple[tuple[str, str], ...]] = {
    last: tuple(rule for rule in METEOR15_RULES if rule[0].endswith(last))
    for last in {suffix[-1] for suffix, _ in METEOR15_RULES}
}

Morphology = Literal["meteor-1.5", "morphy"]


def synset_id(offset: int, pos: str) -> int:
    """The integer id of synset ``offset`` of ``pos``: ``offset * 4 + POS index``."""
    index: int = POS_TAGS.index(pos)
    return offset * 4 + index


class WordNet:
    """The parts of WordNet the synonym matcher needs, in a compact, fast-loading form.

    Lemmas (lowercase, "_" for spaces) are kept sorted in one list (found by bisection:
    building a 147,000-entry dict would cost more than the whole warm load); the synset
    ids of lemma ``k`` are ``ids[starts[k]:starts[k + 1]]``, all parts of speech
    together, where an id is ``offset * 4 + POS index`` (:func:`synset_id`).
    ``exceptions`` maps a POS to its exception list (inflected form -> base forms).
    """

    def __init__(
        self,
        words: list[str],
        starts: array[int],
        ids: array[int],
        exceptions: dict[str, dict[str, tuple[str, ...]]],
        checksum: str,
        location: Located | None = None,
        cache_file: Path | None = None,
        from_cache: bool = False,
    ) -> None:
        if len(starts) != len(words) + 1 or (starts and starts[-1] != len(ids)):
            raise ResourceError("WordNet 3.0: the compiled database is inconsistent")
        self.words = words
        self.starts = starts
        self.ids = ids
        self.exceptions = exceptions
        #: SHA-256 of the *content* (see :func:`content_checksum`), not of the bytes
        self.checksum = checksum
        self.location = location
        self.cache_file = cache_file
        self.from_cache = from_cache
        #: every POS's exception lists merged (form -> bases), as Meteor 1.5 reads them
        self.any_exceptions: dict[str, tuple[str, ...]] = {}
        for pos in POS_TAGS:
            for form, bases in exceptions.get(pos, {}).items():
                old = self.any_exceptions.get(form, ())
                self.any_exceptions[form] = old + tuple(b for b in bases if b not in old)

    @classmethod
    def from_lemmas(
        cls,
        lemmas: Mapping[str, Sequence[int]],
        exceptions: dict[str, dict[str, tuple[str, ...]]],
        checksum: str = "",
    ) -> WordNet:
        """Build from a ``lemma -> synset ids`` mapping (for compiling and tests)."""
        words = sorted(lemmas)
        starts = array("i", [0])
        ids = array("i")
        for word in words:
            ids.extend(lemmas[word])
            starts.append(len(ids))
        return cls(words, starts, ids, exceptions, checksum)

    def __len__(self) -> int:
        return len(self.words)

    def __repr__(self) -> str:
        return f"<WordNet {self.describe()} {len(self)} lemmas from {self.location}>"

    # lookups ------------------------------------------------------------------------

    def _find(self, word: str) -> int:
        words = self.words
        k = bisect_left(words, word)
        return k if k < len(words) and words[k] == word else -1

    def synsets(self, lemma: str, pos: str | None = None) -> tuple[int, ...]:
        """Synset ids of a lemma (of one POS, or of all)."""
        k = self._find(lemma)
        if k < 0:
            return ()
        ids = tuple(self.ids[self.starts[k] : self.starts[k + 1]])
        if pos is None:
            return ids
        index = POS_TAGS.index(pos)
        return tuple(i for i in ids if i & 3 == index)

    def is_lemma(self, word: str, pos: str | None = None) -> bool:
        """Whether ``word`` is a WordNet lemma (of ``pos``, or of any POS)."""
        if pos is None:
            return self._find(word) >= 0
        return bool(self.synsets(word, pos))

    def morphy(self, word: str, pos: str) -> tuple[str, ...]:
        """WordNet's morphy: the lemmas of ``pos`` that ``word`` can be a form of.

        The word itself comes first when it is a lemma of ``pos``; then, if the word is
        in the POS's exception list, the listed bases, otherwise every result of the
        POS's detachment rules (adverbs have none) that is a lemma of ``pos``. Nouns
        ending in "ss" or of at most two letters are not reduced; for nouns ending in
        "ful" the rules apply before the suffix ("boxesful" -> "boxful"). Unlike NLTK,
        rules are applied once, as in WordNet's own library.
        """
        if pos not in DETACHMENT_RULES:
            raise ValueError(f"unknown part of speech {pos!r} (one of {', '.join(POS_TAGS)})")
        found: list[str] = [word] if self.is_lemma(word, pos) else []
        listed = self.exceptions.get(pos, {}).get(word)
        candidates: Iterable[str]
        if listed is not None:
            candidates = listed
        else:
            stem, tail = word, ""
            if pos == "n":
                if word.endswith("ful"):
                    stem, tail = word[:-3], "ful"
                elif word.endswith("ss") or len(word) <= 2:
                    stem = ""
            candidates = (
                stem[: -len(suffix)] + ending + tail
                for suffix, ending in DETACHMENT_RULES[pos]
                if stem.endswith(suffix)
            )
        for base in candidates:
            if base != word and base not in found and self.is_lemma(base, pos):
                found.append(base)
        return tuple(found)

    def meteor15_base_forms(self, word: str) -> tuple[str, ...]:
        """The base forms Meteor 1.5's synonym module looks up for ``word``.

        Its exception-list bases (any POS) if it has some; else the word itself when it
        ends in "ss" or has at most two characters; else the first result of
        :data:`METEOR15_RULES` that is a lemma of any POS; else nothing.
        """
        listed = self.any_exceptions.get(word)
        if listed is not None:
            return listed
        if word.endswith("ss") or len(word) <= 2:
            return (word,)
        for suffix, ending in _METEOR15_BY_LAST.get(word[-1], ()):
            if word.endswith(suffix):
                base = word[: -len(suffix)] + ending
                if self._find(base) >= 0:
                    return (base,)
        return ()

    def synonym_set(self, word: str, morphology: Morphology = "meteor-1.5") -> frozenset[int]:
        """Every synset id of ``word`` and of its base forms (the ``morphology`` option of
        :mod:`meteorx_plugins.wordnet`)."""
        ids: set[int] = set()
        if morphology == "meteor-1.5":
            starts = self.starts
            for lemma in (word, *self.meteor15_base_forms(word)):
                k = self._find(lemma)
                if k >= 0:
                    ids.update(self.ids[starts[k] : starts[k + 1]])
        else:
            for pos in POS_TAGS:
                for base in self.morphy(word, pos):
                    ids.update(self.synsets(base, pos))
        return frozenset(ids)

    def describe(self) -> str:
        return f"wordnet-{short_checksum(self.checksum)}"
