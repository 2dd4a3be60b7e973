"""Type stub of the optional C extension built from ``_transfer.pyx``."""

from typing import Any

class Unsupported(Exception): ...

def encode(
    results: list[Any],
    detail: bool,
    match_type: type,
    stats_fields: tuple[str, ...],
    breakdown_fields: tuple[str, ...],
) -> bytes | None: ...
def decode(
    data: bytes,
    segment_type: type,
    alignment_type: type,
    stats_type: type,
    breakdown_type: type,
    match_type: type,
    segment_fields: tuple[str, ...],
    alignment_fields: tuple[str, ...],
    stats_fields: tuple[str, ...],
    breakdown_fields: tuple[str, ...],
) -> list[Any]: ...
