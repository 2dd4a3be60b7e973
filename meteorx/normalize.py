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

from meteorx.config_models import NormalizeConfig
from meteorx.error_text import describe_error
from meteorx.errors import MeteorxError, PluginError
from meteorx.languages import Language
from meteorx.registry import Registry


@lru_cache(maxsize=65536)
def is_punctuation(token: str) -> bool:
    """True when every character of the token is Unicode punctuation or a symbol."""
    return all(unicodedata.category(ch)[0] in "PS" for ch in token)


def tokenizer_description(registry: Registry, name: str, language: Language) -> str | None:
    """How tokenizer ``name`` splits ``language`` when its name does not say so (its
    ``description``: "characters" for text written without spaces), else None."""
    description = getattr(registry.tokenizer(name)(language), "description", None)
    return description if description and description != name else None


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


def _checked(
    tokenizer: Callable[[str], list[str]], name: str, owner: str
) -> Callable[[str], list[str]]:
    """The tokenizer with its output checked (a list of strings): a plugin's failure is
    a PluginError naming it, not an obscure error further on."""

    def checked(line: str) -> list[str]:
        try:
            tokens = tokenizer(line)
            if type(tokens) is not list:
                tokens = list(tokens)
            "".join(tokens)  # TypeError unless every token is a string
        except MeteorxError:
            raise
        except Exception as error:
            raise PluginError(
                f"tokenizer {name!r} (plugin {owner!r}) failed: {describe_error(error)}"
            ) from error
        return tokens

    return checked


def build_normalizer(
    config: NormalizeConfig, language: Language, registry: Registry
) -> Callable[[str], list[str]]:
    """A function turning one line of text into the tokens METEOR compares."""
    made = registry.tokenizer(config.tokenizer)(language)
    if made is str.split or registry.shipped("tokenizer", config.tokenizer):
        tokenizer = made  # (meteorx's own tokenizers return lists of strings)
    else:
        owner = registry.owners.get(f"tokenizer:{config.tokenizer}", "?")
        tokenizer = _checked(made, config.tokenizer, owner)
    to_form = unicode_form(config)
    tokenize = tokenizer if to_form is None else lambda line: tokenizer(to_form(line))
    # A tokenizer that lowercases itself (Meteor's -norm) needs no second pass.
    lowercase = config.lowercase and not getattr(made, "lowercased", False)
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
