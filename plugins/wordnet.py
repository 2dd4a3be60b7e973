"""First-party plugin `wordnet`: the ``synonym`` matcher (English WordNet 3.0 synsets).

Two tokens are linked when they are *different* strings whose synonym sets intersect.
A token's synonym set is the union of the WordNet synsets (all parts of speech) of the
token itself and of its base forms. How base forms are found is the ``morphology``
option:

``meteor-1.5`` (default)
    Meteor 1.5's own lookup, for parity with the jar: if the token is an inflected
    form in any of WordNet's exception lists (``noun.exc``, ``verb.exc``, ``adj.exc``,
    ``adv.exc``), its bases there; otherwise the *first* result of WordNet's detachment
    rules, tried in the order noun, verb, adjective regardless of part of speech, that
    is a WordNet lemma (tokens ending in "ss" or of at most two characters are not
    reduced).

``morphy``
    WordNet's ``morphy`` done per part of speech: for each POS, the exception list's
    bases if the token is listed, else *every* detachment-rule result that is a lemma
    *of that POS* (with the noun rule for "-ful" compounds); only synsets of that POS
    are taken. Linguistically cleaner (e.g. "waiting" reaches "wait", where the jar
    stops at the surname "waite"), but not what the jar does.

With ``meteor-1.5``, exact + stem + synonym scores agree with the jar (``-lower -m
'exact stem synonym'``) on 99.84% of the 4,978 xray segments within 1e-4; the rest are
the jar's older Snowball stems and one offset collision (below). See
``benchmarks/wordnet_parity.py``.

Tokens are looked up as they are; WordNet's lemmas are lowercase, so lowercase the
text (``normalize: lower``), as with the jar's ``-lower``. Multi-word lemmas
("look_up") and WordNet's collocation handling are not used: tokens are single words.

Synset identity is always (part of speech, offset). Meteor 1.5 keys synsets by offset
alone, so a noun and a verb that happen to start at the same byte offset of their data
files count as one synset (282 such collisions in the jar's data, e.g. "able" ~
"breathe"); read from a WordNet database those accidental links are not reproduced:
they depend on the byte layout of one build of the database (Debian's regenerated files
have different offsets). Read from the jar's own copy, they are.

Resource: the WordNet 3.0 database (``index.{noun,verb,adj,adv}`` and
``{noun,verb,adj,adv}.exc``; the ``data.*`` files are not needed), looked up in this
order: the stage option ``path:``, ``$METEORX_WORDNET``, NLTK's data folders
(``corpora/wordnet`` or ``corpora/wordnet.zip``), ``/usr/share/wordnet`` (Debian
and Ubuntu package ``wordnet-base``), then the Meteor 1.5 jar that ``pycocoevalcap`` (a
meteorx dependency) installs: its ``synonym/english.*`` files are WordNet 3.0 as the jar
reads it (parts of speech merged, so with the jar's offset collisions below), which
makes the synonym stage work after ``pip install meteorx`` alone. With the default
``meteor-1.5`` morphology the jar's copy comes first (after ``path:`` and
$METEORX_WORDNET): the jar's own data, so the same numbers on every machine and the
collisions reproduced too; ``morphy`` never uses it (it has no parts of speech). It is compiled
once into a data-only, checksummed file under the user cache folder keyed by the SHA-256
of those files (see :mod:`meteorx.cache`). The signature names the database by a
checksum of its *content* (:func:`content_checksum`).
"""

from __future__ import annotations

import itertools
import os
import sys
import zipfile
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from meteorx.cache import Record, cached
from meteorx.errors import LanguageError, ResourceError
from meteorx.hookspecs import hookimpl
from meteorx.languages import Language
from meteorx.matchers import KeyMatcher, Matcher
from meteorx.resources import Located, locate, sha256_parts, short_checksum
from meteorx.types import Span
from meteorx_plugins.function_words import meteor_jar_path

__all__ = [
    "INSTALL_HINT",
    "WORDNET_ENV",
    "SynonymMatcher",
    "SynonymOptions",
    "WordNet",
    "find_wordnet",
    "load_wordnet",
]

#: Environment variable naming a WordNet database folder (or NLTK's wordnet.zip).
WORDNET_ENV = "METEORX_WORDNET"

INSTALL_HINT = (
    "'pip install pycocoevalcap' (a meteorx dependency: its Meteor 1.5 jar holds WordNet "
    "3.0), or install it with 'apt-get install wordnet-base', or 'pip install nltk' then "
    "'python -m nltk.downloader wordnet', or set METEORX_WORDNET to a WordNet 3.0 "
    "database folder"
)

#: The hint when the lookup needs parts of speech (``morphy``), which the jar's copy lacks.
FULL_DATABASE_HINT = (
    "the 'morphy' lookup (meteor-2005, nltk) needs a full WordNet 3.0 database with parts "
    "of speech, which the Meteor 1.5 jar's copy does not have; install one with "
    "'python -m nltk.downloader wordnet' (or 'apt-get install wordnet-base'), or set "
    "METEORX_WORDNET to a WordNet 3.0 database folder"
)

#: WordNet's parts of speech, in the order their index is encoded in synset ids.
POS_TAGS: tuple[str, ...] = ("n", "v", "a", "r")
_POS_NAMES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
INDEX_FILES: tuple[str, ...] = tuple(f"index.{_POS_NAMES[p]}" for p in POS_TAGS)
EXCEPTION_FILES: tuple[str, ...] = tuple(f"{_POS_NAMES[p]}.exc" for p in POS_TAGS)

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
    return offset * 4 + POS_TAGS.index(pos)


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


# -- locating and reading the database --------------------------------------------


def _zip_root(path: Path) -> str | None:
    """The folder inside a zip that holds ``index.noun`` (e.g. "wordnet/"), if any."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
    except (OSError, zipfile.BadZipFile):
        return None
    roots = sorted(
        (str(PurePosixPath(name).parent) for name in names
         if PurePosixPath(name).name == "index.noun"),
        key=len,
    )  # fmt: skip
    if not roots:
        return None
    root = "" if roots[0] == "." else roots[0] + "/"
    if all(root + name in names for name in INDEX_FILES):
        return root
    return None


def _database_root(path: Path) -> Path | None:
    """The folder (or zip file) holding the database, given it or its parent."""
    if path.is_dir():
        for folder in (path, path / "dict", path / "wordnet"):
            if all((folder / name).is_file() for name in INDEX_FILES):
                return folder
        return None
    if (
        path.is_file()
        and zipfile.is_zipfile(path)
        and (_zip_root(path) is not None or _is_meteor_jar(path))
    ):
        return path
    return None


#: WordNet 3.0 as Meteor 1.5's jar holds it (with WordNet's licence, COPYING.WORDNET):
#: lemma / synset-offset lines and inflected-form / base-form lines, parts of speech
#: merged, exactly the data the jar's synonym module reads.
_JAR_SYNSETS = "synonym/english.synsets"
_JAR_EXCEPTIONS = "synonym/english.exceptions"


def _is_meteor_jar(path: Path) -> bool:
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
    except (OSError, zipfile.BadZipFile):
        return False
    return _JAR_SYNSETS in names and _JAR_EXCEPTIONS in names


def _jar_entries(path: Path) -> dict[str, bytes] | None:
    """The jar's two WordNet files (``None`` if ``path`` is not such a jar)."""
    try:
        with zipfile.ZipFile(path) as archive:
            return {name: archive.read(name) for name in (_JAR_SYNSETS, _JAR_EXCEPTIONS)}
    except (OSError, zipfile.BadZipFile, KeyError):
        return None


def _meteor_jar_parts(entries: dict[str, bytes]) -> dict[str, bytes]:
    """The jar's WordNet as index and exception files: every lemma's synsets in
    ``index.noun`` (offsets without a part of speech: the jar keys synsets by offset
    alone), every inflected form's bases in ``noun.exc``; the other files empty."""
    synsets = entries[_JAR_SYNSETS].decode("utf-8", "replace").splitlines()
    exceptions = entries[_JAR_EXCEPTIONS].decode("utf-8", "replace").splitlines()
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


def _check(path: Path) -> str | None:
    if not path.exists():
        return "does not exist"
    if _database_root(path) is None:
        return (
            "is not a WordNet database (a folder with index.noun, index.verb, index.adj, "
            "index.adv and the *.exc files, or NLTK's wordnet.zip)"
        )
    return None


def nltk_data_path() -> list[str]:
    """NLTK's data search path: ``nltk.data.path`` if NLTK is already imported, else
    the same defaults computed without importing NLTK (which takes seconds)."""
    nltk_data = sys.modules.get("nltk.data")
    if nltk_data is not None and isinstance(getattr(nltk_data, "path", None), list):
        return [str(p) for p in nltk_data.path]
    paths = [os.path.expanduser(p) for p in os.environ.get("NLTK_DATA", "").split(os.pathsep) if p]
    if "APPENGINE_RUNTIME" not in os.environ and os.path.expanduser("~/") != "~/":
        paths.append(os.path.expanduser("~/nltk_data"))
    prefix = sys.prefix
    paths += [
        os.path.join(prefix, "nltk_data"),
        os.path.join(prefix, "share", "nltk_data"),
        os.path.join(prefix, "lib", "nltk_data"),
    ]
    if os.name == "nt":
        paths += [
            os.path.join(os.environ.get("APPDATA", "C:\\"), "nltk_data"),
            r"C:\nltk_data",
            r"D:\nltk_data",
            r"E:\nltk_data",
        ]
    else:
        paths += [
            "/usr/share/nltk_data",
            "/usr/local/share/nltk_data",
            "/usr/lib/nltk_data",
            "/usr/local/lib/nltk_data",
        ]
    return paths


def search_list() -> Iterator[tuple[Path, str]]:
    """Where WordNet is looked for when neither ``path:`` nor $METEORX_WORDNET is set."""
    for entry in nltk_data_path():
        corpora = Path(entry) / "corpora"
        yield corpora / "wordnet", "NLTK data"
        yield corpora / "wordnet.zip", "NLTK data"
    yield Path("/usr/share/wordnet"), "wordnet-base"
    jar = meteor_jar_path()
    if jar is not None:
        yield jar, _JAR_ORIGIN


#: Where the Meteor 1.5 jar's WordNet comes in the search: ``first`` (before NLTK's and
#: the system's: the jar's own data, for its ``meteor-1.5`` lookup), ``last`` (a
#: fallback) or ``never`` (it has no parts of speech, which ``morphy`` needs).
JarOrder = Literal["first", "last", "never"]
_JAR_ORIGIN = "Meteor 1.5 jar (pycocoevalcap)"


def find_wordnet(path: str | os.PathLike[str] | None = None, *, jar: JarOrder = "last") -> Located:
    """Locate the WordNet database: ``path`` > $METEORX_WORDNET > NLTK > /usr/share/wordnet
    > the Meteor 1.5 jar (or the jar first, or never: ``jar``).

    :raises ResourceError: nothing usable found (the message says what to install).
    """
    search: Iterable[tuple[Path, str]] = search_list()
    if jar != "last":
        search = (entry for entry in search if entry[1] != _JAR_ORIGIN)
        jar_path = meteor_jar_path() if jar == "first" else None
        if jar_path is not None:
            search = itertools.chain([(jar_path, _JAR_ORIGIN)], search)
    located = locate(
        "WordNet 3.0",
        check=_check,
        explicit=path,
        env_var=WORDNET_ENV,
        search=search,
        hint=FULL_DATABASE_HINT if jar == "never" else INSTALL_HINT,
    )
    root = _database_root(located.path)
    assert root is not None
    return Located(root, located.origin)


def _read_sources(root: Path) -> dict[str, bytes]:
    """The index and exception files of a database folder or zip (missing .exc files
    are tolerated, missing index files are an error)."""
    wanted = INDEX_FILES + EXCEPTION_FILES
    parts: dict[str, bytes] = {}
    try:
        if root.is_dir():
            for name in wanted:
                file = root / name
                if file.is_file():
                    parts[name] = file.read_bytes()
        else:
            prefix = _zip_root(root) or ""
            with zipfile.ZipFile(root) as archive:
                present = set(archive.namelist())
                for name in wanted:
                    if prefix + name in present:
                        parts[name] = archive.read(prefix + name)
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
        name = f"index.{_POS_NAMES[pos]}"
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
        data = parts.get(f"{_POS_NAMES[pos]}.exc")
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
    parts = _read_sources(located.path) if entries is None else entries
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


# -- the matcher ----------------------------------------------------------------------


class SynonymOptions(BaseModel):
    """Options of the ``synonym`` matcher."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: str | None = Field(
        None,
        description="WordNet 3.0 database folder (index.noun, noun.exc, …) or NLTK's "
        "wordnet.zip; default: $METEORX_WORDNET, NLTK's data folders, /usr/share/wordnet",
    )
    morphology: Morphology = Field(
        "meteor-1.5",
        description="how base forms are found: 'meteor-1.5' (the jar's lookup, for "
        "parity) or 'morphy' (WordNet's morphy per part of speech)",
    )


_EMPTY: frozenset[int] = frozenset()


class SynonymMatcher(KeyMatcher):
    """Links different words that share a WordNet synset (after base-form lookup)."""

    name = "synonym"
    version = "1"
    Options = SynonymOptions

    def __init__(self, options: BaseModel, language: Language) -> None:
        super().__init__(options, language)
        assert isinstance(options, SynonymOptions)
        if language.code != "en":
            raise LanguageError(
                f"the synonym matcher uses the English WordNet and cannot match "
                f"{language.name} ({language.code}); remove the synonym stage"
            )
        self.morphology: Morphology = options.morphology
        # Meteor 1.5's lookup reads the jar's own WordNet when nothing else is asked for
        # (the same numbers as the jar, on every machine); morphy needs parts of speech.
        jar: JarOrder = "first" if options.morphology == "meteor-1.5" else "never"
        self.wordnet = load_wordnet(options.path, jar=jar)
        self._cache: dict[str, frozenset[int]] = {}

    def synonym_set(self, word: str) -> frozenset[int]:
        """The word's synset ids (its own and its base forms'), cached."""
        ids = self._cache.get(word)
        if ids is None:
            if len(self._cache) > 500_000:
                self._cache.clear()
            ids = self.wordnet.synonym_set(word, self.morphology) or _EMPTY
            self._cache[word] = ids
        return ids

    def keys(self, word: str) -> frozenset[int]:
        return self.synonym_set(word)

    # prepare and candidates: faster equivalents of KeyMatcher's

    def matches(self, word1: str, word2: str) -> bool:
        """Whether the matcher links these two words."""
        return word1 != word2 and not self.synonym_set(word1).isdisjoint(self.synonym_set(word2))

    def prepare(
        self, tokens: Sequence[str]
    ) -> tuple[Sequence[str], list[tuple[int, frozenset[int]]]]:
        cache = self._cache
        lookup: Callable[[str], frozenset[int]] = self.synonym_set
        sets = [(i, cache.get(t) or lookup(t)) for i, t in enumerate(tokens)]
        return tokens, [(i, s) for i, s in sets if s]

    def candidates(self, hyp: Any, ref: Any) -> Iterable[Span]:
        hyp_tokens: Sequence[str] = hyp[0]
        ref_tokens: Sequence[str] = ref[0]
        hyp_sets: list[tuple[int, frozenset[int]]] = hyp[1]
        if not hyp_sets:
            return
        for j, ref_set in ref[1]:
            token = ref_tokens[j]
            for i, hyp_set in hyp_sets:
                if not ref_set.isdisjoint(hyp_set) and hyp_tokens[i] != token:
                    yield Span(i, 1, j, 1)

    def describe(self) -> str:
        return f"{self.name}.v{self.version}({self.wordnet.describe()}/{self.morphology})"

    def resources(self) -> dict[str, str]:
        out = {"wordnet": str(self.wordnet.location) if self.wordnet.location else "?"}
        if self.wordnet.cache_file is not None:
            state = "loaded" if self.wordnet.from_cache else "written"
            out["wordnet cache"] = f"{self.wordnet.cache_file} ({state})"
        return out


@hookimpl
def meteorx_register_matchers(register: Callable[[type[Matcher]], None]) -> None:
    register(SynonymMatcher)
