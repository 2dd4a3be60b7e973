"""Helpers shared by the alignment searches."""

from __future__ import annotations

from collections.abc import Sequence

from meteorx.matchers import span_problem
from meteorx.types import Match


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
