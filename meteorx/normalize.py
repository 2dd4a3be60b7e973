"""Text normalisation: raw line -> tokens, as the configuration says.

The tokenizer itself is a plugin (``whitespace``, ``meteor``, language-specific ones);
lowercasing and punctuation removal are applied here, the same way for all of them.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from functools import lru_cache

from meteorx.config import NormalizeConfig
from meteorx.languages import Language
from meteorx.registry import Registry


@lru_cache(maxsize=65536)
def is_punctuation(token: str) -> bool:
    """True when every character of the token is Unicode punctuation or a symbol."""
    return all(unicodedata.category(ch)[0] in "PS" for ch in token)


def build_normalizer(
    config: NormalizeConfig, language: Language, registry: Registry
) -> Callable[[str], list[str]]:
    """A function turning one line of text into the tokens METEOR compares."""
    tokenize = registry.tokenizer(config.tokenizer)(language)
    # A tokenizer that lowercases itself (Meteor's -norm) needs no second pass.
    lowercase = config.lowercase and not getattr(tokenize, "lowercased", False)
    drop_punct = config.punctuation == "drop"
    if not lowercase and not drop_punct:
        return tokenize
    if tokenize is str.split and not drop_punct:
        return lambda line: line.lower().split()

    def normalize(line: str) -> list[str]:
        tokens = tokenize(line)
        if lowercase:
            tokens = [t.lower() for t in tokens]
        if drop_punct:
            tokens = [t for t in tokens if not is_punctuation(t)]
        return tokens

    return normalize
