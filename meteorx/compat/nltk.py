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

Speed comes from memoising per-word work (stems, synsets, synonym sets; so a custom
``stemmer`` or ``wordnet`` must be deterministic, as NLTK's are), from reading WordNet
directly instead of through NLTK's corpus reader (which takes seconds to load), from
a rule-for-rule port of NLTK's default Porter stemmer (checked against the installed
NLTK on first use), from running the three greedy stages in one pass over the tokens
(:func:`greedy_links`), and, with the default WordNet, from building a synonym set
only for a hypothesis stem that shares a synset with a reference stem still unlinked.

**Where the default WordNet comes from** (first found wins; WordNet 3.0 is what NLTK
ships):

1. the ``wordnet_dir`` argument (or the ``wordnet_dir`` option of the
   ``wordnet-nltk`` matcher);
2. ``$METEORX_WORDNET``;
3. WordNet's own variables: ``$WNSEARCHDIR``, then ``$WNHOME/dict``;
4. NLTK's installed copy: ``corpora/wordnet/`` or ``corpora/wordnet.zip`` under each
   ``nltk.data.path`` entry (what ``nltk.download("wordnet")`` installs);
5. system packages: ``/usr/share/wordnet`` (Debian/Ubuntu ``wordnet-base``),
   ``/usr/local/share/wordnet``, ``/usr/share/WordNet-3.0/dict``,
   ``/usr/local/WordNet-3.0/dict``, ``/opt/local/share/WordNet-3.0/dict``.

If none is found, :class:`~meteorx.errors.ResourceError` says, on one line, what to
install. Passing ``wordnet=nltk.corpus.wordnet`` (or any object with NLTK's
``synsets``) uses that object instead, memoised.

:func:`build_nltk_data` turns a plain WordNet folder into an NLTK data folder (it adds
the ``lexnames`` file NLTK needs) under the user cache directory and registers it in
``nltk.data.path``, so NLTK itself can run without ``nltk.download``; the tests use it
to compare against the real NLTK.
"""

from __future__ import annotations

import atexit
import math
import os
import re
import shutil
import tempfile
import warnings
import weakref
import zipfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol

from meteorx.compat._greedy import Prefilter, chunk_count, greedy_links
from meteorx.errors import ResourceError

__all__ = [
    "WordNetLocation",
    "WordNetSynonyms",
    "align_stages",
    "align_words",
    "build_nltk_data",
    "chunk_count",
    "clear_caches",
    "default_wordnet",
    "find_wordnet",
    "greedy_links",
    "mean_meteor_score",
    "meteor_score",
    "nltk_wordnet_reader",
    "porter_stem_function",
    "single_meteor_score",
    "synonym_prefilter",
]


class StemmerLike(Protocol):
    """What NLTK calls a stemmer: ``stem(word) -> str``."""

    def stem(self, word: str) -> str: ...


# ---------------------------------------------------------------------------------------
# WordNet files
# ---------------------------------------------------------------------------------------

#: NLTK's POS_LIST order (adjective satellites are reached through "a").
_POS = (("n", "noun"), ("v", "verb"), ("a", "adj"), ("r", "adv"))

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

#: The 45 lexicographer files of WordNet 3.0 (lexnames(5WN)): name and POS number.
_LEXNAMES = (
    ("adj.all", 3), ("adj.pert", 3), ("adv.all", 4), ("noun.Tops", 1), ("noun.act", 1),
    ("noun.animal", 1), ("noun.artifact", 1), ("noun.attribute", 1), ("noun.body", 1),
    ("noun.cognition", 1), ("noun.communication", 1), ("noun.event", 1),
    ("noun.feeling", 1), ("noun.food", 1), ("noun.group", 1), ("noun.location", 1),
    ("noun.motive", 1), ("noun.object", 1), ("noun.person", 1), ("noun.phenomenon", 1),
    ("noun.plant", 1), ("noun.possession", 1), ("noun.process", 1), ("noun.quantity", 1),
    ("noun.relation", 1), ("noun.shape", 1), ("noun.state", 1), ("noun.substance", 1),
    ("noun.time", 1), ("verb.body", 2), ("verb.change", 2), ("verb.cognition", 2),
    ("verb.communication", 2), ("verb.competition", 2), ("verb.consumption", 2),
    ("verb.contact", 2), ("verb.creation", 2), ("verb.emotion", 2), ("verb.motion", 2),
    ("verb.perception", 2), ("verb.possession", 2), ("verb.social", 2),
    ("verb.stative", 2), ("verb.weather", 2), ("adj.ppl", 3),
)  # fmt: skip

#: Files the synonym relation needs.
_REQUIRED = tuple(f"{kind}.{name}" for kind in ("index", "data") for _, name in _POS) + tuple(
    f"{name}.exc" for _, name in _POS
)
#: Further files NLTK's own reader opens (copied into an NLTK data folder when present).
_OPTIONAL = ("index.sense", "cntlist.rev", "cntlist", "lexnames")

_SYSTEM_DIRS = (
    "/usr/share/wordnet",
    "/usr/local/share/wordnet",
    "/usr/share/WordNet-3.0/dict",
    "/usr/local/WordNet-3.0/dict",
    "/opt/local/share/WordNet-3.0/dict",
)

_INSTALL_HINT = (
    "install WordNet 3.0 (Debian/Ubuntu: apt-get install wordnet-base; or python -m "
    "nltk.downloader wordnet) or set METEORX_WORDNET to a WordNet dict folder"
)

#: Every suffix a substitution rule removes, per part of speech (a quick "no rule").
_ENDINGS = {pos: tuple(old for old, _ in rules) for pos, rules in _SUBSTITUTIONS.items()}

_INDEX_LINE = re.compile(r"^(\S+) (.*)$", re.MULTILINE)

# NLTK strips one trailing syntactic marker such as "(a)", "(p)" or "(ip)".
_MARKER = re.compile(r"(.*?)(\([^()]*\))?$")

# The head of a data file line: offset (8 digits), lex_filenum, ss_type, w_cnt (hex).
_SYNSET_HEAD = re.compile(rb"(\d{8}) \d\d [nvasr] ([0-9a-fA-F]{2}) ")


@dataclass(frozen=True)
class WordNetLocation:
    """A WordNet database: a ``dict`` folder, or a zip holding one (``member`` prefix)."""

    path: Path
    origin: str  # how it was found, for messages and signatures
    member: str = ""  # folder inside a zip, e.g. "wordnet/"

    def read(self, name: str) -> bytes:
        if self.path.is_dir():
            return (self.path / name).read_bytes()
        with zipfile.ZipFile(self.path) as archive:
            return archive.read(self.member + name)

    def has(self, name: str) -> bool:
        return self.size(name) is not None

    def size(self, name: str) -> int | None:
        """Size in bytes of a file, or None when it is missing."""
        if self.path.is_dir():
            file = self.path / name
            return file.stat().st_size if file.is_file() else None
        with zipfile.ZipFile(self.path) as archive:
            try:
                return archive.getinfo(self.member + name).file_size
            except KeyError:
                return None

    @cached_property
    def version(self) -> str:
        """WordNet version from the ``data.adj`` licence header (e.g. ``"3.0"``)."""
        if self.path.is_dir():
            with (self.path / "data.adj").open("rb") as file:
                head = file.read(4000)
        else:
            head = self.read("data.adj")[:4000]
        found = re.search(r"Word[nN]et (\d+\+?|\d+\.\d+) Copyright", head.decode("latin-1"))
        return found.group(1) if found else "?"

    def __str__(self) -> str:
        where = f"{self.path}:{self.member}" if self.member else str(self.path)
        return f"{where} ({self.origin})"


def _complete(location: WordNetLocation) -> bool:
    try:
        return all(location.has(name) for name in _REQUIRED)
    except (OSError, zipfile.BadZipFile):
        return False


def _candidate_locations() -> Iterable[WordNetLocation]:
    env = os.environ.get("METEORX_WORDNET")
    if env:
        yield WordNetLocation(Path(env), "$METEORX_WORDNET")
    if os.environ.get("WNSEARCHDIR"):
        yield WordNetLocation(Path(os.environ["WNSEARCHDIR"]), "$WNSEARCHDIR")
    if os.environ.get("WNHOME"):
        yield WordNetLocation(Path(os.environ["WNHOME"]) / "dict", "$WNHOME/dict")
    try:
        import nltk

        nltk_paths = [str(p) for p in nltk.data.path]
    except Exception:  # NLTK is a dependency, but a broken install must not stop us
        nltk_paths = []
    for entry in nltk_paths:
        corpora = Path(entry) / "corpora"
        yield WordNetLocation(corpora / "wordnet", "nltk_data")
        yield WordNetLocation(corpora / "wordnet.zip", "nltk_data", member="wordnet/")
    for system in _SYSTEM_DIRS:
        yield WordNetLocation(Path(system), "system")


def find_wordnet(wordnet_dir: str | os.PathLike[str] | None = None) -> WordNetLocation:
    """The WordNet database to use (see the module docstring for the lookup order).

    :raises ResourceError: nothing usable found (the message says what to install).
    """
    if wordnet_dir is not None:
        location = WordNetLocation(Path(wordnet_dir), "wordnet_dir")
        if str(wordnet_dir).endswith(".zip"):
            location = WordNetLocation(Path(wordnet_dir), "wordnet_dir", member="wordnet/")
        if not _complete(location):
            raise ResourceError(
                f"{wordnet_dir} is not a WordNet dict folder (it needs "
                f"{', '.join(_REQUIRED)}); {_INSTALL_HINT}"
            )
        return location
    looked = 0
    for location in _candidate_locations():
        if location.path.exists() and _complete(location):
            return location
        if location.origin == "$METEORX_WORDNET":  # set on purpose: no fallback
            raise ResourceError(
                f"METEORX_WORDNET={location.path} is not a WordNet dict folder (it "
                f"needs {', '.join(_REQUIRED)}); {_INSTALL_HINT}"
            )
        looked += 1
    raise ResourceError(f"WordNet not found (looked in {looked} places); {_INSTALL_HINT}")


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

    def __init__(self, wordnet_dir: str | os.PathLike[str] | WordNetLocation | None = None) -> None:
        self.location = (
            wordnet_dir if isinstance(wordnet_dir, WordNetLocation) else find_wordnet(wordnet_dir)
        )
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
        self._memos = (_Memo(self._synonyms), _Memo(self._synset_ids), _Memo(self._lemma_ids))
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
                    f"{self.location} is corrupt or mixes versions; {_INSTALL_HINT}"
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


_DEFAULT_WORDNETS: dict[str, WordNetSynonyms] = {}


def clear_caches() -> None:
    """Forget every memoised stem and synonym set (loaded WordNet files stay): for
    benchmarks that start cold, and long-running processes that want the memory."""
    for memo in _PORTER.values():
        memo.clear()
    for wordnet in _DEFAULT_WORDNETS.values():
        wordnet.clear()
    _STEMMERS.clear()
    _SYNONYMS.clear()


def default_wordnet(wordnet_dir: str | os.PathLike[str] | None = None) -> WordNetSynonyms:
    """The shared :class:`WordNetSynonyms` for a folder (default: the lookup order)."""
    key = "" if wordnet_dir is None else str(Path(wordnet_dir).resolve())
    wordnet = _DEFAULT_WORDNETS.get(key)
    if wordnet is None:
        wordnet = _DEFAULT_WORDNETS[key] = WordNetSynonyms(wordnet_dir)
    return wordnet


# ---------------------------------------------------------------------------------------
# NLTK's own reader on the same files (for verification, or to hand NLTK a corpus)
# ---------------------------------------------------------------------------------------


def _cache_root() -> Path:
    """The meteorx cache folder, if it is usable and safe (see :func:`meteorx.cache.cache_dir`;
    NLTK may load pickles from its data folders), else a new private temporary folder."""
    from meteorx.cache import cache_dir

    root = cache_dir()
    if root is None:
        root = Path(tempfile.mkdtemp(prefix="meteorx-nltk-"))
        atexit.register(shutil.rmtree, root, ignore_errors=True)
    return root


def build_nltk_data(
    wordnet_dir: str | os.PathLike[str] | None = None,
    target: str | os.PathLike[str] | None = None,
    *,
    prepend: bool = False,
) -> Path:
    """An NLTK data folder holding ``corpora/wordnet``, registered in ``nltk.data.path``.

    Copies the WordNet files found by :func:`find_wordnet` (NLTK refuses symbolic links
    that leave its data folders) into ``target`` (default
    ``<user cache>/meteorx/nltk_data``, or ``$METEORX_CACHE_DIR/nltk_data``) and writes
    the ``lexnames`` file NLTK's reader requires. Rebuilt only when the source changes.
    Returns the data folder; afterwards ``nltk.corpus.wordnet`` works without
    ``nltk.download`` (``prepend=True`` puts the folder first, so it wins over any
    other WordNet NLTK would find).
    """
    import nltk

    source = find_wordnet(wordnet_dir)
    root = Path(target) if target is not None else _cache_root() / "nltk_data"
    corpus = root / "corpora" / "wordnet"
    names = [n for n in (*_REQUIRED, *_OPTIONAL) if n == "lexnames" or source.has(n)]
    stamp = f"{source}\n" + "\n".join(f"{n} {source.size(n)}" for n in names if n != "lexnames")
    stamp_file = corpus / ".meteorx-source"
    if not (stamp_file.is_file() and stamp_file.read_text(encoding="utf-8") == stamp):
        corpus.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".wordnet-", dir=corpus.parent))
        for name in names:
            if name != "lexnames":
                (staging / name).write_bytes(source.read(name))
        if not (staging / "lexnames").exists():
            (staging / "lexnames").write_text(
                "".join(f"{i:02d}\t{n}\t{p}\n" for i, (n, p) in enumerate(_LEXNAMES)),
                encoding="ascii",
            )
        (staging / ".meteorx-source").write_text(stamp, encoding="utf-8")
        staging.chmod(0o755)
        if corpus.exists():
            shutil.rmtree(corpus)
        staging.rename(corpus)
    entry = str(root)
    if prepend:
        if entry in nltk.data.path:
            nltk.data.path.remove(entry)
        nltk.data.path.insert(0, entry)
    elif entry not in nltk.data.path:
        nltk.data.path.append(entry)
    return root


def nltk_wordnet_reader(wordnet_dir: str | os.PathLike[str] | None = None) -> Any:
    """NLTK's own ``WordNetCorpusReader`` on the same files (slow to load: seconds)."""
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    root = build_nltk_data(wordnet_dir)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "multilingual functions are not available"
        return WordNetCorpusReader(str(root / "corpora" / "wordnet"), None)


# ---------------------------------------------------------------------------------------
# Memoised stemmers and synonym sources
# ---------------------------------------------------------------------------------------


class _Memo(dict[str, Any]):
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


def _memoised(function: Callable[[str], Any]) -> Callable[[str], Any]:
    return _Memo(function).__getitem__


# ---------------------------------------------------------------------------------------
# NLTK's PorterStemmer (mode NLTK_EXTENSIONS), rule for rule, without its per-call
# overhead (rule lists rebuilt on every call, a closure per condition, a Python loop
# per measure). Same steps, same first-matching-suffix rule order, same quirks; checked
# against the installed NLTK when first used (see porter_stem_function).
# ---------------------------------------------------------------------------------------

#: "c"/"v" per character (ASCII); "y" is resolved from its left neighbour.
_CV_TABLE = {c: "c" for c in range(128)} | {ord(v): "v" for v in "aeiou"} | {ord("y"): "y"}


def _cv(word: str) -> str:
    """NLTK's consonant/vowel classes of ``word`` as a "c"/"v" string: a, e, i, o, u are
    vowels; y is a consonant at the start or after a vowel, else a vowel; anything
    else is a consonant."""
    if word.isascii():
        cv = word.translate(_CV_TABLE)
    else:
        cv = "".join("v" if ch in "aeiou" else "y" if ch == "y" else "c" for ch in word)
    if "y" in cv:
        out: list[str] = []
        prev = "v"  # a leading y is a consonant
        for ch in cv:
            if ch == "y":
                ch = "v" if prev == "c" else "c"
            out.append(ch)
            prev = ch
        cv = "".join(out)
    return cv


def _measure(stem: str) -> int:
    return _cv(stem).count("vc")


def _ends_cvc(word: str) -> bool:
    """Condition *o, with NLTK's two-letter extension."""
    n = len(word)
    if n >= 3:
        return word[-1] not in "wxy" and _cv(word).endswith("cvc")
    return n == 2 and _cv(word) == "vc"


def _by_last_letter(rules: tuple[tuple[str, str], ...]) -> dict[str, tuple[tuple[str, str], ...]]:
    """Rules grouped by the last letter of their suffix, each group in rule order (a
    word can only end with suffixes ending in its own last letter, so the first rule
    that matches is the same)."""
    out: dict[str, list[tuple[str, str]]] = {}
    for rule in rules:
        out.setdefault(rule[0][-1], []).append(rule)
    return {last: tuple(group) for last, group in out.items()}


_STEP2 = _by_last_letter(
    (
        ("ational", "ate"), ("tional", "tion"), ("enci", "ence"), ("anci", "ance"),
        ("izer", "ize"), ("bli", "ble"), ("alli", "al"), ("entli", "ent"), ("eli", "e"),
        ("ousli", "ous"), ("ization", "ize"), ("ation", "ate"), ("ator", "ate"),
        ("alism", "al"), ("iveness", "ive"), ("fulness", "ful"), ("ousness", "ous"),
        ("aliti", "al"), ("iviti", "ive"), ("biliti", "ble"), ("fulli", "ful"),
        ("logi", "log"),
    )
)  # fmt: skip
_STEP3 = _by_last_letter(
    (
        ("icate", "ic"), ("ative", ""), ("alize", "al"), ("iciti", "ic"), ("ical", "ic"),
        ("ful", ""), ("ness", ""),
    )
)  # fmt: skip
_STEP4 = _by_last_letter(
    tuple(
        (suffix, "")
        for suffix in (
            "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent",
            "ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize",
        )
    )
)  # fmt: skip


def _step1b(word: str) -> str:
    last = word[-1:]
    if last == "d":
        if word.endswith("ied"):
            return word[:-3] + ("ie" if len(word) == 4 else "i")
        if word.endswith("eed"):
            stem = word[:-3]
            return stem + "ee" if _measure(stem) > 0 else word
        if not word.endswith("ed"):
            return word
        stem = word[:-2]
    elif last == "g" and word.endswith("ing"):
        stem = word[:-3]
    else:
        return word
    if "v" not in _cv(stem):
        return word
    if stem.endswith(("at", "bl", "iz")):
        return stem + "e"
    if len(stem) >= 2 and stem[-1] == stem[-2] and _cv(stem)[-1] == "c":  # *d
        return stem if stem[-1] in "lsz" else stem[:-1]
    if stem.endswith("*d"):  # NLTK tests the rule's "*d" as a plain suffix too
        return stem[:-2] + "d"
    if _measure(stem) == 1 and _ends_cvc(stem):
        return stem + "e"
    return stem


def _step2(word: str) -> str:
    if word.endswith("alli") and _measure(word[:-4]) > 0:
        return _step2(word[:-4] + "al")
    for suffix, replacement in _STEP2.get(word[-1:], ()):
        if word.endswith(suffix):
            if suffix == "logi":
                return word[:-1] if _measure(word[:-3]) > 0 else word
            stem = word[: -len(suffix)]
            return stem + replacement if _measure(stem) > 0 else word
    return word


def _step3(word: str) -> str:
    for suffix, replacement in _STEP3.get(word[-1:], ()):
        if word.endswith(suffix):
            stem = word[: -len(suffix)]
            return stem + replacement if _measure(stem) > 0 else word
    return word


def _step4(word: str) -> str:
    for suffix, _ in _STEP4.get(word[-1:], ()):
        if word.endswith(suffix):
            stem = word[: -len(suffix)]
            if _measure(stem) > 1 and (suffix != "ion" or stem[-1] in "st"):
                return stem
            return word
    return word


def _porter_nltk(word: str, pool: dict[str, str]) -> str:
    """``PorterStemmer().stem(word)`` (mode ``NLTK_EXTENSIONS``); ``pool`` is NLTK's
    table of irregular forms."""
    stem = word.lower()
    found = pool.get(stem)
    if found is not None:
        return found
    if len(word) <= 2:  # NLTK measures the word as given, before lower-casing
        return stem
    # Step 1a (with NLTK's "ies" -> "ie" for four-letter words).
    if stem[-1] == "s":
        if stem.endswith("ies"):
            stem = stem[:-1] if len(stem) == 4 else stem[:-2]
        elif stem.endswith("sses"):
            stem = stem[:-2]
        elif not stem.endswith("ss"):
            stem = stem[:-1]
    stem = _step1b(stem)
    # Step 1c: y -> i after a consonant, when more than one letter precedes it.
    if stem[-1] == "y" and len(stem) > 2 and _cv(stem[:-1])[-1] == "c":
        stem = stem[:-1] + "i"
    stem = _step2(stem)
    stem = _step3(stem)
    stem = _step4(stem)
    # Step 5a.
    if stem[-1] == "e":
        base = stem[:-1]
        measure = _measure(base)
        if measure > 1 or (measure == 1 and not _ends_cvc(base)):
            stem = base
    # Step 5b.
    if stem[-1] == "l" and stem.endswith("ll") and _measure(stem[:-1]) > 1:
        stem = stem[:-1]
    return stem


#: Words that take every branch of the port above (and NLTK's irregular forms); the
#: port is used only if it stems all of them as the installed NLTK does.
_PROBE_TEXT = (
    "caresses ponies ties caress cats feed agreed plastered bled motoring sing conflated "
    "troubled sized hopping tanned falling hissing fizzed failing filing happy sky skies "
    "relational conditional rational valenci hesitanci digitizer conformabli radicalli "
    "differentli vileli analogousli vietnamization predication operator feudalism "
    "decisiveness hopefulness callousness formaliti sensitiviti sensibiliti triplicate "
    "formative formalize electriciti electrical hopeful goodness revival allowance "
    "inference airliner gyroscopic adjustable defensible irritant replacement adjustment "
    "dependent adoption homologou communism activate angulariti homologous effective "
    "bowdlerize probate rate cease controll roll dying lying tying news innings outings "
    "cannings howe proceed exceeded succeeding lies died spied cried enjoy syzygy yyyy "
    "ab*ded generously archaeology fully hopefulli analogi toy boys sayings Running "
    "İstanbul a is as by generalizations traditionalli"
)
_PORTER_PROBES = tuple(_PROBE_TEXT.split())


def _porter_port(stemmer: Any) -> Callable[[str], str] | None:
    """The port of ``stemmer`` (an NLTK ``PorterStemmer`` in mode NLTK_EXTENSIONS) if it
    agrees with it on every probe word, else None."""
    pool = dict(stemmer.pool)

    def stem(word: str) -> str:
        return _porter_nltk(word, pool)

    if all(stem(word) == stemmer.stem(word) for word in _PORTER_PROBES):
        return stem
    return None  # a different NLTK release changed the rules: use its own code


_PORTER: dict[str, _Memo] = {}


def porter_stem_function(mode: str = "NLTK_EXTENSIONS") -> Callable[[str], str]:
    """NLTK's ``PorterStemmer(mode).stem``, memoised (one shared cache per mode).

    For the default mode, ``NLTK_EXTENSIONS`` (NLTK METEOR's stemmer), a rule-for-rule
    port of NLTK's code that runs about five times faster; it is checked against the
    installed NLTK on first use and NLTK's own stemmer is used if they disagree.
    """
    memo = _PORTER.get(mode)
    if memo is None:
        from nltk.stem.porter import PorterStemmer

        stemmer = PorterStemmer(mode)
        function: Callable[[str], str] = stemmer.stem
        if mode == "NLTK_EXTENSIONS":
            function = _porter_port(stemmer) or function
        memo = _PORTER[mode] = _Memo(function)
    return memo.__getitem__


_STEMMERS: weakref.WeakKeyDictionary[Any, Callable[[str], str]] = weakref.WeakKeyDictionary()
_SYNONYMS: weakref.WeakKeyDictionary[Any, Callable[[str], frozenset[str]]] = (
    weakref.WeakKeyDictionary()
)


def _is_default_porter(stemmer: Any) -> bool:
    """An NLTK ``PorterStemmer`` as NLTK METEOR builds it by default."""
    from nltk.stem.porter import PorterStemmer

    return type(stemmer) is PorterStemmer and stemmer.mode == PorterStemmer.NLTK_EXTENSIONS


def _stem_function(stemmer: StemmerLike | None) -> Callable[[str], str]:
    if stemmer is None:
        return porter_stem_function()
    try:
        return _STEMMERS[stemmer]
    except KeyError:
        if _is_default_porter(stemmer):
            function = porter_stem_function()
        else:
            function = _memoised(stemmer.stem)
        _STEMMERS[stemmer] = function
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

    return _memoised(synonyms)


def _synonym_function(wordnet: Any) -> Callable[[str], frozenset[str]]:
    if wordnet is None:
        return default_wordnet().synonyms
    if isinstance(wordnet, WordNetSynonyms):
        return wordnet.synonyms
    try:
        return _SYNONYMS[wordnet]
    except KeyError:
        function = _SYNONYMS[wordnet] = _nltk_synonyms(wordnet)
        return function
    except TypeError:
        return _nltk_synonyms(wordnet)


# ---------------------------------------------------------------------------------------
# The alignment and the score
# ---------------------------------------------------------------------------------------


def synonym_prefilter(
    stem: Callable[[str], str], synonyms: Callable[[str], frozenset[str]]
) -> Prefilter | None:
    """The ``prefilter`` of :func:`greedy_links` when it is known to be safe: stems
    from :func:`porter_stem_function` (lower case) and synonyms from a
    :class:`WordNetSynonyms`; None otherwise."""
    stem_memo = getattr(stem, "__self__", None)
    if not any(stem_memo is memo for memo in _PORTER.values()):
        return None
    memo = getattr(synonyms, "__self__", None)
    wordnet = getattr(getattr(memo, "function", None), "__self__", None)
    if isinstance(wordnet, WordNetSynonyms) and synonyms == wordnet.synonyms:
        return wordnet.synset_ids, wordnet.lemma_ids, wordnet.synset_names
    return None


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
    link, _, stem_links, syn_links = greedy_links(
        hyp, ref, stem or porter_stem_function(), synonyms or default_wordnet().synonyms
    )
    later = set(stem_links) | set(syn_links)
    exact = [(i, link[i]) for i in range(len(hyp) - 1, -1, -1) if link[i] >= 0 and i not in later]
    return exact, [(i, link[i]) for i in stem_links], [(i, link[i]) for i in syn_links]


def _formula(
    matches: int, chunks: int, hyp_len: int, ref_len: int, alpha: float, beta: float, gamma: float
) -> float:
    # NLTK's expressions in NLTK's order, so the floats are bit-identical.
    try:
        precision = float(matches) / hyp_len
        recall = float(matches) / ref_len
        fmean = (precision * recall) / (alpha * precision + (1 - alpha) * recall)
        frag_frac = float(chunks) / matches
    except ZeroDivisionError:
        return 0.0
    penalty: float = gamma * frag_frac**beta
    return (1 - penalty) * fmean


def _tokens(value: Iterable[str], role: str, preprocess: Callable[[str], str]) -> list[str]:
    if isinstance(value, str):
        raise TypeError(
            f'"{role}" expects pre-tokenized {role} (Iterable[str]), got the string '
            f"{value!r}; split it first, e.g. {role}.split()"
        )
    return list(map(preprocess, value))


_Functions = tuple[Callable[[str], str], Callable[[str], frozenset[str]], Prefilter | None]
_DEFAULT_FUNCTIONS: list[_Functions] = []  # the defaults' (stable: memos are cleared in place)


def _functions(stemmer: StemmerLike | None, wordnet: Any) -> _Functions:
    """Stemmer, synonyms and prefilter for the arguments of the scoring functions."""
    if stemmer is None and wordnet is None:
        if not _DEFAULT_FUNCTIONS:
            stem, synonyms = porter_stem_function(), default_wordnet().synonyms
            _DEFAULT_FUNCTIONS.append((stem, synonyms, synonym_prefilter(stem, synonyms)))
        return _DEFAULT_FUNCTIONS[0]
    stem = _stem_function(stemmer)
    synonyms = _synonym_function(wordnet)
    return stem, synonyms, synonym_prefilter(stem, synonyms)


def align_words(
    hypothesis: Iterable[str],
    reference: Iterable[str],
    stemmer: StemmerLike | None = None,
    wordnet: Any = None,
) -> list[tuple[int, int]]:
    """NLTK's ``align_words(...)[0]``: ``(hypothesis index, reference index)`` links
    sorted by hypothesis index (NLTK lower-cases the tokens here, and so do we)."""
    hyp = _tokens(hypothesis, "hypothesis", str.lower)
    ref = _tokens(reference, "reference", str.lower)
    link = greedy_links(hyp, ref, *_functions(stemmer, wordnet))[0]
    return [(i, j) for i, j in enumerate(link) if j >= 0]


def single_meteor_score(
    reference: Iterable[str],
    hypothesis: Iterable[str],
    preprocess: Callable[[str], str] = str.lower,
    stemmer: StemmerLike | None = None,
    wordnet: Any = None,
    alpha: float = 0.9,
    beta: float = 3.0,
    gamma: float = 0.5,
) -> float:
    """NLTK's ``single_meteor_score``: one tokenised reference, one tokenised hypothesis.

    ``stemmer`` defaults to NLTK's ``PorterStemmer()`` and ``wordnet`` to the WordNet
    found by :func:`find_wordnet`; any NLTK stemmer / WordNet reader may be passed.

    >>> single_meteor_score("the cat sat on the mat".split(), "on the mat sat the cat".split())
    0.5
    """
    hyp = _tokens(hypothesis, "hypothesis", preprocess)
    ref = _tokens(reference, "reference", preprocess)
    link, matches, _, _ = greedy_links(hyp, ref, *_functions(stemmer, wordnet))
    return _formula(matches, chunk_count(link), len(hyp), len(ref), alpha, beta, gamma)


def meteor_score(
    references: Iterable[Iterable[str]],
    hypothesis: Iterable[str],
    preprocess: Callable[[str], str] = str.lower,
    stemmer: StemmerLike | None = None,
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
    stem, synonyms, prefilter = _functions(stemmer, wordnet)
    hyp: list[str] | None = None
    best: float | None = None
    for reference in references:
        if hyp is None:
            hyp = _tokens(hypothesis, "hypothesis", preprocess)
        ref = _tokens(reference, "reference", preprocess)
        link, matches, _, _ = greedy_links(hyp, ref, stem, synonyms, prefilter)
        value = _formula(matches, chunk_count(link), len(hyp), len(ref), alpha, beta, gamma)
        if best is None or value > best:
            best = value
    if best is None:
        raise ValueError("meteor_score() needs at least one reference")
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
    scores = [
        meteor_score(refs, hyp, **options) for refs, hyp in zip(references, hypotheses, strict=True)
    ]
    if not scores:
        raise ValueError("mean_meteor_score() needs at least one segment")
    return math.fsum(scores) / len(scores)
