"""The ``synonym-omw`` matcher: different words or phrases sharing an OMW synset,
looked up through their base forms (see the package docstring)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from meteorx.errors import LanguageError
from meteorx.languages import Language
from meteorx.matchers import Matcher
from meteorx.resources import sha256_file, short_checksum
from meteorx.types import Span
from meteorx_plugins.core import snowball_stemmer
from meteorx_plugins.lemma import builtin_function_words, lemma_chain, lemmatizer, simplemma_code
from meteorx_plugins.omw.index import index_key, load_index
from meteorx_plugins.omw.tabfile import OMW_CODES, OMW_ENV, find_omw_file, omw_code


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


class OmwSynonymMatcher(Matcher[OmwOptions]):
    """Links different words or phrases sharing an OMW synset, through base forms."""

    name = "synonym-omw"
    Options = OmwOptions

    def __init__(self, options: OmwOptions, language: Language) -> None:
        super().__init__(options, language)
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
            key = index_key(token, self._fold)
            keys = [key]
            if self._lemmatize is not None:
                for base in lemma_chain(self._lemmatize, key):
                    base = index_key(base, self._fold)
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
            keys = [index_key(t, self._fold) for t in tokens]
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
