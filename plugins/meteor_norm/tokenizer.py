"""Meteor 1.5's ``-norm`` (and ``-norm -noPunct``) preprocessing, defined in plain Python.

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

This module is the definition that the compiled twin ``_norm_tokenizer.pyx`` mirrors: its
:func:`tokens` is the one the twin repeats, under the same name and with the same
arguments, as scans over code points (5-6x faster; tests check the two agree), and
its character classes and rule tables are the ones the twin encodes.
:func:`normalize_meteor` is that definition for a language. The languages, their
apostrophe rules and non-breaking prefixes (the arguments of :func:`tokens`) are
:mod:`.languages`. It imports the standard library and :mod:`.languages` only: the
plugin (``__init__``) builds tokenizers from it and chooses the engine.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Final

from meteorx_plugins.meteor_norm.languages import (
    NBP_ANY,
    NBP_NUMERIC_ONLY,
    java_tokens,
    language_rules,
)

__all__ = ["normalize_meteor", "tokens"]

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

# --- the normaliser ---------------------------------------------------------------------


def _apply(s: str, rules: tuple[_Pass, ...], close: Callable[[str], object]) -> str:
    """Run one family of jar rules over ``s`` (fast forms when they are equivalent)."""
    if close(s) is None:
        for fast, new, _, _ in rules:
            s = fast.sub(new, s)
    else:
        for _, _, slow, repl in rules:
            s = slow.sub(repl, s)
    return s


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
    non-breaking prefixes (:func:`.languages.language_rules`); the compiled twin's
    ``tokens`` takes the same arguments."""
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
    words = java_tokens(s) if exact else s.split()
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
                kind == NBP_ANY
                or "a" <= nxt <= "z"
                or (kind == NBP_NUMERIC_ONLY and "0" <= nxt <= "9")
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
