"""The languages Meteor 1.5 can ``-norm`` and their rules: apostrophes and prefixes.

Only the languages the jar can normalise are accepted (English, Czech, French, German,
Russian, Spanish); for any other language the jar refuses ``-norm`` with "No normalizer
for language", and :func:`resolve_norm_language` (so :func:`language_rules`) raises
:class:`ValueError` likewise.

A language's rules are the arguments :func:`.tokenizer.tokens` takes for it
(:func:`language_rules`): which apostrophe rules apply (``en``, ``fr`` or ``other``),
and its *non-breaking prefixes* (``Mr.``, ``e.g.``...), the words whose final period is
not split off. The non-breaking prefix lists are the Moses lists. They are read at run
time from the ``sacremoses`` package (MIT) on first use of a language and then patched
to equal the lists bundled in ``meteor-1.5.jar`` exactly (see :data:`_PREFIX_PATCHES`).

This module imports the standard library only (and reads ``sacremoses``' data).
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Final, NamedTuple

__all__ = [
    "NBP_ANY",
    "NBP_NUMERIC_ONLY",
    "NORM_LANGUAGES",
    "java_tokens",
    "language_rules",
    "nonbreaking_prefixes",
    "parse_prefix_lines",
    "resolve_norm_language",
]

#: Delimiters of ``java.util.StringTokenizer`` (used by the jar to split tokens).
_TOKEN_DELIMS: Final = " \t\n\r\f"
#: The words of a line as ``StringTokenizer`` splits it (prefix files and tokens).
java_tokens: Final = re.compile(f"[^{_TOKEN_DELIMS}]+").findall

# --- languages -------------------------------------------------------------------------


class _Lang(NamedTuple):
    name: str  # the jar's language name (also the name of its prefix file)
    apostrophes: str  # "en", "fr" or "other"
    sacremoses_code: str | None  # None: the jar ships no prefixes for this language


_LANGS: Final[dict[str, _Lang]] = {
    "english": _Lang("english", "en", "en"),
    "czech": _Lang("czech", "other", None),  # the jar's czech.prefixes is empty
    "french": _Lang("french", "fr", "fr"),
    "german": _Lang("german", "other", "de"),
    "spanish": _Lang("spanish", "other", "es"),
    "russian": _Lang("russian", "other", "ru"),
}

#: Languages with a ``-norm`` normaliser in Meteor 1.5 (the jar's names).
NORM_LANGUAGES: Final[tuple[str, ...]] = tuple(_LANGS)

_ALIASES: Final[dict[str, str]] = {
    "en": "english",
    "cs": "czech",
    "cz": "czech",
    "fr": "french",
    "de": "german",
    "es": "spanish",
    "ru": "russian",
    **{name: name for name in _LANGS},
}

# Languages Meteor 1.5 knows but cannot normalise (it raises "No normalizer for
# language"); listed so the error message can say so instead of "unknown language".
_NO_NORMALIZER: Final = frozenset(
    {
        *("pt", "portuguese", "da", "danish", "ro", "romanian", "hu", "hungarian"),
        *("tr", "turkish", "fi", "finnish", "nl", "dutch", "it", "italian"),
        *("no", "norwegian", "se", "sv", "swedish", "ar-bw-red", "arabic-buckwalter-reduced"),
        *("xx", "other"),
    }
)


def resolve_norm_language(language: str) -> str:
    """Map an ISO code or English name (any case, ``en-US`` style allowed) to the jar's
    language name, raising ``ValueError`` where the jar has no ``-norm`` normaliser."""
    key = language.strip().lower()
    name = _ALIASES.get(key)
    if name is None and key not in _NO_NORMALIZER:
        # Region/script subtags do not matter to the normaliser: en-US, pt_BR, ...
        key = re.split(r"[-_]", key, maxsplit=1)[0]
        name = _ALIASES.get(key)
    if name is not None:
        return name
    supported = ", ".join(sorted({*_ALIASES}))
    if key in _NO_NORMALIZER:
        raise ValueError(
            f"Meteor 1.5 has no -norm normaliser for {language!r} (the jar fails with "
            f"'No normalizer for language'); pre-tokenise the text and score it without "
            f"normalisation. Normalisable languages: {supported}"
        )
    raise ValueError(f"unknown language {language!r}; normalisable languages: {supported}")


# --- non-breaking prefixes ------------------------------------------------------------

#: Kinds of non-breaking prefix, as in the Moses files.
NBP_ANY: Final = 1  # never ends a sentence
NBP_NUMERIC_ONLY: Final = 2  # "#NUMERIC_ONLY#": non-breaking only before a number

#: Differences between sacremoses' Moses lists and the older copies inside
#: meteor-1.5.jar: (entries to drop, entries to add). German and Spanish are identical;
#: Czech needs no entry because the jar's Czech list is empty (no sacremoses lookup).
_PREFIX_PATCHES: Final[dict[str, tuple[frozenset[str], dict[str, int]]]] = {
    # Newer Moses added month abbreviations and "Rs" (rupees).
    "english": (
        frozenset(
            {"Jan", "Feb", "Mar", "Apr", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec", "Rs"}
        ),
        {},
    ),
    # The jar's French list still has the single letter "a".
    "french": (frozenset(), {"a": NBP_ANY}),
    # Newer Moses added the 32 single upper-case letters А..Я.
    "russian": (frozenset(chr(c) for c in range(0x0410, 0x0430)), {}),
}

_PREFIX_TABLES: dict[str, dict[str, int]] = {}


def parse_prefix_lines(lines: Iterable[str]) -> dict[str, int]:
    """Parse Moses prefix-file lines the way the jar does (first whitespace-separated
    word; ``#`` starts a comment; ``#NUMERIC_ONLY#`` as second word marks the kind)."""
    table: dict[str, int] = {}
    for line in lines:
        words = java_tokens(line)
        if not words or words[0].startswith("#"):
            continue
        numeric = len(words) > 1 and words[1] == "#NUMERIC_ONLY#"
        table[words[0]] = NBP_NUMERIC_ONLY if numeric else NBP_ANY
    return table


def _sacremoses_prefix_lines(code: str) -> list[str]:
    """The lines of sacremoses' non-breaking prefix file for ``code``.

    Read straight from the installed package's data (a data module in recent releases,
    data files in older ones) without importing ``sacremoses`` itself, whose import
    pulls in its whole toolkit (about a second); failing that, through its API.
    """
    spec = importlib.util.find_spec("sacremoses")
    if spec is not None and spec.submodule_search_locations:
        folder = Path(spec.submodule_search_locations[0])
        module_file = folder / "_data_nonbreaking_prefixes.py"
        if module_file.is_file():
            loader_spec = importlib.util.spec_from_file_location(
                "meteorx._sacremoses_prefixes", module_file
            )
            if loader_spec is not None and loader_spec.loader is not None:
                module = importlib.util.module_from_spec(loader_spec)
                loader_spec.loader.exec_module(module)
                files = getattr(module, "NONBREAKING_PREFIXES", {})
                text = files.get(f"nonbreaking_prefix.{code}")
                if isinstance(text, str):
                    return text.splitlines()
        data_file = folder / "data" / "nonbreaking_prefixes" / f"nonbreaking_prefix.{code}"
        if data_file.is_file():
            return data_file.read_text(encoding="utf-8").splitlines()
    try:
        corpus = importlib.import_module("sacremoses.corpus")
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "meteorx needs the 'sacremoses' package for the Moses non-breaking "
            "prefix lists used by Meteor's -norm (pip install sacremoses)"
        ) from exc
    return list(corpus.NonbreakingPrefixes().words(code, ignore_lines_startswith="\0"))


def _load_prefix_table(name: str) -> dict[str, int]:
    """Build (once per language) the jar-equivalent prefix table from sacremoses."""
    code = _LANGS[name].sacremoses_code
    table: dict[str, int] = {}
    if code is not None:
        table = parse_prefix_lines(_sacremoses_prefix_lines(code))
        drop, add = _PREFIX_PATCHES.get(name, (frozenset(), {}))
        for word in drop:
            table.pop(word, None)
        table.update(add)
    _PREFIX_TABLES[name] = table
    return table


def nonbreaking_prefixes(language: str = "en") -> Mapping[str, int]:
    """The jar-equivalent non-breaking prefixes of a language: prefix -> 1 (always
    non-breaking) or 2 (non-breaking only before a number)."""
    name = resolve_norm_language(language)
    table = _PREFIX_TABLES.get(name)
    return MappingProxyType(table if table is not None else _load_prefix_table(name))


# --- a language's rules, as tokens() takes them --------------------------------------

_RESOLVED: dict[str, _Lang] = {}


def _lang_for(language: str) -> _Lang:
    lang = _RESOLVED.get(language)
    if lang is None:
        lang = _RESOLVED[language] = _LANGS[resolve_norm_language(language)]
    return lang


def language_rules(language: str) -> tuple[str, dict[str, int]]:
    """The apostrophe rules (``en``, ``fr`` or ``other``) and non-breaking prefixes of a
    language (ISO code or jar name), the arguments of :func:`.tokenizer.tokens` for it.
    Raises ``ValueError`` for languages the jar cannot normalise."""
    lang = _lang_for(language)
    prefixes = _PREFIX_TABLES.get(lang.name)
    if prefixes is None:
        prefixes = _load_prefix_table(lang.name)
    return lang.apostrophes, prefixes
