"""Portuguese contractions of a preposition with an article or pronoun ("do" -> ``de
o``, "àquele" -> ``a aquele``), expanded by the ``-expand`` tokenizer variants. The
table is built the first time it is needed.
"""

from __future__ import annotations

from functools import cache

_PRONOUNS = [
    "ele", "ela", "eles", "elas",
    "este", "esta", "estes", "estas", "isto",
    "esse", "essa", "esses", "essas", "isso",
    "aquele", "aquela", "aqueles", "aquelas", "aquilo",
    "outro", "outra", "outros", "outras",
]  # fmt: skip
_ARTICLES = ["o", "a", "os", "as"]
_INDEFINITES = {"um": "um", "uma": "uma", "uns": "uns", "umas": "umas"}


@cache
def contraction_table() -> dict[str, tuple[str, ...]]:
    """Contractions and their expansion (lowercase), used by the ``-expand`` variants
    (:data:`CONTRACTIONS`); built on first use."""
    table: dict[str, tuple[str, ...]] = {}
    for art in _ARTICLES:
        table["d" + art] = ("de", art)
        table["n" + art] = ("em", art)
        table["pel" + art] = ("por", art)
    for art, form in {"o": "ao", "a": "à", "os": "aos", "as": "às"}.items():
        table[form] = ("a", art)
    for ind in _INDEFINITES:
        table["d" + ind] = ("de", ind)
        table["n" + ind] = ("em", ind)
    for pron in _PRONOUNS:
        table["d" + pron] = ("de", pron)
        table["n" + pron] = ("em", pron)
    for pron in ["aquele", "aquela", "aqueles", "aquelas", "aquilo"]:
        table["à" + pron[1:]] = ("a", pron)
    table.update(
        {
            "daqui": ("de", "aqui"),
            "daí": ("de", "aí"),
            "dali": ("de", "ali"),
            "dacolá": ("de", "acolá"),
            "donde": ("de", "onde"),
            "aonde": ("a", "onde"),
            "doutrem": ("de", "outrem"),
        }
    )
    return table


def expand_contraction(word: str) -> list[str] | None:
    parts = contraction_table().get(word.lower())
    if parts is None:
        return None
    if word.isupper() and len(word) > 1:
        return [p.upper() for p in parts]
    if word[:1].isupper():
        return [parts[0].capitalize(), *parts[1:]]
    return list(parts)
