"""The check of an aligner's result that meteorx does not trust (a plugin's)."""

from __future__ import annotations

from typing import Any

from meteorx.error_text import quote
from meteorx.matchers import span_problem
from meteorx.types import Alignment


def alignment_problem(alignment: Any, hyp_len: int, ref_len: int, n_stages: int) -> str | None:
    """What is wrong with an aligner's result, or None: a plugin aligner's result is
    checked before it is counted (the aligners shipped with meteorx return subsets of
    the checked candidates)."""
    if not isinstance(alignment, Alignment):
        return f"a {type(alignment).__name__}, not an Alignment"
    chunks = alignment.chunks
    if not isinstance(chunks, int) or isinstance(chunks, bool) or chunks < 0:
        return f"an alignment with {quote(chunks)} chunks"
    if not isinstance(alignment.matches, (tuple, list)):
        return f"an alignment whose matches are a {type(alignment.matches).__name__}"
    hyp_used = ref_used = 0
    for match in alignment.matches:
        if not isinstance(match, tuple) or len(match) != 5:
            return f"the match {quote(match)}, not a Match"
        rs, rl, hs, hl, stage = match
        if not (
            type(rs) is int
            and type(rl) is int
            and type(hs) is int
            and type(hl) is int
            and type(stage) is int
            and 0 <= hs < hs + hl <= hyp_len
            and 0 <= rs < rs + rl <= ref_len
            and 0 <= stage < n_stages
        ):
            problem = span_problem((hs, hl, rs, rl), hyp_len, ref_len)
            if problem is not None:
                return f"the match {quote(match)}, whose span {problem}"
            if not isinstance(stage, int) or not 0 <= stage < n_stages:
                return f"the match {quote(match)}, of no stage"
        hyp_mask = ((1 << hl) - 1) << hs
        ref_mask = ((1 << rl) - 1) << rs
        if hyp_used & hyp_mask or ref_used & ref_mask:
            return f"the match {quote(match)}, which overlaps another"
        hyp_used |= hyp_mask
        ref_used |= ref_mask
    return None
