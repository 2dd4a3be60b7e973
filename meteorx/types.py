"""Core value types shared by matchers, aligners and the scorer.

A *candidate* is a possible link proposed by a matcher; an *alignment* is the set of
candidates the aligner keeps. Both are :class:`Match` tuples, so a phrase match that
covers several words on each side needs no special case anywhere.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields
from typing import Any, NamedTuple

from meteorx.engine import compiled


class Match(NamedTuple):
    """A link between ``hyp[hyp_start:hyp_start+hyp_len]`` and ``ref[ref_start:ref_start+ref_len]``.

    ``stage`` is the index of the pipeline stage that proposed it. Field order puts the
    reference position first because aligners walk the reference left to right.
    """

    ref_start: int
    ref_len: int
    hyp_start: int
    hyp_len: int
    stage: int

    @property
    def hyp_end(self) -> int:
        return self.hyp_start + self.hyp_len

    @property
    def ref_end(self) -> int:
        return self.ref_start + self.ref_len


class Span(NamedTuple):
    """What a matcher proposes: spans on both sides (the stage index is added later)."""

    hyp_start: int
    hyp_len: int
    ref_start: int
    ref_len: int


@dataclass(frozen=True)
class Alignment:
    """The links an aligner chose, in reference order, and how it found them."""

    matches: tuple[Match, ...]
    chunks: int
    optimal: bool = True  # False when a search bound forced a fallback


def count_chunks(matches: Iterable[Sequence[int]]) -> int:
    """Chunks of an alignment given in reference order: the one chunk count of meteorx's
    Python code (the aligners' pure-Python twins and the NLTK mode count with it).

    A chunk is a maximal run of matches that are adjacent in the reference and adjacent,
    in the same order, in the hypothesis. (Meteor 1.5 counts them the same way.) A match
    is read as ``(ref_start, ref_len, hyp_start, hyp_len, ...)``, a :class:`Match` or any
    tuple starting so. The definition is symmetric: the same matches in hypothesis order,
    each given as ``(hyp_start, hyp_len, ref_start, ref_len)``, have the same count.
    """
    chunks = 0
    last_ref_end = -1
    last_hyp_end = -1
    for m in matches:
        ref_start = m[0]
        hyp_start = m[2]
        if ref_start != last_ref_end or hyp_start != last_hyp_end:
            chunks += 1
        last_ref_end = ref_start + m[1]
        last_hyp_end = hyp_start + m[3]
    return chunks


def make_record(cls: type[Any], names: tuple[str, ...], values: tuple[Any, ...]) -> Any:
    """An instance of the dataclass ``cls`` from its field values in declaration order
    (``names``, the field names, are what the compiled twin sets them by)."""
    return cls(*values)


RecordMaker = Callable[[type[Any], tuple[str, ...], tuple[Any, ...]], Any]


def record_maker() -> RecordMaker:
    """:func:`make_record`, or its compiled twin (about 3x faster: a record less to
    build in Python per segment) when the engine seam runs compiled code; asked by the
    objects that build results per segment, when they are built."""
    fast = compiled("meteorx._links_and_counts")
    maker: RecordMaker = fast.make_record if fast is not None else make_record
    return maker


#: Alignment's fields in declaration order (what ``make_record`` takes values in).
ALIGNMENT_FIELDS = tuple(f.name for f in fields(Alignment))
