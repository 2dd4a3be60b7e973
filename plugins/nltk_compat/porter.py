"""NLTK's ``PorterStemmer`` (mode ``NLTK_EXTENSIONS``, NLTK METEOR's stemmer), fast.

A rule-for-rule port of NLTK's code without its per-call overhead (rule lists rebuilt
on every call, a closure per condition, a Python loop per measure): same steps, same
first-matching-suffix rule order, same quirks. It is checked against the installed
NLTK when first used (:func:`porter_stem_function`), which falls back to NLTK's own
stemmer if a release changed the rules.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from meteorx_plugins.wordnet.synsets import Memo

__all__ = ["is_default_porter", "is_porter_function", "porter_stem_function"]

#: "c"/"v" per character (ASCII); "y" is resolved from its left neighbour.
_CV_TABLE = {c: "c" for c in range(128)} | {ord(v): "v" for v in "aeiou"} | {ord("y"): "y"}


def _cv(word: str) -> str:
    """NLTK's consonant/vowel classes of ``word`` as a "c"/"v" string: a, e, i, o, u are
    vowels; y is a consonant at the start or after a vowel, else a vowel; anything
    else is a consonant."""
    if word.isascii():
        cv = word.translate(_CV_TABLE)
    else:
        cv = "".join("v" if ch in "aeiou" else "y" if ch == "y" else "c" for ch in word)
    if "y" in cv:
        out: list[str] = []
        prev = "v"  # a leading y is a consonant
        for ch in cv:
            if ch == "y":
                ch = "v" if prev == "c" else "c"
            out.append(ch)
            prev = ch
        cv = "".join(out)
    return cv


def _measure(stem: str) -> int:
    return _cv(stem).count("vc")


def _ends_cvc(word: str) -> bool:
    """Condition *o, with NLTK's two-letter extension."""
    n = len(word)
    if n >= 3:
        return word[-1] not in "wxy" and _cv(word).endswith("cvc")
    return n == 2 and _cv(word) == "vc"


def _by_last_letter(rules: tuple[tuple[str, str], ...]) -> dict[str, tuple[tuple[str, str], ...]]:
    """Rules grouped by the last letter of their suffix, each group in rule order (a
    word can only end with suffixes ending in its own last letter, so the first rule
    that matches is the same)."""
    out: dict[str, list[tuple[str, str]]] = {}
    for rule in rules:
        out.setdefault(rule[0][-1], []).append(rule)
    return {last: tuple(group) for last, group in out.items()}


_STEP2 = _by_last_letter(
    (
        ("ational", "ate"), ("tional", "tion"), ("enci", "ence"), ("anci", "ance"),
        ("izer", "ize"), ("bli", "ble"), ("alli", "al"), ("entli", "ent"), ("eli", "e"),
        ("ousli", "ous"), ("ization", "ize"), ("ation", "ate"), ("ator", "ate"),
        ("alism", "al"), ("iveness", "ive"), ("fulness", "ful"), ("ousness", "ous"),
        ("aliti", "al"), ("iviti", "ive"), ("biliti", "ble"), ("fulli", "ful"),
        # ("logi", "log") comes last: _step2 applies it (the stem is measured with its "l")
    )
)  # fmt: skip
_STEP3 = _by_last_letter(
    (
        ("icate", "ic"), ("ative", ""), ("alize", "al"), ("iciti", "ic"), ("ical", "ic"),
        ("ful", ""), ("ness", ""),
    )
)  # fmt: skip
_STEP4 = _by_last_letter(
    tuple(
        (suffix, "")
        for suffix in (
            "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent",
            "ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize",
        )
    )
)  # fmt: skip


def _step1b(word: str) -> str:
    last = word[-1:]
    if last == "d":
        if word.endswith("ied"):
            return word[:-3] + ("ie" if len(word) == 4 else "i")
        if word.endswith("eed"):
            stem = word[:-3]
            return stem + "ee" if _measure(stem) > 0 else word
        if not word.endswith("ed"):
            return word
        stem = word[:-2]
    elif last == "g" and word.endswith("ing"):
        stem = word[:-3]
    else:
        return word
    if "v" not in _cv(stem):
        return word
    if stem.endswith(("at", "bl", "iz")):
        return stem + "e"
    if len(stem) >= 2 and stem[-1] == stem[-2] and _cv(stem)[-1] == "c":  # *d
        return stem if stem[-1] in "lsz" else stem[:-1]
    if stem.endswith("*d"):  # NLTK tests the rule's "*d" as a plain suffix too
        return stem[:-2] + "d"
    if _measure(stem) == 1 and _ends_cvc(stem):
        return stem + "e"
    return stem


def _suffix_rule(word: str, rules: dict[str, tuple[tuple[str, str], ...]], measure: int) -> str:
    """Porter's suffix steps: the first rule whose suffix ends ``word`` replaces that
    suffix if the stem left measures more than ``measure``, else the word stays."""
    for suffix, replacement in rules.get(word[-1:], ()):
        if word.endswith(suffix):
            stem = word[: -len(suffix)]
            return stem + replacement if _measure(stem) > measure else word
    return word


def _step2(word: str) -> str:
    if word.endswith("alli") and _measure(word[:-4]) > 0:
        return _step2(word[:-4] + "al")
    if word.endswith("logi"):  # the last rule (no other one's suffix ends "logi" words)
        return word[:-1] if _measure(word[:-3]) > 0 else word
    return _suffix_rule(word, _STEP2, 0)


def _step4(word: str) -> str:
    if word.endswith("ion") and not word.endswith(("sion", "tion")):
        return word  # "ion" goes after s or t only (no other suffix ends in n)
    return _suffix_rule(word, _STEP4, 1)


def _porter_nltk(word: str, pool: dict[str, str]) -> str:
    """``PorterStemmer().stem(word)`` (mode ``NLTK_EXTENSIONS``); ``pool`` is NLTK's
    table of irregular forms."""
    stem = word.lower()
    found = pool.get(stem)
    if found is not None:
        return found
    if len(word) <= 2:  # NLTK measures the word as given, before lower-casing
        return stem
    # Step 1a (with NLTK's "ies" -> "ie" for four-letter words).
    if stem[-1] == "s":
        if stem.endswith("ies"):
            stem = stem[:-1] if len(stem) == 4 else stem[:-2]
        elif stem.endswith("sses"):
            stem = stem[:-2]
        elif not stem.endswith("ss"):
            stem = stem[:-1]
    stem = _step1b(stem)
    # Step 1c: y -> i after a consonant, when more than one letter precedes it.
    if stem[-1] == "y" and len(stem) > 2 and _cv(stem[:-1])[-1] == "c":
        stem = stem[:-1] + "i"
    stem = _step2(stem)
    stem = _suffix_rule(stem, _STEP3, 0)
    stem = _step4(stem)
    # Step 5a.
    if stem[-1] == "e":
        base = stem[:-1]
        measure = _measure(base)
        if measure > 1 or (measure == 1 and not _ends_cvc(base)):
            stem = base
    # Step 5b.
    if stem[-1] == "l" and stem.endswith("ll") and _measure(stem[:-1]) > 1:
        stem = stem[:-1]
    return stem


#: Words that take every branch of the port above (and NLTK's irregular forms); the
#: port is used only if it stems all of them as the installed NLTK does.
_PROBE_TEXT = (
    "caresses ponies ties caress cats feed agreed plastered bled motoring sing conflated "
    "troubled sized hopping tanned falling hissing fizzed failing filing happy sky skies "
    "relational conditional rational valenci hesitanci digitizer conformabli radicalli "
    "differentli vileli analogousli vietnamization predication operator feudalism "
    "decisiveness hopefulness callousness formaliti sensitiviti sensibiliti triplicate "
    "formative formalize electriciti electrical hopeful goodness revival allowance "
    "inference airliner gyroscopic adjustable defensible irritant replacement adjustment "
    "dependent adoption homologou communism activate angulariti homologous effective "
    "bowdlerize probate rate cease controll roll dying lying tying news innings outings "
    "cannings howe proceed exceeded succeeding lies died spied cried enjoy syzygy yyyy "
    "ab*ded generously archaeology fully hopefulli analogi toy boys sayings Running "
    "İstanbul a is as by generalizations traditionalli"
)
_PORTER_PROBES = tuple(_PROBE_TEXT.split())


def _porter_port(stemmer: Any) -> Callable[[str], str] | None:
    """The port of ``stemmer`` (an NLTK ``PorterStemmer`` in mode NLTK_EXTENSIONS) if it
    agrees with it on every probe word, else None."""
    pool = dict(stemmer.pool)

    def stem(word: str) -> str:
        return _porter_nltk(word, pool)

    if all(stem(word) == stemmer.stem(word) for word in _PORTER_PROBES):
        return stem
    return None  # a different NLTK release changed the rules: use its own code


_PORTER: dict[str, Memo] = {}


def porter_stem_function(mode: str = "NLTK_EXTENSIONS") -> Callable[[str], str]:
    """NLTK's ``PorterStemmer(mode).stem``, memoised (one shared cache per mode).

    For the default mode, ``NLTK_EXTENSIONS`` (NLTK METEOR's stemmer), a rule-for-rule
    port of NLTK's code that runs about five times faster; it is checked against the
    installed NLTK on first use and NLTK's own stemmer is used if they disagree.
    """
    memo = _PORTER.get(mode)
    if memo is None:
        from nltk.stem.porter import PorterStemmer

        stemmer = PorterStemmer(mode)
        function: Callable[[str], str] = stemmer.stem
        if mode == "NLTK_EXTENSIONS":
            function = _porter_port(stemmer) or function
        memo = _PORTER[mode] = Memo(function)
    stem: Callable[[str], str] = memo.__getitem__
    return stem


def is_porter_function(function: Callable[[str], str]) -> bool:
    """Whether ``function`` came from :func:`porter_stem_function` (lower-case stems)."""
    memo = getattr(function, "__self__", None)
    return any(memo is known for known in _PORTER.values())


def is_default_porter(stemmer: Any) -> bool:
    """An NLTK ``PorterStemmer`` as NLTK METEOR builds it by default."""
    from nltk.stem.porter import PorterStemmer

    return type(stemmer) is PorterStemmer and stemmer.mode == PorterStemmer.NLTK_EXTENSIONS


def clear() -> None:
    """Forget every memoised stem."""
    for memo in _PORTER.values():
        memo.clear()
