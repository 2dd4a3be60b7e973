"""Text normalisation: raw line -> tokens, as the configuration says.

The tokenizer itself is a plugin (``whitespace``, ``meteor``, language-specific ones);
Unicode normalisation (before it), lowercasing and punctuation removal (after it) are
applied here, the same way for all of them.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from functools import lru_cache
from typing import Literal

from meteorx.config import NormalizeConfig
from meteorx.languages import Language
from meteorx.registry import Registry


@lru_cache(maxsize=65536)
def is_punctuation(token: str) -> bool:
    """True when every character of the token is Unicode punctuation or a symbol."""
    return all(unicodedata.category(ch)[0] in "PS" for ch in token)


def unicode_form(config: NormalizeConfig) -> Callable[[str], str] | None:
    """The configured Unicode normalisation of a string, or None for ``unicode: none``.

    ASCII text is its own normal form in every form, so it is returned untouched.
    """
    if config.unicode == "none":
        return None
    form: Literal["NFC", "NFKC"] = "NFC" if config.unicode == "nfc" else "NFKC"
    normalize = unicodedata.normalize

    def to_form(text: str) -> str:
        return text if text.isascii() else normalize(form, text)

    return to_form


def build_normalizer(
    config: NormalizeConfig, language: Language, registry: Registry
) -> Callable[[str], list[str]]:
    """A function turning one line of text into the tokens METEOR compares."""
    tokenizer = registry.tokenizer(config.tokenizer)(language)
    to_form = unicode_form(config)
    tokenize = tokenizer if to_form is None else lambda line: tokenizer(to_form(line))
    # A tokenizer that lowercases itself (Meteor's -norm) needs no second pass.
    lowercase = config.lowercase and not getattr(tokenizer, "lowercased", False)
    drop_punct = config.punctuation == "drop"
    if not lowercase and not drop_punct:
        return tokenize
    if tokenizer is str.split and not drop_punct:
        if to_form is None:
            return lambda line: line.lower().split()
        return lambda line: to_form(line).lower().split()

    def normalize(line: str) -> list[str]:
        tokens = tokenize(line)
        if lowercase:
            tokens = [t.lower() for t in tokens]
        if drop_punct:
            tokens = [t for t in tokens if not is_punctuation(t)]
        return tokens

    return normalize
