"""The Portuguese tokenizer: a line's characters unified (NFC, straight apostrophes),
cut into tokens (punctuation apart; URLs, e-mail addresses, numbers and hyphenated
compounds whole), clitics split, then, as the variant says, spellings unified,
contractions expanded and accents folded. One shared tokenizer per variant
``pt[-expand][-fold][-nospell]``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import cache
from itertools import product

from meteorx.languages import Language
from meteorx.registry import TokenizerFactory
from meteorx_plugins.portuguese.clitics import split_clitics
from meteorx_plugins.portuguese.contractions import contraction_table, expand_contraction
from meteorx_plugins.portuguese.spelling import fold_accents, spelling_table, unify_spelling

_TOKEN = r"""
      (?:https?://|www\.)[^\s]*[^\s.,;:!?)\]}'"]     # URL
    | [\w.+-]+@\w[\w-]*(?:\.\w[\w-]*)+                # e-mail
    | \d+(?:[.,:/]\d+)+                              # 1.000,50  12:30  1/2
    | \w+(?:['-]\w+)*                                # words, hyphenated compounds
    | \.{2,}                                         # ellipsis
    | [^\w\s]                                        # any other symbol
"""


@cache
def _token_pattern() -> re.Pattern[str]:
    return re.compile(_TOKEN, re.VERBOSE)


_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "ʼ": "'", "´": "'"})


class PortugueseTokenizer:
    """A configured Portuguese tokenizer (callable: line -> tokens)."""

    def __init__(self, *, expand: bool = False, fold: bool = False, spelling: bool = True) -> None:
        self.expand = expand
        self.fold = fold
        self.spelling = spelling
        self._memo: dict[str, list[str]] = {}
        self._finditer = _token_pattern().finditer
        # the tables this variant reads, built now rather than at the first line
        if spelling:
            spelling_table()
        if expand:
            contraction_table()

    @property
    def name(self) -> str:
        return variant_name(self.expand, self.fold, self.spelling)

    def _word(self, word: str) -> list[str]:
        cached = self._memo.get(word)
        if cached is not None:
            return cached
        pieces = split_clitics(word) if "-" in word else None
        if pieces is None:
            pieces = [word]
        out: list[str] = []
        for piece in pieces:
            if self.spelling:
                piece = unify_spelling(piece)
            expanded = expand_contraction(piece) if self.expand else None
            out.extend(expanded or [piece])
        if self.fold:
            out = [fold_accents(t) for t in out]
        if len(self._memo) > 200_000:
            self._memo.clear()
        self._memo[word] = out
        return out

    def __call__(self, line: str) -> list[str]:
        text = unicodedata.normalize("NFC", line).translate(_APOSTROPHES)
        tokens: list[str] = []
        for match in self._finditer(text):
            token = match.group()
            if token[0].isalpha():
                tokens.extend(self._word(token))
            elif self.fold and not token.isascii():
                tokens.append(fold_accents(token))
            else:
                tokens.append(token)
        return tokens


def variant_name(expand: bool, fold: bool, spelling: bool) -> str:
    """A variant's tokenizer name: ``pt[-expand][-fold][-nospell]``."""
    return (
        "pt"
        + ("-expand" if expand else "")
        + ("-fold" if fold else "")
        + ("" if spelling else "-nospell")
    )


def variants() -> list[tuple[bool, bool, bool]]:
    """Every variant's (expand, fold, spelling)."""
    return list(product((False, True), (False, True), (True, False)))


def tokenizer_names() -> list[str]:
    """Every registered variant: ``pt[-expand][-fold][-nospell]``."""
    return [variant_name(*variant) for variant in variants()]


@cache
def _tokenizer(expand: bool, fold: bool, spelling: bool) -> PortugueseTokenizer:
    return PortugueseTokenizer(expand=expand, fold=fold, spelling=spelling)


def tokenizer_factory(expand: bool, fold: bool, spelling: bool) -> TokenizerFactory:
    """The factory registered for a variant: every language gets its one shared tokenizer."""

    def make(language: Language) -> Callable[[str], list[str]]:
        return _tokenizer(expand, fold, spelling)

    return make
