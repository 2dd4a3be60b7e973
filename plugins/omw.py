"""The ``omw`` plugin: a ``synonym-omw`` matcher for every language with an Open
Multilingual Wordnet.

Meteor 1.5's synonym module reads English WordNet only. This matcher reads any wordnet
in OMW's tab format (``<offset>-<pos> TAB [<lang>:]lemma TAB <lemma>``), such as the
ones in `omwn/omw-data <https://github.com/omwn/omw-data>`_ (``wns/<code>/``):
OpenWordnet-PT (``por``), WOLF (``fra``), MultiWordNet (``ita``), Open Dutch WordNet
(``nld``), plWordNet (``pol``), DanNet (``dan``), the Norwegian, Icelandic, MCR
(Galician, Catalan, Basque), Bulgarian, Croatian and Slovak wordnets, and others.

Matching. Two *different* words (or phrases) match when they share a synset. Wordnets
list base forms, so a token is looked up through its base forms, as Meteor does:

* by its lowercased form, and by its simplemma lemma followed to a fixed point
  ("lindas" -> "linda" -> "lindo"), when simplemma has the language (``lemma_lookup``);
* optionally by its Snowball stem, against the stems of the wordnet's lemmas
  (``stem_lookup``: ``never``, the default; ``fallback`` = only when form and lemma
  find nothing; ``always``), and optionally against the simplemma lemmas of the
  wordnet's own entries (``lemma_index``, for wordnets that list inflected forms).
  Both widen recall at a cost in precision (on Portuguese they link e.g. *logado* to
  *logo*, *somos* to *momento*), so they are off by default;
* ``skip_function_words`` keeps function words (meteorx's built-in list) out: in a
  wordnet they are mostly rare senses (Portuguese *é* ~ *está*, *de* ~ *faminto*).

So *carros* ~ *automóveis*, *lindas* ~ *bonitas* and *faleceu* ~ *morreu* match though
the wordnet lists only *carro*, *lindo*, *falecer*. Multi-word lemmas ("pelo menos",
"entrar em contato") are matched as phrases up to ``max_phrase_len`` words, by their
lowercased form (a phrase on one side may link to one word on the other:
*contatar* ~ *entrar em contato*).

Resources. The tab file is found in this order: the stage option ``path:`` (a tab
file, or a folder holding ``<code>/wn-data-<code>.tab`` or ``wn-data-<code>.tab``),
``$METEORX_OMW_DIR`` (a folder laid out the same way), then the user cache, where
``meteorx resources install omw-<code> --from FILE`` puts it. The parsed index is
compiled once into the user cache (a data-only, checksummed file keyed by the tab
file's SHA-256, see :mod:`meteorx.cache`) and loads in well under a second afterwards;
the signature names the file's checksum.
"""

from __future__ import annotations

import os
import re
import unicodedata
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import accumulate, chain
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from meteorx.cache import Record, cached
from meteorx.errors import LanguageError, ResourceError
from meteorx.hookspecs import hookimpl
from meteorx.languages import Language
from meteorx.matchers import Matcher
from meteorx.resources import MissingResource, installed_dir, sha256_file, short_checksum
from meteorx.types import Span
from meteorx_plugins.core import snowball_stemmer
from meteorx_plugins.lemma import (
    builtin_function_words,
    lemma_chain,
    lemmatizer,
    simplemma_code,
    simplemma_version,
)

__all__ = [
    "OMW_CODES",
    "OMW_COMMIT",
    "OMW_SHA256",
    "OmwIndex",
    "OmwOptions",
    "OmwResource",
    "OmwSynonymMatcher",
    "find_omw_file",
    "load_index",
    "omw_code",
    "omw_resource",
]

#: Environment variable naming a folder laid out like omw-data's ``wns/``.
OMW_ENV = "METEORX_OMW_DIR"

#: ISO 639-1 (meteorx) code -> the OMW folder code (ISO 639-3).
OMW_CODES: dict[str, str] = {
    "pt": "por",
    "fr": "fra",
    "it": "ita",
    "nl": "nld",
    "pl": "pol",
    "da": "dan",
    "nb": "nob",
    "no": "nob",
    "nn": "nno",
    "is": "isl",
    "gl": "glg",
    "ca": "cat",
    "eu": "eus",
    "bg": "bul",
    "hr": "hrv",
    "sk": "slk",
    # Other omw-data wordnets (no pinned checksum; install them with --from):
    "sq": "als",
    "ar": "arb",
    "zh": "cmn",
    "el": "ell",
    "fi": "fin",
    "he": "heb",
    "id": "ind",
    "ja": "jpn",
    "lt": "lit",
    "ro": "ron",
    "sl": "slv",
    "es": "spa",
    "sv": "swe",
    "th": "tha",
    "ms": "zsm",
}

#: The omw-data commit whose files have the checksums below.
OMW_COMMIT = "f75be19ec590da12a7a5665e361690b5badb7a25"

#: SHA-256 of ``wns/<code>/wn-data-<code>.tab`` at :data:`OMW_COMMIT`.
OMW_SHA256: dict[str, str] = {
    "bul": "ccc1d3de2fd33eaf3dde6e7ba9b042052ce2a3ba7660fe6de56eb7874ce561a2",
    "cat": "3c83c0c5298ed700a56dff9e9ea85dad2032162825778fec2c3df99fbccd3060",
    "dan": "3510c66a67957ac1a18a80f5042a95415e85555c6d8d0067404e1385595b6b4a",
    "eus": "b3278c13f92cd4f3165fcee612a127d3a6695be3bfd55499a7d87ba5b68a6211",
    "fra": "6effab15723bbb482f2922d42eb1db37c8586984ce7735ebfe0a096000b69f86",
    "glg": "ff86280838b1ea0bc490cc51a80d9654df1b5602efe97ca4d041167e7fdcb019",
    "hrv": "640879334f5a801a39aff42e274db58c96c5621f53ec5c7e9c2beb1cd77c9f7c",
    "isl": "896b8dccc4eb3e6cef557a06fd52bcef4bb938ad8daf6e8775bf472df0874261",
    "ita": "251ac0097ef81a7ed0d283f6852953106a37dbb8c1b9f93d87079641c271eafa",
    "nld": "ace21f3ea700f4ed8f4ac6dd9a4d12e2d732931ce766797afda1827330b08fa0",
    "nno": "b74637170cc63cca01a87a5226333633acd219684b0ba5b7de95f0d8ab90ea3c",
    "nob": "0a819aa7d708ca64818236c641745a2ff9eaee31d833af6705b84be294f3ab43",
    "pol": "0c9fc6d9f22f180f241895d2520f762423790e7df6f9438aaa42113da1eb6b10",
    "por": "0ba180e2d2a5317e61b4ebe94a7e969e68eea2d9e60705e1e9053c6e2ac5e684",
    "slk": "000b93c614bc23ff1f81ff13670cfbe1ae811f76d305ff5088eac9695ea3c52a",
}

_NAMES: dict[str, str] = {
    "por": "OpenWordnet-PT",
    "fra": "WOLF",
    "ita": "MultiWordNet (Italian)",
    "nld": "Open Dutch WordNet",
    "pol": "plWordNet",
    "dan": "DanNet",
    "nob": "Norwegian Wordnet (Bokmål)",
    "nno": "Norwegian Wordnet (Nynorsk)",
    "isl": "IceWordNet",
    "glg": "Galician wordnet (MCR)",
    "cat": "Catalan wordnet (MCR)",
    "eus": "Basque wordnet (MCR)",
    "bul": "BulTreeBank Wordnet",
    "hrv": "Croatian Wordnet",
    "slk": "Slovak WordNet",
}

_RESOURCE_NAME = re.compile(r"omw-([a-z]{3})")
_SYNSET = re.compile(r"^\d{8}-[nvasr]$")


# -- resources ---------------------------------------------------------------------------


@dataclass(frozen=True)
class OmwResource:
    """What ``meteorx resources install omw-<code>`` needs to know about one wordnet."""

    name: str  # omw-por
    code: str  # por
    filename: str  # wn-data-por.tab
    url: str  # the official download address (pinned omw-data commit)
    sha256: str | None  # expected checksum of that file, if known
    description: str

    def check(self, path: Path) -> str | None:
        """``None`` if ``path`` looks like this wordnet's OMW tab file, else why not."""
        problem = check_tab_file(path)
        if problem is None:
            code = tab_file_language(path)
            if code is not None and code != self.code:
                return f"is the {code} wordnet, not {self.code}"
        return problem


def tab_file_language(path: Path) -> str | None:
    """The language code in an OMW tab file's header (``# name<TAB>code<TAB>…``), if any."""
    try:
        with open(path, encoding="utf-8") as handle:
            first = handle.readline()
    except (OSError, UnicodeDecodeError):
        return None
    if not first.startswith("#"):
        return None
    cols = first[1:].strip().split("\t")
    code = cols[1].strip() if len(cols) > 1 else ""
    return code if re.fullmatch(r"[a-z]{3}", code) else None


def omw_resource(name: str) -> OmwResource | None:
    """The installable resource called ``name`` (``omw-por``…), or ``None``."""
    match = _RESOURCE_NAME.fullmatch(name)
    if match is None:
        return None
    code = match.group(1)
    filename = f"wn-data-{code}.tab"
    return OmwResource(
        name=name,
        code=code,
        filename=filename,
        url=f"https://raw.githubusercontent.com/omwn/omw-data/{OMW_COMMIT}/wns/{code}/{filename}",
        sha256=OMW_SHA256.get(code),
        description=f"{_NAMES.get(code, code)} in OMW tab format (omw-data wns/{code})",
    )


def known_resources() -> list[OmwResource]:
    """The OMW resources with a pinned checksum (listed by ``meteorx resources list``)."""
    out = [omw_resource(f"omw-{code}") for code in sorted(OMW_SHA256)]
    return [r for r in out if r is not None]


def check_tab_file(path: Path) -> str | None:
    """``None`` if ``path`` is a readable OMW tab file, else a short reason."""
    if not path.is_file():
        return "does not exist" if not path.exists() else "is not a file"
    try:
        with open(path, encoding="utf-8") as handle:
            for n, line in enumerate(handle):
                if n > 200:
                    break
                if not line.strip() or line.startswith("#"):
                    continue
                cols = line.rstrip("\n").split("\t")
                if len(cols) >= 3 and _SYNSET.match(cols[0]):
                    return None
                return (
                    f"is not an OMW tab file (line {n + 1} is not "
                    "'<offset>-<pos> TAB lemma TAB <word>')"
                )
    except (OSError, UnicodeDecodeError) as error:
        return f"cannot be read as UTF-8 text ({type(error).__name__})"
    return "holds no wordnet entries"


def installed_path(code: str) -> Path | None:
    """Where ``meteorx resources install omw-<code>`` puts the tab file (may not exist)."""
    folder = installed_dir(f"omw-{code}")
    return None if folder is None else folder / f"wn-data-{code}.tab"


def _in_folder(folder: Path, code: str) -> Path | None:
    for candidate in (folder / code / f"wn-data-{code}.tab", folder / f"wn-data-{code}.tab"):
        if candidate.is_file():
            return candidate
    return None


def _install_hint(code: str) -> str:
    name = f"omw-{code}"
    return (
        f"install it with: meteorx resources install {name} --from FILE "
        f"(FILE = wn-data-{code}.tab from github.com/omwn/omw-data, folder wns/{code}/), "
        f"set ${OMW_ENV} to a folder holding {code}/wn-data-{code}.tab, "
        "or give the stage a 'path:' option"
    )


def find_omw_file(code: str, explicit: str | os.PathLike[str] | None = None) -> tuple[Path, str]:
    """Locate the tab file of wordnet ``code``: ``(path, how it was found)``.

    :raises ResourceError: one line saying what is missing and how to install it.
    """
    what = f"{_NAMES.get(code, 'the OMW wordnet')} ({code}, resource omw-{code})"
    if explicit is not None and os.fspath(explicit) != "":
        path = Path(os.path.expandvars(os.path.expanduser(os.fspath(explicit))))
        if path.is_dir():
            found = _in_folder(path, code)
            if found is None:
                raise ResourceError(
                    f"{what}: folder {path} (from option 'path') holds neither "
                    f"{code}/wn-data-{code}.tab nor wn-data-{code}.tab"
                )
            path = found
        reason = check_tab_file(path)
        if reason is not None:
            raise ResourceError(f"{what}: {path} (from option 'path') {reason}")
        return path, "option 'path'"
    env = os.environ.get(OMW_ENV, "")
    looked: list[str] = []
    if env:
        folder = Path(os.path.expandvars(os.path.expanduser(env)))
        if not folder.is_dir():
            raise ResourceError(f"{what}: ${OMW_ENV}={env} is not a folder")
        found = _in_folder(folder, code)
        if found is not None:
            reason = check_tab_file(found)
            if reason is not None:
                raise ResourceError(f"{what}: {found} (from ${OMW_ENV}) {reason}")
            return found, f"${OMW_ENV}"
        looked.append(f"${OMW_ENV}={folder}")
    cached = installed_path(code)
    if cached is not None:
        if cached.is_file():
            reason = check_tab_file(cached)
            if reason is not None:
                raise ResourceError(
                    f"{what}: the installed copy {cached} {reason}; reinstall it with: "
                    f"meteorx resources install omw-{code} --from FILE --force"
                )
            return cached, "user cache"
        looked.append(f"the user cache ({cached.parent})")
    where = f"looked in {' and '.join(looked)}; " if looked else ""
    raise MissingResource(what, where + _install_hint(code), f"omw-{code}", f"wn-data-{code}.tab")


def omw_code(language: Language) -> str | None:
    """The OMW folder code of a meteorx language, or ``None``."""
    return OMW_CODES.get(language.code)


# -- the index ---------------------------------------------------------------------------

_FORMAT = "omw-index-v3"

Postings = tuple[int, ...]


@dataclass(frozen=True)
class OmwIndex:
    """A compiled wordnet: keys -> synset numbers (``synsets[n]`` is the synset id)."""

    words: dict[str, Postings]  # lowercased one-word lemmas
    bases: dict[str, Postings]  # one-word lemmas under their simplemma lemma (if different)
    stems: dict[str, Postings]  # Snowball stem of one-word lemmas
    phrases: dict[tuple[str, ...], Postings]  # lowercased multi-word lemmas
    synsets: tuple[str, ...]
    max_phrase: int
    entries: int


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize(
        "NFC", "".join(c for c in decomposed if not unicodedata.combining(c))
    )


def _key(text: str, fold: bool) -> str:
    text = unicodedata.normalize("NFC", text.strip().lower())
    return _fold(text) if fold else text


def parse_tab(path: Path) -> Iterable[tuple[str, str]]:
    """``(synset, lemma)`` pairs of an OMW tab file (definitions and examples skipped)."""
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if not line or line.startswith("#"):
                continue
            cols = line.rstrip("\n").split("\t")
            if len(cols) < 3:
                continue
            kind = cols[1]
            if kind != "lemma" and not kind.endswith(":lemma"):
                continue
            lemma = cols[2].replace("_", " ").strip()
            if lemma:
                yield cols[0], lemma


def _build_index(
    path: Path,
    lemmatize: Callable[[str], str] | None,
    stem: Callable[[str], str] | None,
    fold: bool,
) -> OmwIndex:
    synset_ids: dict[str, int] = {}
    words: dict[str, set[int]] = {}
    bases: dict[str, set[int]] = {}
    stems: dict[str, set[int]] = {}
    phrases: dict[tuple[str, ...], set[int]] = {}
    entries = 0
    for synset, lemma in parse_tab(path):
        sid = synset_ids.setdefault(synset, len(synset_ids))
        entries += 1
        key = _key(lemma, fold)
        parts = tuple(key.split())
        if len(parts) > 1:
            phrases.setdefault(parts, set()).add(sid)
            continue
        words.setdefault(key, set()).add(sid)
        if lemmatize is not None:
            base = _key(lemmatize(key), fold)
            if base != key:
                bases.setdefault(base, set()).add(sid)
        if stem is not None:
            stems.setdefault(stem(key), set()).add(sid)
    synsets = tuple(sorted(synset_ids, key=synset_ids.__getitem__))
    return OmwIndex(
        words={k: tuple(sorted(v)) for k, v in words.items()},
        bases={k: tuple(sorted(v)) for k, v in bases.items()},
        stems={k: tuple(sorted(v)) for k, v in stems.items()},
        phrases={k: tuple(sorted(v)) for k, v in phrases.items()},
        synsets=synsets,
        max_phrase=max((len(k) for k in phrases), default=1),
        entries=entries,
    )


_TABLES = ("words", "bases", "stems", "phrases")


def _encode(index: OmwIndex) -> Record:
    """The index as cached: per table, its keys (one per line; a phrase's words joined
    by spaces), each key's number of postings and the postings, as ``uint32`` arrays."""
    sections: dict[str, bytes] = {}
    tables: tuple[dict[Any, Postings], ...] = (index.words, index.bases, index.stems)
    for name, table in zip(_TABLES, (*tables, index.phrases), strict=True):
        keys = [" ".join(key) if isinstance(key, tuple) else key for key in table]
        sections[f"{name}.keys"] = "\n".join(keys).encode("utf-8")
        sections[f"{name}.counts"] = array("I", map(len, table.values())).tobytes()
        sections[f"{name}.ids"] = array("I", chain.from_iterable(table.values())).tobytes()
    sections["synsets"] = "\n".join(index.synsets).encode("utf-8")
    meta = {"max_phrase": index.max_phrase, "entries": index.entries, "synsets": len(index.synsets)}
    return Record(meta=meta, sections=sections)


def _decode(record: Record) -> OmwIndex:
    def table(name: str) -> tuple[list[str], Iterator[Postings]]:
        counts = memoryview(record.sections[f"{name}.counts"]).cast("I").tolist()
        keys = str(record.sections[f"{name}.keys"], "utf-8").split("\n") if counts else []
        ids = memoryview(record.sections[f"{name}.ids"]).cast("I").tolist()
        if len(counts) != len(keys) or sum(counts) != len(ids):
            raise ValueError("inconsistent compiled wordnet index")
        ends = list(accumulate(counts))
        return keys, map(tuple, map(ids.__getitem__, map(slice, [0, *ends], ends)))

    words, bases, stems = (dict(zip(*table(name), strict=True)) for name in _TABLES[:3])
    keys, postings = table("phrases")
    count = record.meta["synsets"]
    synsets = str(record.sections["synsets"], "utf-8").split("\n") if count else []
    if len(synsets) != count:
        raise ValueError("inconsistent compiled wordnet index")
    return OmwIndex(
        words=words,
        bases=bases,
        stems=stems,
        phrases=dict(zip((tuple(key.split(" ")) for key in keys), postings, strict=True)),
        synsets=tuple(synsets),
        max_phrase=int(record.meta["max_phrase"]),
        entries=int(record.meta["entries"]),
    )


@cache
def load_index(
    path: Path, sha256: str, lemma_code: str | None, stem_algorithm: str | None, fold: bool
) -> tuple[OmwIndex, Path | None]:
    """The compiled index of a tab file (from the user cache when possible)."""
    lemmatize = lemmatizer(lemma_code) if lemma_code else None
    stem = None
    if stem_algorithm:
        stem = snowball_stemmer(stem_algorithm)
    lemma_id = f"simplemma{simplemma_version()}-{lemma_code}" if lemma_code else "nolemma"
    key = f"{sha256}-{lemma_id}-{stem_algorithm or 'nostem'}-{'fold' if fold else 'keep'}"
    index, cache_file, _ = cached(
        _FORMAT, key, lambda: _encode(_build_index(path, lemmatize, stem, fold)), _decode
    )
    return index, cache_file


# -- the matcher -------------------------------------------------------------------------


class OmwOptions(BaseModel):
    """Options of the ``synonym-omw`` matcher."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: str | None = Field(
        None,
        description="OMW tab file, or a folder holding <code>/wn-data-<code>.tab "
        f"(default: ${OMW_ENV}, then the user cache)",
    )
    lang: str | None = Field(
        None, description="OMW wordnet code, e.g. por, fra (default: the configured language's)"
    )
    lemma_lookup: bool = Field(
        True,
        description="also look a word up by its simplemma lemma (if simplemma has the language)",
    )
    lemma_index: bool = Field(
        False,
        description="also find wordnet entries under *their* simplemma lemma (helps wordnets "
        "listing inflected forms; adds noise when a base form is also another word's "
        "inflection, e.g. Portuguese 'era' (age) -> 'ser')",
    )
    stem_lookup: Literal["fallback", "always", "never"] = Field(
        "never",
        description="also look a word up by Snowball stem: only when form and lemma find "
        "nothing (fallback), always, or never",
    )
    max_phrase_len: int = Field(
        3, ge=1, le=8, description="longest multi-word wordnet lemma matched as a phrase (1 = off)"
    )
    skip_function_words: bool = Field(
        False,
        description="propose no link involving a function word of meteorx's built-in list "
        "for the language (function words are mostly polysemous noise in wordnets)",
    )
    fold_accents: bool = Field(
        False, description="ignore diacritics when looking words up (for accent-folded text)"
    )
    min_length: int = Field(
        1, ge=1, description="ignore one-word tokens shorter than this many characters"
    )
    skip_identical: bool = Field(
        True, description="only link *different* words (identical ones are the exact stage's)"
    )


Unit = tuple[int, int, frozenset[int]]  # start, length, synsets


class OmwSynonymMatcher(Matcher):
    """Links different words or phrases sharing an OMW synset, through base forms."""

    name = "synonym-omw"
    version = "1"
    Options = OmwOptions

    def __init__(self, options: BaseModel, language: Language) -> None:
        super().__init__(options, language)
        assert isinstance(options, OmwOptions)
        code = options.lang or omw_code(language)
        if code is None:
            known = " ".join(sorted(OMW_CODES))
            raise LanguageError(
                f"synonym-omw: no Open Multilingual Wordnet is known for {language.name} "
                f"({language.code}); languages with one: {known} (or set the stage's "
                "'lang:' to an omw-data code and 'path:' to its tab file)"
            )
        self.code = code
        path, origin = find_omw_file(code, options.path)
        self.path = path
        self.origin = origin
        self.sha256 = sha256_file(path)
        # The index always holds lemma and stem keys when the language has them; the
        # options only decide which ones lookups use (one compiled cache per file).
        index_lemma = simplemma_code(language)
        index_stem = language.snowball
        self.index, self.cache_file = load_index(
            path, self.sha256, index_lemma, index_stem, options.fold_accents
        )
        self.lemma_code = index_lemma if options.lemma_lookup else None
        self._lemmatize = lemmatizer(self.lemma_code) if self.lemma_code else None
        self._lemma_index = options.lemma_index and index_lemma is not None
        self.stem_algorithm = index_stem if options.stem_lookup != "never" else None
        self._stem: Callable[[str], str] | None = None
        if self.stem_algorithm:
            self._stem = snowball_stemmer(self.stem_algorithm)
        self._stem_mode = options.stem_lookup
        self._fold = options.fold_accents
        self._max_phrase = min(options.max_phrase_len, self.index.max_phrase)
        self._min_length = options.min_length
        self._skip_identical = options.skip_identical
        self._stop: frozenset[str] = (
            builtin_function_words(language) if options.skip_function_words else frozenset()
        )
        self._memo: dict[str, frozenset[int]] = {}
        self._empty: frozenset[int] = frozenset()

    def synsets(self, token: str) -> frozenset[int]:
        """Synset numbers of one token, through its form, lemma and stem."""
        found = self._memo.get(token)
        if found is not None:
            return found
        if len(self._memo) > 500_000:
            self._memo.clear()
        result: set[int] = set()
        if len(token) >= self._min_length and token.lower() not in self._stop:
            index = self.index
            key = _key(token, self._fold)
            keys = [key]
            if self._lemmatize is not None:
                for base in lemma_chain(self._lemmatize, key):
                    base = _key(base, self._fold)
                    if base not in keys:
                        keys.append(base)
            for k in keys:
                result.update(index.words.get(k, ()))
                if self._lemma_index:
                    result.update(index.bases.get(k, ()))
            if self._stem is not None and (
                self._stem_mode == "always" or (self._stem_mode == "fallback" and not result)
            ):
                result.update(index.stems.get(self._stem(key), ()))
        found = self._memo[token] = frozenset(result) if result else self._empty
        return found

    def synonyms(self, word: str) -> list[str]:
        """One-word lemmas sharing a synset with ``word`` (for inspection and tests)."""
        wanted = self.synsets(word)
        return sorted(k for k, v in self.index.words.items() if wanted.intersection(v))

    def prepare(
        self, tokens: Sequence[str]
    ) -> tuple[Sequence[str], list[Unit], dict[int, list[tuple[int, int]]]]:
        units: list[Unit] = []
        for i, token in enumerate(tokens):
            syn = self.synsets(token)
            if syn:
                units.append((i, 1, syn))
        if self._max_phrase > 1:
            phrases = self.index.phrases
            keys = [_key(t, self._fold) for t in tokens]
            n = len(tokens)
            for length in range(2, self._max_phrase + 1):
                for i in range(n - length + 1):
                    ids = phrases.get(tuple(keys[i : i + length]))
                    if ids:
                        units.append((i, length, frozenset(ids)))
        units.sort(key=lambda unit: (unit[0], unit[1]))
        inverted: dict[int, list[tuple[int, int]]] = {}
        for start, length, syn in units:
            for s in syn:
                inverted.setdefault(s, []).append((start, length))
        return tokens, units, inverted

    def candidates(self, hyp: Any, ref: Any) -> Iterable[Span]:
        hyp_tokens: Sequence[str] = hyp[0]
        hyp_inverted: dict[int, list[tuple[int, int]]] = hyp[2]
        ref_tokens: Sequence[str] = ref[0]
        ref_units: list[Unit] = ref[1]
        skip = self._skip_identical
        k = 0
        while k < len(ref_units):
            j = ref_units[k][0]
            found: set[tuple[int, int, int]] = set()
            while k < len(ref_units) and ref_units[k][0] == j:
                _, ref_len, syn = ref_units[k]
                k += 1
                for s in syn:
                    for i, hyp_len in hyp_inverted.get(s, ()):
                        found.add((i, hyp_len, ref_len))
            for i, hyp_len, ref_len in sorted(found):
                same = tuple(hyp_tokens[i : i + hyp_len]) == tuple(ref_tokens[j : j + ref_len])
                if skip and same:
                    continue
                yield Span(i, hyp_len, j, ref_len)

    def describe(self) -> str:
        opts = self.options
        assert isinstance(opts, OmwOptions)
        parts = [f"omw-{self.code}:{short_checksum(self.sha256)}"]
        if self.lemma_code:
            parts.append(f"lemma=simplemma-{self.lemma_code}")
        if self._lemma_index:
            parts.append("lemma-index")
        if self.stem_algorithm:
            parts.append(f"stem={self._stem_mode}:{self.stem_algorithm}")
        if self._max_phrase > 1:
            parts.append(f"phrases<={opts.max_phrase_len}")
        if self._fold:
            parts.append("fold")
        if self._min_length > 1:
            parts.append(f"minlen={self._min_length}")
        if self._stop:
            parts.append("skip-fw")
        return f"{self.name}.v{self.version}({','.join(parts)})"

    def resources(self) -> dict[str, str]:
        return {f"omw-{self.code}": f"{self.path} ({self.origin})"}


@hookimpl
def meteorx_register_matchers(register: Callable[[type[Matcher]], None]) -> None:
    register(OmwSynonymMatcher)
