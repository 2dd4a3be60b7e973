"""Type stub of the optional C extension built from ``_fastpath.pyx``."""

from collections.abc import Iterable, Sequence

from meteorx.types import Match

class KeyTable:
    def __len__(self) -> int: ...
    def add(self, keys: Sequence[int]) -> None: ...
    def add_single(self, keys: list[int]) -> None: ...
    def keys(self, word: int) -> list[int]: ...

def key_candidates(
    match_type: type[Match],
    plans: Sequence[tuple[bool, int] | None],
    tables: Sequence[KeyTable | None],
    hyp_ids: list[int],
    ref_ids: list[int],
    explicit: Sequence[Iterable[Sequence[int]] | None],
    n_stages: int,
) -> list[Match]: ...
def count_stats(
    matches: Sequence[Match],
    n_stages: int,
    hyp_ids: list[int],
    ref_ids: list[int],
    function_word: bytearray,
) -> tuple[
    int,
    int,
    tuple[float, ...],
    tuple[float, ...],
    tuple[float, ...],
    tuple[float, ...],
    int,
    int,
]: ...
