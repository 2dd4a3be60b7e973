"""Reading a WordNet database: the compact index the ``synonym`` matcher looks words up in.

:func:`load_wordnet` takes the database :func:`~meteorx_plugins.wordnet.locate.find_wordnet`
finds (a folder, NLTK's zip or the Meteor 1.5 jar's copy), reads its index and
exception files, and compiles them once into a data-only, checksummed file under the
user cache folder keyed by the SHA-256 of those files (see :mod:`meteorx.cache`).
:class:`WordNet` answers from it: synsets of a lemma, WordNet's ``morphy``, Meteor 1.5's
base-form lookup. The signature names the database by a checksum of its *content*
(:func:`content_checksum`). NLTK's view of the same database (lemma names of synsets,
NLTK's own ``morphy``) is :mod:`meteorx_plugins.wordnet.synsets`.
"""

from __future__ import annotations

import os
import zipfile
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Literal

from meteorx.cache import Record, cached
from meteorx.errors import ResourceError
from meteorx.resources import Located, sha256_parts, short_checksum
from meteorx_plugins.wordnet.locate import (
    EXCEPTION_FILES,
    INDEX_FILES,
    JAR_EXCEPTIONS,
    JAR_SYNSETS,
    POS_NAMES,
    POS_TAGS,
    JarOrder,
    WordNetFiles,
    find_wordnet,
)

__all__ = ["DETACHMENT_RULES", "METEOR15_RULES", "Morphology", "WordNet", "load_wordnet"]

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

#: Bump when the compiled format changes (old cache files are then ignored).
_FORMAT = 3

Morphology = Literal["meteor-1.5", "morphy"]


# -- the compiled database -----------------------------------------------------------


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
        """Every synset id of ``word`` and of its base forms (see the module docstring)."""
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


def _jar_entries(path: Path) -> dict[str, bytes] | None:
    """The jar's two WordNet files (``None`` if ``path`` is not such a jar)."""
    try:
        with zipfile.ZipFile(path) as archive:
            return {name: archive.read(name) for name in (JAR_SYNSETS, JAR_EXCEPTIONS)}
    except (OSError, zipfile.BadZipFile, KeyError):
        return None


def _meteor_jar_parts(entries: dict[str, bytes]) -> dict[str, bytes]:
    """The jar's WordNet as index and exception files: every lemma's synsets in
    ``index.noun`` (offsets without a part of speech: the jar keys synsets by offset
    alone), every inflected form's bases in ``noun.exc``; the other files empty."""
    synsets = entries[JAR_SYNSETS].decode("utf-8", "replace").splitlines()
    exceptions = entries[JAR_EXCEPTIONS].decode("utf-8", "replace").splitlines()
    index = [
        f"{lemma} n {len(offsets)} 0 {len(offsets)} 0 {' '.join(offsets)}"
        for lemma, offsets in zip(synsets[::2], (ln.split() for ln in synsets[1::2]), strict=False)
        if lemma and offsets
    ]
    bases: dict[str, list[str]] = {}  # the jar lists a base form, then its inflections
    for base, forms in zip(exceptions[::2], exceptions[1::2], strict=False):
        for form in forms.split():
            if base not in bases.setdefault(form, []):
                bases[form].append(base)
    listed = [f"{form} {' '.join(found)}" for form, found in bases.items()]
    parts = dict.fromkeys(INDEX_FILES + EXCEPTION_FILES, b"")
    parts["index.noun"] = "\n".join(index).encode("utf-8")
    parts["noun.exc"] = "\n".join(listed).encode("utf-8")
    return parts


def _read_sources(located: Located) -> dict[str, bytes]:
    """The index and exception files of a database folder or zip (missing .exc files
    are tolerated, missing index files are an error)."""
    root = located.path
    try:
        parts: dict[str, bytes] = WordNetFiles.of(located).read_present(
            INDEX_FILES + EXCEPTION_FILES
        )
    except (OSError, zipfile.BadZipFile) as error:
        raise ResourceError(f"WordNet 3.0: cannot read {root}: {error}") from error
    missing = [name for name in INDEX_FILES if name not in parts]
    if missing:
        raise ResourceError(f"WordNet 3.0: {root} has no {', '.join(missing)}")
    return parts


def _compile(parts: dict[str, bytes]) -> Record:
    """Parse the index and exception files into what the cache stores (see :func:`_decode`)."""
    lemmas: dict[str, list[int]] = {}
    for pos in POS_TAGS:
        name = f"index.{POS_NAMES[pos]}"
        index = POS_TAGS.index(pos)
        for number, line in enumerate(parts[name].decode("utf-8", "replace").splitlines(), 1):
            if not line or line.startswith(" "):
                continue  # the licence header
            fields = line.split()
            try:
                count = int(fields[2])
                offsets = [int(f) for f in fields[len(fields) - count :]] if count else []
            except (IndexError, ValueError) as error:
                raise ResourceError(f"WordNet 3.0: {name} line {number} is malformed") from error
            ids = lemmas.setdefault(fields[0], [])
            ids.extend(offset * 4 + index for offset in offsets if offset * 4 + index not in ids)
    exceptions: dict[str, dict[str, tuple[str, ...]]] = {}
    for pos in POS_TAGS:
        table: dict[str, tuple[str, ...]] = {}
        data = parts.get(f"{POS_NAMES[pos]}.exc")
        if data is not None:
            for line in data.decode("utf-8", "replace").splitlines():
                fields = line.split()
                if len(fields) >= 2:
                    old = table.get(fields[0], ())
                    table[fields[0]] = old + tuple(b for b in fields[1:] if b not in old)
        exceptions[pos] = table
    compiled = WordNet.from_lemmas(lemmas, exceptions)
    return Record(
        meta={"exceptions": exceptions, "checksum": content_checksum(lemmas, exceptions)},
        sections={
            "words": "\n".join(compiled.words).encode("utf-8"),
            "starts": compiled.starts.tobytes(),
            "ids": compiled.ids.tobytes(),
        },
    )


def content_checksum(
    lemmas: Mapping[str, Sequence[int]], exceptions: Mapping[str, Mapping[str, Sequence[str]]]
) -> str:
    """SHA-256 of what matching depends on: each synset as (POS, set of lemmas), and the
    exception lists. Offsets are left out, so the same WordNet gives the same checksum
    (and signature) whether read from Princeton's/NLTK's files or from Debian's, whose
    regenerated data files have other offsets."""
    members: dict[int, list[str]] = {}
    for word, ids in lemmas.items():
        for i in ids:
            members.setdefault(i, []).append(word)
    synsets = sorted(f"{POS_TAGS[i & 3]} {' '.join(sorted(ws))}" for i, ws in members.items())
    listed = sorted(
        f"{pos} {form} {' '.join(bases)}"
        for pos, table in exceptions.items()
        for form, bases in table.items()
    )
    text = "\n".join(["wordnet-content-v1", *synsets, "exceptions", *listed])
    return sha256_parts([("content", text.encode("utf-8"))])


_Compiled = tuple[list[str], "array[int]", "array[int]", dict[str, dict[str, tuple[str, ...]]], str]


def _decode(record: Record) -> _Compiled:
    """The lemma list, synset arrays, exception lists and content checksum of a record
    written by :func:`_compile`.

    :raises ValueError: the parts do not fit together.
    """
    text = str(record.sections["words"], "utf-8")
    words = text.split("\n") if text else []
    starts, ids = array("i"), array("i")
    starts.frombytes(record.sections["starts"])
    ids.frombytes(record.sections["ids"])
    if len(starts) != len(words) + 1 or starts[-1] != len(ids):
        raise ValueError("inconsistent compiled WordNet")
    exceptions = {
        pos: {str(form): tuple(map(str, bases)) for form, bases in table.items()}
        for pos, table in record.meta["exceptions"].items()
    }
    if set(exceptions) != set(POS_TAGS):
        raise ValueError("inconsistent compiled WordNet")
    return words, starts, ids, exceptions, str(record.meta["checksum"])


# Loaded databases of this process, keyed by location and the files' (size, mtime).
_LOADED: dict[tuple[object, ...], WordNet] = {}


def _stat_key(root: Path) -> tuple[object, ...]:
    stat = root.stat()
    key: list[object] = [str(root.resolve()), stat.st_size, stat.st_mtime_ns]
    if root.is_dir():
        for name in INDEX_FILES + EXCEPTION_FILES:
            try:
                s = (root / name).stat()
                key += [name, s.st_size, s.st_mtime_ns]
            except OSError:
                key += [name, None]
    return tuple(key)


def load_wordnet(path: str | os.PathLike[str] | None = None, *, jar: JarOrder = "last") -> WordNet:
    """Locate (see :func:`find_wordnet`), compile or load from cache, and return WordNet.

    Loaded databases are shared within the process.
    """
    located = find_wordnet(path, jar=jar)
    key = _stat_key(located.path)
    wordnet = _LOADED.get(key)
    if wordnet is not None:
        return wordnet
    # The jar's files are keyed as they are and converted only when compiling.
    entries = _jar_entries(located.path) if located.path.is_file() else None
    parts = _read_sources(located) if entries is None else entries
    data, cache_file, from_cache = cached(
        f"wordnet-v{_FORMAT}",
        sha256_parts(parts.items()),
        lambda: _compile(parts if entries is None else _meteor_jar_parts(entries)),
        _decode,
    )
    wordnet = WordNet(*data, located, cache_file, from_cache)
    if len(_LOADED) > 8:
        _LOADED.clear()
    _LOADED[key] = wordnet
    return wordnet
