"""Meteor 1.5's ``-norm`` (and ``-norm -noPunct``) preprocessing, reproduced in Python.

Meteor 1.5 tokenises each segment Moses-style before aligning it: punctuation is split
off, runs of dots, commas, quotes, dashes and apostrophes are normalised, a trailing
period is split from a word unless the word is a *non-breaking prefix* of the language
(``Mr.``, ``e.g.``...), and finally the line is lower-cased. Scores are only comparable
with the jar's if the tokens are identical, so this module reproduces the jar's
behaviour step by step, quirks included (for example ``U.S.`` becomes ``us`` and a
hyphen between two letters or digits is dropped: ``well-known`` -> ``well known``).

Character classes follow Java's regex semantics, not Python's: ``\\s`` is ASCII
whitespace only, digits are ``[0-9]`` and "lower case" is ``[a-z]``; the "letters" are
the fixed ranges the jar uses (Latin-1, Latin Extended-A, Cyrillic, phonetic
extensions), so e.g. Greek or CJK characters count as punctuation.

Only the languages the jar can normalise are accepted (English, Czech, French, German,
Russian, Spanish); for any other language the jar refuses ``-norm`` with "No normalizer
for language", and :func:`normalize_meteor` raises :class:`ValueError` likewise.

This module is the definition, in plain Python (:func:`normalize_meteor`; :func:`tokens`
is the part the compiled twin ``_native.pyx`` repeats as scans over code points, 5-6x
faster; tests check the two agree). It imports the standard library only: the plugin
(``__init__``) builds tokenizers from it and chooses the engine.

The non-breaking prefix lists are the Moses lists. They are read at run time from the
``sacremoses`` package (MIT) on first use of a language and then patched to equal the
lists bundled in ``meteor-1.5.jar`` exactly (see :data:`_PREFIX_PATCHES`).
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Final, NamedTuple

__all__ = [
    "NORM_LANGUAGES",
    "language_rules",
    "nonbreaking_prefixes",
    "normalize_meteor",
    "parse_prefix_lines",
    "resolve_norm_language",
    "tokens",
]

# --- character classes (the jar's own ranges, so results match it exactly) -----------

#: Letters as the jar defines them (Basic Latin, Latin-1, Latin Extended-A, Cyrillic,
#: Cyrillic Supplement and Extended-B, phonetic extensions).
_ALPHA: Final = (
    "A-Za-z\u0160\u017d\u0161\u017e\u0178\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u017e"
    "\u0400-\u04ff\u0500-\u0527\ua640-\ua66e\ua67e-\ua697\u1d00-\u1d7f"
)
_ALNUM: Final = "0-9" + _ALPHA
#: Java's ``\s`` without UNICODE_CHARACTER_CLASS (Python's ``\s`` is Unicode-wide).
_JAVA_SPACE: Final = " \\t\\n\\x0b\\f\\r"
#: Delimiters of ``java.util.StringTokenizer`` (used by the jar to split tokens).
_TOKEN_DELIMS: Final = " \t\n\r\f"
#: Characters removed by Java's ``String.trim()``.
_JAVA_TRIM: Final = "".join(chr(c) for c in range(0x21))

# --- regexes, compiled once ------------------------------------------------------------

# Every character that is not a letter/digit, Java whitespace, or one of . ' ` , - ‘ ’
# becomes a token of its own.
_SEP_OTHER: Final = re.compile(f"[^{_ALNUM}{_JAVA_SPACE}.'`,\\-\u2018\u2019]")
_MULTI_DOT: Final = re.compile(r"\.(\.+)")
_MULTI_DOT_STEP: Final = re.compile(r"DOTMULTI\.([^.])")
# The jar's comma, dash and apostrophe rules are passes of the form "X<c>Y -> X<new>Y"
# that consume X and Y, so a match can block a second one when two <c> are at most two
# characters apart ("a,b,c" -> "a , b,c"). Each rule therefore comes twice: a fast form
# that starts with the literal character and only looks around it (used when no two
# such characters are that close: then both forms give the same result), and the
# consuming form used otherwise.
_Pass = tuple[re.Pattern[str], str, re.Pattern[str], str]


def _rule(c: str, before: str, after: str, new: str) -> _Pass:
    """Build the (fast, fast replacement, consuming, consuming replacement) forms of the
    rule ``[before]c[after] -> [before]new[after]`` (``before``/``after`` are class
    bodies, ``^``-negated or not)."""
    fast = re.compile(f"{re.escape(c)}(?<=[{before}]{re.escape(c)})(?=[{after}])")
    slow = re.compile(f"([{before}]){re.escape(c)}([{after}])")
    return fast, new, slow, "\\1" + new.replace("\\", "\\\\") + "\\2"


def _close_pair(c: str) -> re.Pattern[str]:
    """Matches two occurrences of ``c`` at most two characters apart."""
    return re.compile(f"{re.escape(c)}.?{re.escape(c)}", re.DOTALL)


# Commas are split off unless between two digits (1,000).
_COMMA_RULES: Final = (
    _rule(",", "^0-9", "^0-9", " , "),
    _rule(",", "0-9", "^0-9", " , "),
    _rule(",", "^0-9", "0-9", " , "),
)
_CLOSE_COMMAS: Final = _close_pair(",").search
_DOUBLE_QUOTE: Final = re.compile("[\u201c\u201d]|''")
# A hyphen between two letters/digits (or after a period) is replaced by a space.
_DASH_RULES: Final = (_rule("-", f"{_ALNUM}.", _ALNUM, " "),)
_CLOSE_DASHES: Final = _close_pair("-").search
# Apostrophes, English rules: split off everywhere, but keep it on the following
# letters between two letters ("don't" -> "don 't") and in "1990's" -> "1990 's".
_APOS_EN: Final = (
    _rule("'", f"^{_ALPHA}", f"^{_ALPHA}", " ' "),
    _rule("'", f"^{_ALPHA}0-9", _ALPHA, " ' "),
    _rule("'", _ALPHA, f"^{_ALPHA}", " ' "),
    _rule("'", _ALPHA, _ALPHA, " '"),
    _rule("'", "0-9", "s", " '"),
)
# French rules: between two letters the apostrophe stays on the left ("l'homme" ->
# "l' homme").
_APOS_FR: Final = (
    _rule("'", f"^{_ALPHA}", f"^{_ALPHA}", " ' "),
    _rule("'", f"^{_ALPHA}", _ALPHA, " ' "),
    _rule("'", _ALPHA, f"^{_ALPHA}", " ' "),
    _rule("'", _ALPHA, _ALPHA, "' "),
)
_CLOSE_APOS: Final = _close_pair("'").search
_HAS_ALPHA: Final = re.compile(f"[{_ALPHA}]").search
_ALNUM_RUNS: Final = re.compile(f"[{_ALNUM}]+").findall
# Whitespace the jar collapses to a single space at the end (space, NBSP, U+2000-200A,
# U+202F, U+205F, U+3000).
_JAVA_WHITE: Final = re.compile("[ \u00a0\u2000-\u200a\u202f\u205f\u3000]+")
_FIND_TOKENS: Final = re.compile(f"[^{_TOKEN_DELIMS}]+").findall
# Characters for which Python's str.split()/str.strip() differ from the jar's
# StringTokenizer/trim(). Lines without them take the faster str.split() path.
_SPLIT_UNSAFE: Final = re.compile(
    "[\x00-\x08\x0b\x0e-\x1f\x85\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"
).search
# ASCII fast paths (bytes.translate runs in C): the ASCII characters _SEP_OTHER leaves
# alone (minus \x0b, so that a line passing this check needs no exact-split handling),
# and the table mapping every ASCII character that is not a letter/digit to a space.
_ASCII_NO_SEP: Final = (
    b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz \t\n\f\r.'`,-"
)
_ASCII_PUNCT_TO_SPACE: Final = bytes(
    c if chr(c).isascii() and chr(c).isalnum() else 0x20 for c in range(256)
)
# Backquote and single curly quotes become "'", the en dash becomes "-" (the jar does
# these as separate passes; they commute because they touch disjoint characters).
_QUOTE_DASH_TABLE: Final = str.maketrans({"`": "'", "\u2018": "'", "\u2019": "'", "\u2013": "-"})

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
_NBP_ANY: Final = 1  # never ends a sentence
_NBP_NUMERIC_ONLY: Final = 2  # "#NUMERIC_ONLY#": non-breaking only before a number

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
    "french": (frozenset(), {"a": _NBP_ANY}),
    # Newer Moses added the 32 single upper-case letters А..Я.
    "russian": (frozenset(chr(c) for c in range(0x0410, 0x0430)), {}),
}

_PREFIX_TABLES: dict[str, dict[str, int]] = {}


def parse_prefix_lines(lines: Iterable[str]) -> dict[str, int]:
    """Parse Moses prefix-file lines the way the jar does (first whitespace-separated
    word; ``#`` starts a comment; ``#NUMERIC_ONLY#`` as second word marks the kind)."""
    table: dict[str, int] = {}
    for line in lines:
        words = _FIND_TOKENS(line)
        if not words or words[0].startswith("#"):
            continue
        numeric = len(words) > 1 and words[1] == "#NUMERIC_ONLY#"
        table[words[0]] = _NBP_NUMERIC_ONLY if numeric else _NBP_ANY
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


# --- the normaliser ---------------------------------------------------------------------

_RESOLVED: dict[str, _Lang] = {}


def _apply(s: str, rules: tuple[_Pass, ...], close: Callable[[str], object]) -> str:
    """Run one family of jar rules over ``s`` (fast forms when they are equivalent)."""
    if close(s) is None:
        for fast, new, _, _ in rules:
            s = fast.sub(new, s)
    else:
        for _, _, slow, repl in rules:
            s = slow.sub(repl, s)
    return s


def _lang_for(language: str) -> _Lang:
    lang = _RESOLVED.get(language)
    if lang is None:
        lang = _RESOLVED[language] = _LANGS[resolve_norm_language(language)]
    return lang


def language_rules(language: str) -> tuple[str, dict[str, int]]:
    """The apostrophe rules (``en``, ``fr`` or ``other``) and non-breaking prefixes of a
    language (ISO code or jar name), the arguments of :func:`tokens` for it. Raises
    ``ValueError`` for languages the jar cannot normalise."""
    lang = _lang_for(language)
    prefixes = _PREFIX_TABLES.get(lang.name)
    if prefixes is None:
        prefixes = _load_prefix_table(lang.name)
    return lang.apostrophes, prefixes


def normalize_meteor(line: str, language: str = "en", keep_punctuation: bool = True) -> list[str]:
    """Tokenise and lower-case one segment exactly as ``meteor-1.5.jar -norm`` does.

    ``keep_punctuation=False`` mirrors ``-norm -noPunct`` (every character that is not a
    letter or digit in the jar's sense becomes a separator). Returns the tokens the
    aligner sees. Raises ``ValueError`` for languages the jar cannot normalise.

    The definition, in plain Python; the ``meteor`` tokenizer (the plugin's
    ``norm_tokenizer``) gives the same tokens, on the compiled engine when it runs.
    """
    apostrophes, prefixes = language_rules(language)
    return tokens(line, apostrophes, prefixes, keep_punctuation)


def tokens(
    line: str, apostrophes: str, prefixes: Mapping[str, int], keep_punctuation: bool = True
) -> list[str]:
    """The jar's passes over ``line``, for a language with these apostrophe rules and
    non-breaking prefixes (:func:`language_rules`); the compiled twin's ``tokens`` takes
    the same arguments."""
    # Most ASCII lines have no character to split off and none of the characters for
    # which str.split()/strip() differ from the jar's StringTokenizer/trim(); lines
    # without the latter may take the str.split() path below.
    is_ascii = line.isascii()
    if is_ascii and not line.encode("ascii").translate(None, _ASCII_NO_SEP):
        exact = False
        s = f" {line} "
    else:
        exact = _SPLIT_UNSAFE(line) is not None
        s = _SEP_OTHER.sub(r" \g<0> ", f" {line} ")
    # Runs of dots become one protected token (DOTMULTI placeholders, restored below).
    if ".." in s:
        s = _MULTI_DOT.sub(r" DOTMULTI\1", s)
    while "DOTMULTI." in s:
        s = _MULTI_DOT_STEP.sub(r"DOTDOTMULTI \1", s).replace("DOTMULTI.", "DOTDOTMULTI")
    if "," in s:
        s = _apply(s, _COMMA_RULES, _CLOSE_COMMAS)
    if "`" in s or "\u2018" in s or "\u2019" in s or "\u2013" in s:
        s = s.translate(_QUOTE_DASH_TABLE)
    if "''" in s or "\u201c" in s or "\u201d" in s:
        s = _DOUBLE_QUOTE.sub(' " ', s)
    if "-" in s:
        s = _apply(s.replace("--", "-"), _DASH_RULES, _CLOSE_DASHES)
    if "'" in s:
        if apostrophes == "en":
            s = _apply(s, _APOS_EN, _CLOSE_APOS)
        elif apostrophes == "fr":
            s = _apply(s, _APOS_FR, _CLOSE_APOS)
        else:
            s = s.replace("'", " ' ")

    # A word ending in "." keeps its period only if it is a non-breaking prefix, is
    # followed by a lower-case word, or is a numeric-only prefix before a number.
    # Words that contain other periods and a letter (U.S.) lose all their periods.
    words = _FIND_TOKENS(s) if exact else s.split()
    if "." in s:
        last = len(words) - 1
        for j, tok in enumerate(words):
            if tok[-1] != "." or len(tok) < 2:
                continue
            stem = tok[:-1]
            if "." in stem and _HAS_ALPHA(stem):
                words[j] = tok.replace(".", "")
                continue
            kind = prefixes.get(stem)
            nxt = words[j + 1][0] if j < last else ""
            keep_period = (
                kind == _NBP_ANY
                or "a" <= nxt <= "z"
                or (kind == _NBP_NUMERIC_ONLY and "0" <= nxt <= "9")
            )
            if not keep_period:
                words[j] = stem + " ."
    s = " ".join(words)
    if "DOTMULTI" in s:
        while "DOTDOTMULTI" in s:
            s = s.replace("DOTDOTMULTI", "DOTMULTI.")
        s = s.replace("DOTMULTI", ".")
    if not keep_punctuation:
        # Every character outside the jar's letters/digits separates tokens.
        if is_ascii:
            s = s.encode("ascii").translate(_ASCII_PUNCT_TO_SPACE).decode("ascii")
            return s.lower().split()
        return " ".join(_ALNUM_RUNS(s)).lower().split()
    if exact:
        s = _JAVA_WHITE.sub(" ", s).strip(_JAVA_TRIM).lower()
        return [tok for tok in s.split(" ") if tok]
    return s.lower().split()
