"""The ``lemma`` plugin: a matcher linking different words that share a lemma.

Lemmas come from `simplemma <https://github.com/adbar/simplemma>`_ (dictionary lookup
plus its rule and affix strategies), so the matcher works for every language simplemma
has data for (about 50: pt, es, fr, de, it, nl, pl, ru, …). Use it between the ``stem``
and the synonym stages::

    stages:
    - matcher: exact
    - matcher: stem
      weight: 0.6
    - matcher: lemma
      weight: 0.6

Stems and lemmas overlap but neither contains the other: Snowball gives "cheg" to both
*chegou* and *chegaram* (so does simplemma: *chegar*), but only the lemma links
irregular forms (*foi* ~ *era*: *ser*; *fez* ~ *fizeram*: *fazer*) and only the stem
links derivations (*nacional* ~ *nação*).

Loading speed. simplemma stores each language's dictionary LZMA-compressed and
front-coded; decoding the Portuguese one takes seconds. The first use compiles it into
a flat sorted table in the meteorx user cache (a data-only, checksummed file, see
:mod:`meteorx.cache`), keyed by the simplemma version and the data file's size and
modification time, which later runs load in milliseconds; lookups are a binary search.
Results are identical to ``simplemma.lemmatize``.
"""

from __future__ import annotations

import importlib.metadata
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import cache
from itertools import accumulate
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from meteorx.cache import Record, cached
from meteorx.errors import LanguageError
from meteorx.hookspecs import hookimpl
from meteorx.languages import Language
from meteorx.matchers import Matcher, SingleKeyMatcher

__all__ = [
    "LemmaMatcher",
    "LemmaOptions",
    "builtin_function_words",
    "lemma_chain",
    "lemmatizer",
    "simplemma_code",
    "simplemma_languages",
    "simplemma_version",
]

#: meteorx language codes whose simplemma data has another name.
_SIMPLEMMA_ALIASES: dict[str, str] = {
    "no": "nb",  # Norwegian: Bokmål data
    "hr": "hbs",  # Serbo-Croatian data serves Croatian, Serbian, Bosnian
    "sr": "hbs",
    "bs": "hbs",
}
_FORMAT = "simplemma-flat-v2"
_SECTIONS = ("keys", "key_offsets", "value_ids", "lemmas", "lemma_offsets")


def _data_folder() -> Path | None:
    try:
        from simplemma.strategies.dictionaries import dictionary_factory
    except ImportError:  # pragma: no cover - simplemma not installed
        return None
    folder = getattr(dictionary_factory, "DATA_FOLDER", None)
    return Path(folder) if folder is not None else None


@cache
def simplemma_languages() -> frozenset[str]:
    """Language codes simplemma has dictionaries for (empty if it is not installed)."""
    folder = _data_folder()
    if folder is None or not folder.is_dir():
        return frozenset()
    return frozenset(p.name.split(".")[0] for p in folder.glob("*.plzma"))


def simplemma_code(language: Language | str) -> str | None:
    """simplemma's code for a meteorx language, or ``None`` if it has no data for it."""
    code = language.code if isinstance(language, Language) else language
    code = _SIMPLEMMA_ALIASES.get(code, code)
    return code if code in simplemma_languages() else None


@cache
def simplemma_version() -> str:
    """The installed simplemma's version (part of signatures and cache keys); read once,
    as a signature asks for it on every corpus."""
    try:
        return importlib.metadata.version("simplemma")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover
        return "unknown"


@cache
def builtin_function_words(language: Language) -> frozenset[str]:
    """The language's ``function_words: builtin`` list (meteorx's own, else a stop-word
    package's), lowercased: the words ``skip_function_words`` keeps out.

    :raises ResourceError: when no source has a list for the language.
    """
    from meteorx_plugins.function_words import builtin_function_words as builtin

    return frozenset(word.lower() for word in builtin(language)[0])


class FlatDictionary(Mapping[str, str]):
    """A read-only ``str -> str`` map over sorted UTF-8 keys (binary search).

    Built once from simplemma's own dictionary and cached as five byte strings, so
    loading is a file read instead of seconds of decompression.
    """

    __slots__ = ("_key_offsets", "_keys", "_lemma_offsets", "_lemmas", "_n", "_value_ids")

    def __init__(self, state: Sequence[bytes | memoryview]) -> None:
        """``state``: what :meth:`compile` returns (the arrays may be any buffers)."""
        keys, key_offsets, value_ids, lemmas, lemma_offsets = state
        self._keys = bytes(keys)
        self._key_offsets = array("Q")
        self._key_offsets.frombytes(key_offsets)
        self._value_ids = array("Q")
        self._value_ids.frombytes(value_ids)
        self._lemmas = bytes(lemmas)
        self._lemma_offsets = array("Q")
        self._lemma_offsets.frombytes(lemma_offsets)
        self._n = len(self._value_ids)

    @staticmethod
    def compile(
        items: Iterable[tuple[str, str]] | Mapping[bytes, bytes],
    ) -> tuple[bytes, bytes, bytes, bytes, bytes]:
        """The state (five byte strings) of a table holding ``items``: (key, lemma) pairs,
        or a ``bytes -> bytes`` mapping of UTF-8 keys to UTF-8 lemmas (no decoding)."""
        if isinstance(items, Mapping):
            raw = items
        else:
            raw = {k.encode("utf-8", "surrogatepass"): v.encode("utf-8") for k, v in items}
        sorted_keys = sorted(raw)
        key_offsets = array("Q", [0])
        key_offsets.extend(accumulate(map(len, sorted_keys)))
        lemma_ids: dict[bytes, int] = {}
        value_ids = array("Q", [lemma_ids.setdefault(raw[k], len(lemma_ids)) for k in sorted_keys])
        lemma_offsets = array("Q", [0])
        lemma_offsets.extend(accumulate(map(len, lemma_ids)))  # insertion order = id order
        return (
            b"".join(sorted_keys),
            key_offsets.tobytes(),
            value_ids.tobytes(),
            b"".join(lemma_ids),
            lemma_offsets.tobytes(),
        )

    def _index(self, target: bytes) -> int:
        keys = self._keys
        offsets = self._key_offsets
        lo, hi = 0, self._n
        while lo < hi:
            mid = (lo + hi) >> 1
            if keys[offsets[mid] : offsets[mid + 1]] < target:
                lo = mid + 1
            else:
                hi = mid
        if lo < self._n and keys[offsets[lo] : offsets[lo + 1]] == target:
            return lo
        return -1

    def _value(self, index: int) -> str:
        vid = self._value_ids[index]
        offsets = self._lemma_offsets
        return self._lemmas[offsets[vid] : offsets[vid + 1]].decode("utf-8")

    def get(self, key: str, default: Any = None) -> Any:
        index = self._index(key.encode("utf-8", "surrogatepass"))
        return default if index < 0 else self._value(index)

    def __getitem__(self, key: str) -> str:
        index = self._index(key.encode("utf-8", "surrogatepass"))
        if index < 0:
            raise KeyError(key)
        return self._value(index)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._index(key.encode("utf-8", "surrogatepass")) >= 0

    def __iter__(self) -> Iterator[str]:
        keys = self._keys
        offsets = self._key_offsets
        for i in range(self._n):
            yield keys[offsets[i] : offsets[i + 1]].decode("utf-8")

    def __len__(self) -> int:
        return self._n


def _cache_key(code: str) -> str:
    folder = _data_folder()
    stamp = ""
    if folder is not None:
        data = folder / f"{code}.plzma"
        if data.is_file():
            stat = data.stat()
            stamp = f"-{stat.st_size}-{stat.st_mtime_ns}"
    return f"{code}-{simplemma_version()}{stamp}"


def _build_record(code: str) -> Record:
    from simplemma.strategies.dictionaries import DefaultDictionaryFactory

    # A private factory, so the decoded dictionary is freed once compiled.
    mapping = DefaultDictionaryFactory(cache_max_size=1).get_dictionary(code)
    # simplemma keeps UTF-8 bytes behind its str mapping: compiling from them skips
    # decoding and re-encoding millions of entries (Swahili: 4.9M, 15 s -> a few s).
    raw = getattr(mapping, "_dict", None)
    if isinstance(raw, dict) and all(isinstance(x, bytes) for x in next(iter(raw.items()), ())):
        state = FlatDictionary.compile(raw)
    else:
        state = FlatDictionary.compile(mapping.items())
    return Record(sections=dict(zip(_SECTIONS, state, strict=True)))


def _decode(record: Record) -> FlatDictionary:
    return FlatDictionary([memoryview(record.sections[name]) for name in _SECTIONS])


class _FlatFactory:
    """A simplemma ``DictionaryFactory`` serving :class:`FlatDictionary` tables."""

    def __init__(self) -> None:
        self._tables: dict[str, Mapping[str, str]] = {}

    def get_dictionary(self, lang: str) -> Mapping[str, str]:
        table = self._tables.get(lang)
        if table is None:
            flat, _, _ = cached(_FORMAT, _cache_key(lang), lambda: _build_record(lang), _decode)
            table = self._tables[lang] = flat
        return table


_FACTORY = _FlatFactory()


@cache
def lemmatizer(code: str, greedy: bool = False) -> Callable[[str], str]:
    """``simplemma.lemmatize(token, lang=code, greedy=greedy)``, with fast loading.

    Memoised per word; safe to call for any token (empty strings are returned as is).
    """
    if code not in simplemma_languages():
        raise LanguageError(f"simplemma has no data for language {code!r}")
    from simplemma import Lemmatizer
    from simplemma.strategies import DefaultStrategy

    try:
        strategy = DefaultStrategy(greedy=greedy, dictionary_factory=_FACTORY)
        lemmatize = Lemmatizer(lemmatization_strategy=strategy).lemmatize
    except TypeError:  # pragma: no cover - an older simplemma without factories
        import simplemma

        def lemmatize(token: str, lang: str | tuple[str, ...]) -> str:
            return simplemma.lemmatize(token, lang=lang, greedy=greedy)

    memo: dict[str, str] = {}

    def lemma(token: str) -> str:
        result = memo.get(token)
        if result is None:
            if len(memo) > 500_000:
                memo.clear()
            result = memo[token] = lemmatize(token, code) if token else token
        return result

    return lemma


def lemma_chain(lemma: Callable[[str], str], token: str, steps: int = 3) -> list[str]:
    """Lemmas of ``token``, re-lemmatised until stable (at most ``steps``), lowercased.

    simplemma's tables are not always idempotent: Portuguese "lindas" -> "linda" ->
    "lindo". Following the chain puts every form of a word on the same final lemma.
    """
    chain: list[str] = []
    seen = {token.lower()}
    current = token
    for _ in range(steps):
        nxt = lemma(current).lower()
        if nxt in seen:
            break
        seen.add(nxt)
        chain.append(nxt)
        current = nxt
    return chain


class LemmaOptions(BaseModel):
    """Options of the ``lemma`` matcher."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    lang: str | None = Field(
        None, description="simplemma language code (default: the configured language's)"
    )
    greedy: bool = Field(
        False, description="simplemma's greedy mode (more aggressive, for noisy text)"
    )
    skip_function_words: bool = Field(
        False,
        description="link a function word of meteorx's built-in list for the language only "
        "to the same word in another case, never through its lemma (keeps Portuguese "
        "articles o/a/os/as, or do/da/no/na, from linking to each other)",
    )
    skip_identical: bool = Field(
        True, description="only link *different* words (identical ones are the exact stage's)"
    )


class LemmaMatcher(SingleKeyMatcher[LemmaOptions]):
    """Links words with the same simplemma lemma (compared case-insensitively).

    The lemma is followed to a fixed point (see :func:`lemma_chain`), so "lindas",
    "linda", "lindos" and "lindo" all share the lemma "lindo".
    """

    name = "lemma"
    Options = LemmaOptions

    def __init__(self, options: LemmaOptions, language: Language) -> None:
        super().__init__(options, language)
        code = options.lang or simplemma_code(language)
        if code is None or code not in simplemma_languages():
            known = " ".join(sorted(simplemma_languages())) or "(simplemma is not installed)"
            raise LanguageError(
                f"the lemma matcher has no lemmatiser for {language.name} "
                f"({options.lang or language.code}); simplemma languages: {known}"
            )
        self.code = code
        self.greedy = options.greedy
        self._lemma = lemmatizer(code, options.greedy)
        self.link_identical = not options.skip_identical
        self._stop: frozenset[str] = (
            builtin_function_words(language) if options.skip_function_words else frozenset()
        )
        self._memo: dict[str, str] = {}

    def lemma(self, token: str) -> str:
        """The lemma key of one token (lowercased)."""
        key = self._memo.get(token)
        if key is None:
            if len(self._memo) > 500_000:
                self._memo.clear()
            lower = token.lower()
            if lower in self._stop:
                # A function word links only to its own form in another case.
                key = "\0" + lower
            else:
                chain = lemma_chain(self._lemma, token)
                key = chain[-1] if chain else lower
            self._memo[token] = key
        return key

    def key(self, word: str) -> str:
        return self.lemma(word)

    def describe(self) -> str:
        greedy = "-greedy" if self.greedy else ""
        skip = ",skip-fw" if self._stop else ""
        version = simplemma_version()
        return f"{self.name}.v{self.version}(simplemma-{version}-{self.code}{greedy}{skip})"

    def resources(self) -> dict[str, str]:
        return {f"simplemma-{self.code}": f"simplemma {simplemma_version()} (package data)"}


@hookimpl
def meteorx_register_matchers(register: Callable[[type[Matcher]], None]) -> None:
    register(LemmaMatcher)
