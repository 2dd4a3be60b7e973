"""NLTK's view of a WordNet database: ``wordnet.synsets(word)`` and the lemma names of
synsets, read straight from the files, for NLTK's METEOR.

The same database as :mod:`~meteorx_plugins.wordnet.reader` reads (found by the same
:func:`~meteorx_plugins.wordnet.locate.find_wordnet`), read another way because NLTK's
answers depend on more than the index: lemma names come from the ``data.*`` files
(with their case, e.g. "Einstein"), synsets keep their part of speech, and NLTK's
``morphy`` is not WordNet's (its noun rules add "-ves" -> "-f"; it reduces nouns ending
in "ss" and short words; an exception list entry listed twice keeps its last line).
So the Meteor 1.5 jar's copy (no parts of speech, no data files) never serves here.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from meteorx.errors import ResourceError
from meteorx_plugins.wordnet.locate import (
    INSTALL_HINT,
    POS_NAMES,
    POS_TAGS,
    WordNetFiles,
    find_wordnet,
)

__all__ = ["Memo", "WordNetSynonyms", "clear_shared", "shared_synonyms"]

#: (tag, file name) per part of speech, in NLTK's POS_LIST order.
_POS = tuple((pos, POS_NAMES[pos]) for pos in POS_TAGS)

#: NLTK's morphological substitutions (``WordNetCorpusReader.MORPHOLOGICAL_SUBSTITUTIONS``).
_SUBSTITUTIONS: dict[str, tuple[tuple[str, str], ...]] = {
    "n": (
        ("s", ""),
        ("ses", "s"),
        ("ves", "f"),
        ("xes", "x"),
        ("zes", "z"),
        ("ches", "ch"),
        ("shes", "sh"),
        ("men", "man"),
        ("ies", "y"),
    ),
    "v": (
        ("s", ""),
        ("ies", "y"),
        ("es", "e"),
        ("es", ""),
        ("ed", "e"),
        ("ed", ""),
        ("ing", "e"),
        ("ing", ""),
    ),
    "a": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    "r": (),
}

#: Every suffix a substitution rule removes, per part of speech (a quick "no rule").
_ENDINGS = {pos: tuple(old for old, _ in rules) for pos, rules in _SUBSTITUTIONS.items()}

_INDEX_LINE = re.compile(r"^(\S+) (.*)$", re.MULTILINE)

# NLTK strips one trailing syntactic marker such as "(a)", "(p)" or "(ip)".
_MARKER = re.compile(r"(.*?)(\([^()]*\))?$")

# The head of a data file line: offset (8 digits), lex_filenum, ss_type, w_cnt (hex).
_SYNSET_HEAD = re.compile(rb"(\d{8}) \d\d [nvasr] ([0-9a-fA-F]{2}) ")


class Memo(dict[str, Any]):
    """A per-word memo: ``memo[word]`` computes ``function(word)`` once (hits run in C)."""

    __slots__ = ("function",)

    def __init__(self, function: Callable[[str], Any]) -> None:
        super().__init__()
        self.function = function

    def __missing__(self, word: str) -> Any:
        if len(self) > 1_000_000:
            self.clear()
        value = self[word] = self.function(word)
        return value


class WordNetSynonyms:
    """NLTK's synonym relation read straight from the WordNet files.

    :meth:`synonyms` returns exactly what NLTK's METEOR builds for a word::

        {lemma.name() for synset in wordnet.synsets(word) for lemma in synset.lemmas()
         if "_" not in lemma.name()} | {word}

    with NLTK's ``synsets``: the word lower-cased, then for each part of speech
    (noun, verb, adjective, adverb) the forms NLTK's ``morphy`` finds (the word itself
    plus either its exception-list entries or one round of suffix rules, kept when the
    index lists them), and every synset the index gives for those forms. The index is
    loaded on first use (well under a second); results are memoised per word.
    """

    def __init__(self, wordnet_dir: str | os.PathLike[str] | WordNetFiles | None = None) -> None:
        if isinstance(wordnet_dir, WordNetFiles):
            location = wordnet_dir
        else:
            located = find_wordnet(wordnet_dir, data=True, explicit_origin="wordnet_dir")
            location = WordNetFiles.of(located)
        #: the database's files (a folder or a zip), found by the one search order
        self.location: WordNetFiles = location
        self._index: dict[str, dict[str, str]] = {}  # pos -> lemma -> rest of its line
        self._exceptions: dict[str, dict[str, list[str]]] = {}
        self._data: dict[str, bytes] = {}
        # Per part of speech: form -> synset offsets; offset -> (lemma names, the ones
        # without "_"), both filled as needed.
        self._offsets: dict[str, dict[str, tuple[int, ...]]] = {pos: {} for pos, _ in _POS}
        self._names: dict[str, dict[int, tuple[tuple[str, ...], tuple[str, ...]]]] = {
            pos: {} for pos, _ in _POS
        }
        self._loaded = False
        self._memos = (Memo(self._synonyms), Memo(self._synset_ids), Memo(self._lemma_ids))
        #: ``synonyms(word)``, memoised: NLTK METEOR's synonym set of ``word``.
        self.synonyms: Callable[[str], frozenset[str]] = self._memos[0].__getitem__
        #: ``synset_ids(word)``, memoised: NLTK's ``synsets(word)`` as synset ids
        #: (``offset * 4 + part of speech number``, in NLTK's order n, v, a, r).
        self.synset_ids: Callable[[str], frozenset[int]] = self._memos[1].__getitem__
        #: ``lemma_ids(lemma)``, memoised: ids of the synsets the index lists for
        #: ``lemma`` exactly as given (no ``morphy``). WordNet indexes every word of every
        #: synset under its lower-case form, so a lower-case word is a lemma name of a
        #: synset only if the synset's id is in this set.
        self.lemma_ids: Callable[[str], frozenset[int]] = self._memos[2].__getitem__

    def describe(self) -> str:
        return f"wordnet-{self.location.version}"

    def load(self) -> None:
        """Read the index and data files now (otherwise done on first use)."""
        if not self._loaded:
            self._load()

    def clear(self) -> None:
        """Forget memoised synonym sets and parsed synsets (the loaded files stay)."""
        for memo in self._memos:
            memo.clear()
        for offsets in self._offsets.values():
            offsets.clear()
        for names in self._names.values():
            names.clear()

    def _load(self) -> None:
        for pos, name in _POS:
            text = self.location.read(f"index.{name}").decode("utf-8")
            # Lemma lines start with the lemma; licence lines start with spaces.
            self._index[pos] = dict(_INDEX_LINE.findall(text))
            exceptions: dict[str, list[str]] = {}
            for line in self.location.read(f"{name}.exc").decode("utf-8").splitlines():
                terms = line.split()
                if terms:
                    exceptions[terms[0]] = terms[1:]
            self._exceptions[pos] = exceptions
            self._data[pos] = self.location.read(f"data.{name}")
        self._loaded = True

    def _synset_offsets(self, pos: str, form: str) -> tuple[int, ...]:
        """Synset offsets the ``pos`` index lists for ``form`` (which must be there)."""
        known = self._offsets[pos]
        offsets = known.get(form)
        if offsets is None:
            # pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt offsets...
            fields = self._index[pos][form].split()
            start = 5 + int(fields[2])
            offsets = known[form] = tuple(map(int, fields[start : start + int(fields[1])]))
        return offsets

    def _synset_ids(self, word: str) -> frozenset[int]:
        """NLTK's ``synsets(word)``: the word lower-cased; for each part of speech the
        forms ``morphy`` keeps (the word, and its exception-list entries or else one
        round of suffix rules, when the index lists them); their synsets. As a set:
        only the union of their lemma names counts."""
        if not self._loaded:
            self._load()
        lemma = word.lower()
        ids: set[int] = set()
        for number, (pos, _) in enumerate(_POS):
            index = self._index[pos]
            known = self._offsets[pos]
            variants = self._exceptions[pos].get(lemma)
            if variants is None:
                variants = (
                    [
                        lemma[: -len(old)] + new
                        for old, new in _SUBSTITUTIONS[pos]
                        if lemma.endswith(old)
                    ]
                    if lemma.endswith(_ENDINGS[pos])
                    else []
                )
            for form in (lemma, *variants):
                if form in index:
                    offsets = known.get(form) or self._synset_offsets(pos, form)
                    ids.update([offset * 4 + number for offset in offsets])
        return frozenset(ids)

    def _lemma_ids(self, lemma: str) -> frozenset[int]:
        if not self._loaded:
            self._load()
        ids: set[int] = set()
        for number, (pos, _) in enumerate(_POS):
            if lemma in self._index[pos]:
                ids.update([offset * 4 + number for offset in self._synset_offsets(pos, lemma)])
        return frozenset(ids)

    def _parse(self, pos: str, offset: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The lemma names of a synset, all and those without ``_``."""
        data = self._data[pos]
        end = data.find(b"\n", offset)
        if end < 0:
            end = len(data)
        # synset_offset lex_filenum ss_type w_cnt (word lex_id)... p_cnt ...
        head = _SYNSET_HEAD.match(data, offset)
        if head is not None and int(head[1]) == offset:
            count = int(head[2], 16)
            words = data[head.end() : end].split(b" ", 2 * count)[: 2 * count : 2]
        else:  # not the usual field widths: split the line
            fields = data[offset:end].split(None, 4)
            if len(fields) < 5 or not fields[0].isdigit() or int(fields[0]) != offset:
                raise ResourceError(
                    f"WordNet data.{dict(_POS)[pos]} has no synset at offset {offset}: "
                    f"{self.location} is corrupt or mixes versions; {INSTALL_HINT}"
                )
            count = int(fields[3], 16)
            words = fields[4].split(None, 2 * count)[: 2 * count : 2]
        found: list[str] = []
        for raw in words:
            name = raw.decode("utf-8")
            if name.endswith(")"):
                marked = _MARKER.match(name)
                assert marked is not None
                name = marked.group(1)
            found.append(name)
        names = tuple(found)
        parsed = self._names[pos][offset] = (names, tuple([n for n in names if "_" not in n]))
        return parsed

    def synset_names(self, synset_id: int) -> tuple[str, ...]:
        """Lemma names without ``_`` of a synset given by its id (see ``synset_ids``)."""
        pos = _POS[synset_id & 3][0]
        offset = synset_id >> 2
        return (self._names[pos].get(offset) or self._parse(pos, offset))[1]

    def _collect(self, word: str, plain: bool) -> set[str]:
        names: set[str] = set()
        which = 1 if plain else 0
        for synset_id in self.synset_ids(word):
            pos = _POS[synset_id & 3][0]
            offset = synset_id >> 2
            names.update((self._names[pos].get(offset) or self._parse(pos, offset))[which])
        return names

    def lemma_names(self, word: str) -> set[str]:
        """All lemma names of NLTK's ``wordnet.synsets(word)`` (``_`` ones included)."""
        return self._collect(word, plain=False)

    def _synonyms(self, word: str) -> frozenset[str]:
        names = self._collect(word, plain=True)
        names.add(word)
        return frozenset(names)


_SHARED: dict[str, WordNetSynonyms] = {}


def shared_synonyms(wordnet_dir: str | os.PathLike[str] | None = None) -> WordNetSynonyms:
    """The shared :class:`WordNetSynonyms` for a folder (default: the search order)."""
    key = "" if wordnet_dir is None else str(Path(wordnet_dir).resolve())
    wordnet = _SHARED.get(key)
    if wordnet is None:
        wordnet = _SHARED[key] = WordNetSynonyms(wordnet_dir)
    return wordnet


def clear_shared() -> None:
    """Forget the shared readers' memoised synonym sets (their loaded files stay)."""
    for wordnet in _SHARED.values():
        wordnet.clear()
