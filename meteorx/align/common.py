"""Helpers shared by the alignment searches."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from meteorx.matchers import span_problem
from meteorx.types import Match

_Setting = TypeVar("_Setting")
_Result = TypeVar("_Result")


def bad_candidates(
    candidates: Sequence[Match], hyp_len: int, ref_len: int, n_stages: int | None = None
) -> IndexError:
    """The error an aligner raises when its search refused the candidates: it names the
    first candidate whose span is empty or leaves its sentence (or, given ``n_stages``,
    whose stage has no weight).

    The scorer checks every span a matcher yields before aligning, so only a direct call
    with hand-made candidates gets here.
    """
    for m in candidates:
        if not isinstance(m, tuple) or len(m) != 5:
            problem: str | None = "is not a Match (ref_start, ref_len, hyp_start, hyp_len, stage)"
        else:
            ref_start, ref_span, hyp_start, hyp_span, stage = m
            problem = span_problem((hyp_start, hyp_span, ref_start, ref_span), hyp_len, ref_len)
            if problem is None and n_stages is not None and not 0 <= stage < n_stages:
                problem = f"is of stage {stage!r}, which has no weight"
        if problem is not None:
            return IndexError(f"the candidate {m!r} {problem}")
    return IndexError("the candidates are malformed")


def conflict_free(
    candidates: Sequence[Match], hyp_len: int, ref_len: int, n_stages: int | None = None
) -> list[bool] | None:
    """Whether each candidate conflicts with no other: alone at its reference start and
    sharing no word with another candidate. Both searches fix such candidates before
    they search (Meteor 1.5 does; for the optimum it is exact), so this is one definition
    for the two pure-Python twins.

    None when a span is empty or out of range (or, given ``n_stages``, a stage has no
    weight): the twins' refusal.
    """
    ref_cover = [0] * ref_len
    hyp_cover = [0] * hyp_len
    bucket_size = [0] * ref_len
    for rs, rl, hs, hl, stage in candidates:
        if (
            rl < 1
            or hl < 1
            or rs < 0
            or hs < 0
            or rs + rl > ref_len
            or hs + hl > hyp_len
            or (n_stages is not None and not 0 <= stage < n_stages)
        ):
            return None
        bucket_size[rs] += 1
        for k in range(rs, rs + rl):
            ref_cover[k] += 1
        for k in range(hs, hs + hl):
            hyp_cover[k] += 1
    return [
        bucket_size[rs] == 1
        and all(ref_cover[k] == 1 for k in range(rs, rs + rl))
        and all(hyp_cover[k] == 1 for k in range(hs, hs + hl))
        for rs, rl, hs, hl, _ in candidates
    ]


def search_refused(
    search: object,
    twin: Callable[[Sequence[Match], int, int, _Setting, int], _Result | None],
    args: tuple[Sequence[Match], int, int, _Setting, int],
    n_stages: int | None = None,
) -> _Result:
    """What an aligner does when its ``search`` refused ``args`` (returned None): the
    compiled search reads tuples of C ints only, so the pure-Python ``twin``, which copes
    with anything else that is well formed, tries again; if it refuses too,
    :func:`bad_candidates` says why.

    Called only after a refusal, so the aligners' usual path pays nothing for it.
    """
    result = twin(*args) if search is not twin else None
    if result is None:
        raise bad_candidates(args[0], args[1], args[2], n_stages)
    return result
