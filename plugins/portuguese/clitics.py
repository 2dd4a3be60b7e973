"""Hyphenated verb + clitic pronoun forms of Portuguese, split so that European enclisis
and Brazilian proclisis give the same tokens ("vende-se" -> ``vende se``), with the
allomorphs of o/a restored ("fazê-lo" -> ``fazer o``) and mesoclisis undone
("dir-se-ia" -> ``diria se``).
"""

from __future__ import annotations

#: Clitic pronouns that may follow a hyphen (including contracted ones: lho = lhe + o).
CLITICS: frozenset[str] = frozenset(
    {
        "me",
        "te",
        "se",
        "lhe",
        "lhes",
        "nos",
        "vos",
        "o",
        "a",
        "os",
        "as",
        "lo",
        "la",
        "los",
        "las",
        "no",
        "na",
        "nas",
        "mo",
        "ma",
        "mos",
        "mas",
        "to",
        "ta",
        "tos",
        "tas",
        "lho",
        "lha",
        "lhos",
        "lhas",
    }
)
_LO = {"lo": "o", "la": "a", "los": "os", "las": "as"}
_NO = {"no": "o", "na": "a"}  # after a nasal verb ending; "-nos" stays "nos" (us)
#: Future and conditional endings that follow the clitic in mesoclisis.
_MESOCLITIC_ENDINGS: frozenset[str] = frozenset(
    {"ei", "ás", "á", "emos", "eis", "ão", "ia", "ias", "íamos", "íeis", "iam"}
)
#: Forms of "haver" written with a hyphen before "de" in pre-1990 European spelling.
_HAVER: frozenset[str] = frozenset({"hei", "hás", "há", "havemos", "haveis", "hão"})
_DEACCENT = str.maketrans("áâéêíóôú", "aaeeioou")


def _restore_infinitive(verb: str) -> str:
    """The verb before -lo/-la: "fazê" -> "fazer", "dá" -> "dar", "parti" -> "partir"."""
    last = verb[-1:].lower()
    if last in "áâéêíóô":
        base = verb[:-1] + verb[-1].translate(_DEACCENT)
        return base + ("R" if verb.isupper() else "r")
    if last == "i" and len(verb) > 2:
        return verb + ("R" if verb.isupper() else "r")
    if verb.lower().endswith("mo"):  # comemo-lo -> comemos o
        return verb + ("S" if verb.isupper() else "s")
    return verb


def _same_case(word: str, model: str) -> str:
    return word.upper() if model.isupper() and len(model) > 1 else word


def split_clitics(word: str) -> list[str] | None:
    """Split a hyphenated verb + clitic(s); ``None`` if ``word`` is no such form."""
    parts = word.split("-")
    if len(parts) < 2 or not all(parts) or not parts[0].isalpha():
        return None
    lower = [p.lower() for p in parts]
    if len(parts) == 2 and lower[1] == "de" and lower[0] in _HAVER:  # hei-de, há-de
        return parts
    # Mesoclisis: dir-se-ia, dar-lhe-ei, fá-lo-ei.
    if len(parts) == 3 and lower[1] in CLITICS and lower[2] in _MESOCLITIC_ENDINGS:
        stem = parts[0]
        clitic = lower[1]
        if clitic in _LO:
            stem = _restore_infinitive(stem)
            clitic = _LO[clitic]
        if not stem.lower().endswith("r"):
            return None
        return [stem + parts[2], _same_case(clitic, parts[1])]
    if lower[-1] not in CLITICS:
        return None
    k = len(parts)
    while k > 1 and lower[k - 1] in CLITICS:
        k -= 1
    if k != 1:  # e.g. "porta-a-porta" style compounds: leave whole
        return None
    verb = parts[0]
    clitics = lower[1:]
    first = clitics[0]
    if first in _LO:
        verb = _restore_infinitive(verb)
        clitics[0] = _LO[first]
    elif first in _NO and verb.lower().endswith(("m", "ão", "õe", "ãe")):
        clitics[0] = _NO[first]
    return [verb, *(_same_case(c, p) for c, p in zip(clitics, parts[1:], strict=True))]
