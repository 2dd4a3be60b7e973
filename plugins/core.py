"""The core plugin: exact and Snowball-stem matchers, the aligners, the whitespace and
character tokenizers, the presets and the languages' defaults (function-word sources
are the ``function_words`` plugin's)."""

from __future__ import annotations

import functools
import threading
import unicodedata
from collections.abc import Callable, Hashable
from importlib import resources
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from meteorx.align.meteor15 import Meteor15Aligner
from meteorx.align.optimal import OptimalAligner
from meteorx.errors import LanguageError, ResourceError
from meteorx.hookspecs import LanguageDefault, hookimpl
from meteorx.languages import Language
from meteorx.matchers import Matcher, SingleKeyMatcher
from meteorx.registry import AlignerFactory, TokenizerFactory

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

#: A word is linked to at most this many occurrences on the other side: the nearest
#: ones. Only pathological inputs (hundreds of repeats of one word) reach it; it keeps
#: candidate lists, and so every search, linear in the input instead of quadratic.
MAX_LINKS_PER_WORD = 48


class ExactMatcher(SingleKeyMatcher):
    """Links identical tokens."""

    name = "exact"
    is_exact = True
    link_identical = True
    max_links = MAX_LINKS_PER_WORD

    def key(self, word: str) -> str:
        return word

    def single_keys(self, words: list[str]) -> list[Hashable]:
        return list(words)


class StemOptions(BaseModel):
    """Options of the ``stem`` matcher."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    algorithm: str | None = Field(
        None, description="Snowball algorithm (default: the configured language's)"
    )
    skip_identical: bool = Field(
        True,
        description="only link *different* words with equal stems (identical words are "
        "the exact stage's job, as in Meteor 1.5)",
    )


def snowball_stemmer(algorithm: str) -> Callable[[str], str]:
    """A Snowball stem function; PyStemmer (C) when installed, else snowballstemmer.

    Safe to call from several threads at once: a stemmer object of either library
    keeps the word being stemmed in itself and must not be called concurrently, so
    the calls take turns on a lock (callers cache stems: few words reach it).
    """
    stem_word = _snowball_stem_word(algorithm)
    lock = threading.Lock()

    def stem(word: str) -> str:
        with lock:
            return stem_word(word)

    return stem


def _snowball_stem_word(algorithm: str) -> Callable[[str], str]:
    """A Snowball stemmer object's ``stemWord`` (not thread-safe)."""
    try:
        import Stemmer

        # No PyStemmer-side cache (size 0): callers keep their own, and PyStemmer's
        # cache bookkeeping makes each call about 3x slower than stemming itself.
        return Stemmer.Stemmer(algorithm, 0).stemWord  # type: ignore[no-any-return]
    except ImportError:
        pass
    except KeyError as error:
        raise LanguageError(f"Snowball has no stemmer {algorithm!r}") from error
    import snowballstemmer

    try:
        return snowballstemmer.stemmer(algorithm).stemWord  # type: ignore[no-any-return]
    except KeyError as error:
        raise LanguageError(f"Snowball has no stemmer {algorithm!r}") from error


class StemMatcher(SingleKeyMatcher[StemOptions]):
    """Links words with the same Snowball stem."""

    name = "stem"
    Options = StemOptions
    max_links = MAX_LINKS_PER_WORD

    def __init__(self, options: StemOptions, language: Language) -> None:
        super().__init__(options, language)
        algorithm = options.algorithm or language.snowball
        if algorithm is None:
            raise LanguageError(
                f"no Snowball stemmer for {language.name} ({language.code}); remove the "
                "stem stage or set its 'algorithm:' option"
            )
        self.algorithm = algorithm
        self._stem_word = snowball_stemmer(algorithm)
        self._cache: dict[str, str] = {}
        self.link_identical = not options.skip_identical

    def key(self, word: str) -> str:
        return self.stem(word)

    def single_keys(self, words: list[str]) -> list[Hashable]:
        cache = self._cache
        if len(cache) > 100_000:
            cache.clear()
        stem_word = self._stem_word
        return [cache.get(w) or cache.setdefault(w, stem_word(w)) for w in words]

    def stem(self, word: str) -> str:
        stem = self._cache.get(word)
        if stem is None:
            if len(self._cache) > 100_000:
                self._cache.clear()
            stem = self._cache[word] = self._stem_word(word)
        return stem

    def describe(self) -> str:
        return f"{self.name}.v{self.version}(snowball-{self.algorithm})"


@hookimpl
def meteorx_register_matchers(register: Callable[[type[Matcher]], None]) -> None:
    register(ExactMatcher)
    register(StemMatcher)


@hookimpl
def meteorx_register_aligners(register: Callable[[str, AlignerFactory], None]) -> None:
    register("optimal", OptimalAligner)
    register("meteor-1.5", Meteor15Aligner)


@hookimpl
def meteorx_register_presets(register: Callable[[Traversable], None]) -> None:
    register(resources.files("meteorx.configs"))  # configs/ in the source tree


@hookimpl
def meteorx_register_language_defaults(register: Callable[[str, LanguageDefault], None]) -> None:
    """``--lang L`` alone: English is scored as Meteor 1.5's README recommends for raw MT
    output (``meteor-1.5-en`` with the jar's ``-norm``); every other language with the
    ``meteorx`` preset resolved for it, which needs no downloaded resource (the same
    numbers on every machine). A plugin may register its own default for a language."""
    register("en", LanguageDefault("meteor-1.5-en", normalize="meteor"))
    register("*", LanguageDefault("meteorx"))


def _whitespace(language: Language) -> Callable[[str], list[str]]:
    return str.split


# Scripts written without spaces between words: each character is a token (Han, kana
# and half-width kana, Thai, Lao, Tibetan, Khmer, Myanmar), with the combining marks
# that belong to it: an extended grapheme cluster (Unicode UAX #29, the ``regex``
# module's ``\X``) and any further marks UAX #29 leaves outside it (Myanmar's tall AA),
# so that Thai "กิน" is "กิ" "น", not a vowel sign on its own. Other runs of non-space
# characters stay whole.
_SPACELESS = (
    "\u0e00-\u0fff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u31f0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff61-\uff9f\U00020000-\U0002fa1f"
)


@functools.cache
def _char_tokens() -> Callable[[str], list[str]]:
    """The tokens of a line of such scripts (``regex`` is imported on first use only:
    other languages do not pay for it at start-up)."""
    import regex

    findall: Callable[[str], list[str]] = regex.compile(
        f"(?=[{_SPACELESS}])\\X\\p{{M}}*|[^\\s{_SPACELESS}]+"
    ).findall
    return findall


def _characters(language: Language) -> Callable[[str], list[str]]:
    findall = _char_tokens()

    def tokenize(line: str) -> list[str]:
        return findall(line)

    tokenize.description = "characters"  # type: ignore[attr-defined]  # for the signature
    return tokenize


def _auto(language: Language) -> Callable[[str], list[str]]:
    """Whitespace tokens, or characters for languages written without spaces."""
    return _characters(language) if language.spaceless else str.split


def _is_punct(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "PS"


def _split_punct_token(token: str, out: list[str]) -> None:
    """Peel a token's leading and trailing punctuation and symbols (Unicode P*, S*),
    one character each; combining marks (M*) stay with their letters."""
    start, end = 0, len(token)
    while start < end and _is_punct(token[start]):
        start += 1
    while end > start and _is_punct(token[end - 1]):
        end -= 1
    out.extend(token[:start])
    if start < end:
        out.append(token[start:end])
    out.extend(token[end:])


def _split_punct(language: Language) -> Callable[[str], list[str]]:
    """Whitespace tokens with punctuation split off their edges ("casa," -> "casa", ","),
    inner punctuation kept ("l'homme", "e-mail", "3.5"); characters for languages
    written without spaces. A script-independent stand-in for Meteor's ``-norm``."""
    split = _char_tokens() if language.spaceless else str.split

    def tokenize(line: str) -> list[str]:
        out: list[str] = []
        for token in split(line):
            if token.isalnum():
                out.append(token)
            else:
                _split_punct_token(token, out)
        return out

    if language.spaceless:
        tokenize.description = "characters"  # type: ignore[attr-defined]
    return tokenize


def _jieba(language: Language) -> Callable[[str], list[str]]:
    """Chinese word segmentation with jieba (optional: pip install jieba)."""
    try:
        import jieba  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        raise ResourceError(
            "tokenizer 'jieba' needs the jieba package: pip install jieba"
        ) from None

    def tokenize(line: str) -> list[str]:
        return [t for t in jieba.lcut(line) if not t.isspace()]

    return tokenize


@hookimpl
def meteorx_register_tokenizers(register: Callable[[str, TokenizerFactory], None]) -> None:
    register("auto", _auto)
    register("whitespace", _whitespace)
    register("characters", _characters)
    register("split-punct", _split_punct)
    register("jieba", _jieba)
