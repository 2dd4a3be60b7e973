"""Type stub of the optional C extension built from ``_norm_tokenizer.pyx``."""

def tokens(
    line: object, apostrophes: str, prefixes: object, keep_punctuation: bool = True
) -> list[str] | None: ...
