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

Speed comes from memoising stems and synonym sets per word (so a custom ``stemmer``
or ``wordnet`` must be deterministic, as NLTK's are) and from reading WordNet
directly instead of through NLTK's corpus reader (which takes seconds to load).

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

from meteorx.errors import ResourceError

__all__ = [
    "WordNetLocation",
    "WordNetSynonyms",
    "align_stages",
    "align_words",
    "build_nltk_data",
    "clear_caches",
    "default_wordnet",
    "find_wordnet",
    "mean_meteor_score",
    "meteor_score",
    "nltk_wordnet_reader",
    "porter_stem_function",
    "single_meteor_score",
]


class StemmerLike(Protocol):
    """What NLTK calls a stemmer: ``stem(word) -> str``."""

    def stem(self, word: str) -> str: ...


class _Keys(Protocol):
    """Position -> key: a token list, or a dict holding only some positions."""

    def __getitem__(self, index: int, /) -> str: ...


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
        self._offsets: dict[tuple[str, str], tuple[int, ...]] = {}
        self._names: dict[tuple[str, int], tuple[str, ...]] = {}
        self._loaded = False
        self._memo = _Memo(self._synonyms)
        #: ``synonyms(word)``, memoised: NLTK METEOR's synonym set of ``word``.
        self.synonyms: Callable[[str], frozenset[str]] = self._memo.__getitem__

    def describe(self) -> str:
        return f"wordnet-{self.location.version}"

    def load(self) -> None:
        """Read the index and data files now (otherwise done on first use)."""
        if not self._loaded:
            self._load()

    def clear(self) -> None:
        """Forget memoised synonym sets and parsed synsets (the loaded files stay)."""
        self._memo.clear()
        self._offsets.clear()
        self._names.clear()

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
        key = (pos, form)
        offsets = self._offsets.get(key)
        if offsets is None:
            # pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt offsets...
            fields = self._index[pos][form].split()
            start = 5 + int(fields[2])
            offsets = tuple(int(f) for f in fields[start : start + int(fields[1])])
            self._offsets[key] = offsets
        return offsets

    def _morphy(self, form: str, pos: str) -> list[str]:
        """The forms NLTK's ``_morphy`` keeps for ``form``, in its order."""
        index = self._index[pos]
        exceptions = self._exceptions[pos]
        if form in exceptions:
            forms = exceptions[form]
        elif form.endswith(_ENDINGS[pos]):
            forms = [
                form[: -len(old)] + new for old, new in _SUBSTITUTIONS[pos] if form.endswith(old)
            ]
        else:
            forms = []
        result: list[str] = [form] if form in index else []
        for candidate in forms:
            if candidate in index and candidate not in result:
                result.append(candidate)
        return result

    def _lemma_names(self, pos: str, offset: int) -> tuple[str, ...]:
        key = (pos, offset)
        names = self._names.get(key)
        if names is None:
            data = self._data[pos]
            end = data.find(b"\n", offset)
            line = data[offset : end if end >= 0 else len(data)]
            # synset_offset lex_filenum ss_type w_cnt (word lex_id)... p_cnt ...
            head = line.split(None, 4)
            if len(head) < 5 or not head[0].isdigit() or int(head[0]) != offset:
                raise ResourceError(
                    f"WordNet data.{dict(_POS)[pos]} has no synset at offset {offset}: "
                    f"{self.location} is corrupt or mixes versions; {_INSTALL_HINT}"
                )
            count = int(head[3], 16)
            words = head[4].split(None, 2 * count)[: 2 * count : 2]
            found: list[str] = []
            for raw in words:
                name = raw.decode("utf-8")
                if name.endswith(")"):
                    marked = _MARKER.match(name)
                    assert marked is not None
                    name = marked.group(1)
                found.append(name)
            names = self._names[key] = tuple(found)
        return names

    def lemma_names(self, word: str) -> set[str]:
        """All lemma names of NLTK's ``wordnet.synsets(word)`` (``_`` ones included)."""
        if not self._loaded:
            self._load()
        lemma = word.lower()
        names: set[str] = set()
        for pos, _ in _POS:
            for form in self._morphy(lemma, pos):
                for offset in self._synset_offsets(pos, form):
                    names.update(self._lemma_names(pos, offset))
        return names

    def _synonyms(self, word: str) -> frozenset[str]:
        names = {name for name in self.lemma_names(word) if "_" not in name}
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
    env = os.environ.get("METEORX_CACHE_DIR")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("meteorx"))


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


_PORTER: dict[str, _Memo] = {}


def porter_stem_function(mode: str = "NLTK_EXTENSIONS") -> Callable[[str], str]:
    """NLTK's ``PorterStemmer(mode).stem``, memoised (one shared cache per mode)."""
    memo = _PORTER.get(mode)
    if memo is None:
        from nltk.stem.porter import PorterStemmer

        memo = _PORTER[mode] = _Memo(PorterStemmer(mode).stem)
    return memo.__getitem__


_STEMMERS: weakref.WeakKeyDictionary[Any, Callable[[str], str]] = weakref.WeakKeyDictionary()
_SYNONYMS: weakref.WeakKeyDictionary[Any, Callable[[str], frozenset[str]]] = (
    weakref.WeakKeyDictionary()
)


def _stem_function(stemmer: StemmerLike | None) -> Callable[[str], str]:
    if stemmer is None:
        return porter_stem_function()
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


def _greedy(
    hyp_left: list[int],
    hyp_keys: _Keys,
    ref_left: list[int],
    ref_keys: _Keys,
    out: list[tuple[int, int]],
) -> tuple[list[int], list[int]]:
    """One identity stage. ``hyp_left`` is in descending order (NLTK visits the
    hypothesis from its last word), ``ref_left`` ascending; each hypothesis key takes
    the last still-free reference position with the same key. Returns what is left,
    in the same orders."""
    positions: dict[str, list[int]] = {}
    for j in ref_left:
        key = ref_keys[j]
        found = positions.get(key)
        if found is None:
            positions[key] = [j]
        else:
            found.append(j)
    hyp_rest: list[int] = []
    taken: set[int] = set()
    for i in hyp_left:
        found = positions.get(hyp_keys[i])
        if found:
            j = found.pop()
            out.append((i, j))
            taken.add(j)
        else:
            hyp_rest.append(i)
    if not taken:
        return hyp_rest, ref_left
    return hyp_rest, [j for j in ref_left if j not in taken]


def _greedy_synonyms(
    hyp_left: list[int],
    hyp_keys: _Keys,
    ref_left: list[int],
    ref_keys: _Keys,
    synonyms: Callable[[str], frozenset[str]],
    out: list[tuple[int, int]],
) -> None:
    """The synonym stage: each hypothesis word (last first) takes the last free
    reference word among its synonyms."""
    positions: dict[str, list[int]] = {}
    for j in ref_left:
        key = ref_keys[j]
        found = positions.get(key)
        if found is None:
            positions[key] = [j]
        else:
            found.append(j)
    for i in hyp_left:
        syns = synonyms(hyp_keys[i])
        best_j = -1
        best: list[int] | None = None
        if len(syns) <= len(positions):
            for word in syns:
                found = positions.get(word)
                if found and found[-1] > best_j:
                    best_j, best = found[-1], found
        else:
            for word, found in positions.items():
                if found and found[-1] > best_j and word in syns:
                    best_j, best = found[-1], found
        if best is not None:
            best.pop()
            out.append((i, best_j))


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
    stem = stem or porter_stem_function()
    exact: list[tuple[int, int]] = []
    stems: list[tuple[int, int]] = []
    syns: list[tuple[int, int]] = []
    hyp_left, ref_left = _greedy(
        list(range(len(hyp) - 1, -1, -1)), hyp, list(range(len(ref))), ref, exact
    )
    if hyp_left and ref_left:
        hyp_stems = {i: stem(hyp[i]) for i in hyp_left}
        ref_stems = {j: stem(ref[j]) for j in ref_left}
        hyp_left, ref_left = _greedy(hyp_left, hyp_stems, ref_left, ref_stems, stems)
        if hyp_left and ref_left:
            _greedy_synonyms(
                hyp_left,
                hyp_stems,
                ref_left,
                ref_stems,
                synonyms or default_wordnet().synonyms,
                syns,
            )
    return exact, stems, syns


def _align(
    hyp: Sequence[str],
    ref: Sequence[str],
    stem: Callable[[str], str],
    synonyms: Callable[[str], frozenset[str]],
) -> list[tuple[int, int]]:
    """NLTK's greedy three-stage alignment, as (hyp, ref) pairs sorted by hyp index."""
    exact, stems, syns = align_stages(hyp, ref, stem, synonyms)
    pairs = exact + stems + syns
    pairs.sort()
    return pairs


def _chunks(pairs: list[tuple[int, int]]) -> int:
    """NLTK's chunk count of hypothesis-ordered pairs (1 for no pairs, as NLTK)."""
    chunks = 1
    for k in range(len(pairs) - 1):
        if not (pairs[k + 1][0] == pairs[k][0] + 1 and pairs[k + 1][1] == pairs[k][1] + 1):
            chunks += 1
    return chunks


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
    return _align(hyp, ref, _stem_function(stemmer), _synonym_function(wordnet))


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
    pairs = _align(hyp, ref, _stem_function(stemmer), _synonym_function(wordnet))
    return _formula(len(pairs), _chunks(pairs), len(hyp), len(ref), alpha, beta, gamma)


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
    stem = _stem_function(stemmer)
    synonyms = _synonym_function(wordnet)
    hyp: list[str] | None = None
    best: float | None = None
    for reference in references:
        if hyp is None:
            hyp = _tokens(hypothesis, "hypothesis", preprocess)
        ref = _tokens(reference, "reference", preprocess)
        pairs = _align(hyp, ref, stem, synonyms)
        value = _formula(len(pairs), _chunks(pairs), len(hyp), len(ref), alpha, beta, gamma)
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
