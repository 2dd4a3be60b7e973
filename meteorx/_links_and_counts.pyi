"""Type stub of the optional C extension built from ``_links_and_counts.pyx``."""

from collections.abc import Hashable, Iterable, Sequence
from typing import Any, TypeVar

from meteorx.stats import Stats
from meteorx.types import Match

_T = TypeVar("_T")

class KeyTable:
    def __len__(self) -> int: ...
    def add(self, keys: Sequence[int]) -> None: ...
    def add_single(self, keys: list[int]) -> None: ...
    def add_keysets(self, keysets: list[Iterable[Hashable]], key_ids: dict[Any, int]) -> None: ...
    def keys(self, word: int) -> list[int]: ...

class BadSpan(ValueError): ...

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
def alignment_stats(
    matches: Sequence[Match],
    chunks: int,
    n_stages: int,
    hyp_ids: list[int],
    ref_ids: list[int],
    function_word: bytearray,
    perfect_match_rule: bool,
    stats_type: type[Stats],
) -> Stats: ...
def make_record(cls: type[_T], names: tuple[str, ...], values: tuple[Any, ...]) -> _T: ...
