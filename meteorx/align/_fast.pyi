"""Type stub of the optional C extension built from ``_fast.pyx``."""

from collections.abc import Sequence

from meteorx.types import Match

def meteor15(
    candidates: Sequence[Match],
    hyp_len: int,
    ref_len: int,
    exact_stages: frozenset[int],
    beam: int,
) -> tuple[list[int], int] | None: ...
def optimal(
    candidates: Sequence[Match],
    hyp_len: int,
    ref_len: int,
    weights: Sequence[int],
    max_states: int,
) -> tuple[list[int], int, bool] | None: ...
