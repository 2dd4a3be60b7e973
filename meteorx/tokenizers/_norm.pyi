"""Type stub of the optional C extension built from ``_norm.pyx``."""

from collections.abc import Mapping

def tokens(
    line: object, apostrophes: str, prefixes: object, keep_punctuation: bool = True
) -> list[str] | None: ...
def normalize(
    line: object,
    language: object,
    keep_punctuation: bool,
    languages: Mapping[str, tuple[object, ...]],
    tables: Mapping[str, Mapping[str, int]],
) -> list[str] | None: ...
