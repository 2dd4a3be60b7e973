"""A search that reproduces Meteor 1.5's aligner decision for decision.

Meteor 1.5 walks reference positions left to right with a beam of partial alignments
ranked by (more covered words, fewer chunks, smaller distance). To give the same
alignments as the jar, this search keeps its particularities on purpose:

* coverage counters are integers: each match adds ``floor(length x weight)`` per side,
  with search weights 1.0 for exact stages and 0.5 for all others, so a one-word
  non-exact match adds nothing to coverage;
* a chunk is counted when it closes (a skipped reference word, a jump on the
  hypothesis side, or the end);
* the distance of a newly taken match is added to the path that *skips* it (and so
  to every later sibling), not to the path that takes it;
* candidates that conflict with nothing are fixed before the search;
* the beam keeps the first ``beam_size`` paths after a stable sort.

Use :mod:`meteorx.align.optimal` for the exact optimum of the stated objective.

Implementation. The search below and its compiled twin return the same alignment on
every input (the equivalence tests compare them on random input and on real sentences).
Two facts make both cheaper than a plain transcription of the Java search, without
changing a single decision:

* the reference-side "used" mask is redundant: a fixed candidate conflicts with no
  other candidate, and every match a path took ends before the path's next position,
  so "reference word used" is "inside a fixed span, or before the path's next index";
* only hypothesis words of non-fixed candidates can ever conflict, so only they are
  tracked (the C version packs them into a few machine words).

The C extension (``meteorx.align._fast``, built from ``_fast.pyx`` when a compiler is
available) also skips work that cannot change the outcome: it keeps only the best
``beam_size`` successors with a bounded heap instead of sorting them all, stops
generating a path's successors once none of them could be kept (ranks only get worse
along a bucket, since the slip only grows), and, while all paths sit at the same
position and hypothesis end, lets a step without candidates pass without touching
them (it changes every rank alike). That is what makes hundreds of repeats of one word
cheap. Without the extension the pure-Python search below gives the same result, more
slowly.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter

from pydantic import BaseModel, ConfigDict, Field

from meteorx.align import Aligner
from meteorx.align.common import conflict_free, search_refused
from meteorx.config_models import Count
from meteorx.engine import compiled
from meteorx.types import ALIGNMENT_FIELDS, Alignment, Match, count_chunks, record_maker

_rank = itemgetter(0, 1, 2)  # (-cover, chunks, distance)
# A path: (-cover, chunks, distance, next index, last hyp end, used hyp mask, chosen).
_Path = tuple[int, int, int, int, int, int, object]


class Meteor15Options(BaseModel):
    """Options of the ``meteor-1.5`` aligner."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    beam_size: Count = Field(40, description="beam width (Meteor 1.5's: 40)")


class Meteor15Aligner(Aligner):
    """Meteor 1.5's beam search (see the module docstring)."""

    Options = Meteor15Options
    # Its search weighs exact stages 1.0 and the others 0.5, whatever the stage weights.
    uses_weights = False
    identical_first_stage_only = True

    def __init__(self, options: Meteor15Options | None = None) -> None:
        self.beam_size = (options or Meteor15Options()).beam_size
        fast = compiled("meteorx.align._fast")  # the engine seam picks C or Python
        self._record = record_maker()
        self._search = fast.meteor15 if fast is not None else beam_search

    def align(
        self,
        candidates: Sequence[Match],
        hyp_len: int,
        ref_len: int,
        weights: Sequence[float],
        exact_stages: frozenset[int],
    ) -> Alignment:
        if not candidates:
            return Alignment((), 0)
        if self.beam_size < 1:
            raise ValueError(f"the beam size is at least 1, not {self.beam_size}")
        result = self._search(candidates, hyp_len, ref_len, exact_stages, self.beam_size)
        if result is None:
            args = (candidates, hyp_len, ref_len, exact_stages, self.beam_size)
            result = search_refused(self._search, beam_search, args)
        chosen, chunks = result
        alignment: Alignment = self._record(  # Alignment(matches, chunks), built faster
            Alignment, ALIGNMENT_FIELDS, (tuple([candidates[i] for i in chosen]), chunks, True)
        )
        return alignment

    def describe(self) -> str:
        return f"meteor-1.5(beam={self.beam_size})"


def beam_search(
    candidates: Sequence[Match],
    hyp_len: int,
    ref_len: int,
    exact_stages: frozenset[int],
    beam: int,
) -> tuple[list[int], int] | None:
    """Indices of the chosen candidates (by reference start) and their chunk count.

    The pure-Python twin of ``_fast.meteor15``; None when a span is out of range or
    empty (the caller then raises :func:`~meteorx.align.common.bad_candidates`).
    """
    alone = conflict_free(candidates, hyp_len, ref_len)
    if alone is None:
        return None
    n = len(candidates)
    gain = [0] * n
    hmask = [0] * n
    fixed_at = [-1] * ref_len
    fixed_cov = [False] * ref_len
    buckets: list[list[int]] = [[] for _ in range(ref_len)]
    n_fixed = 0
    for i, (rs, rl, hs, hl, stage) in enumerate(candidates):
        gain[i] = hl + rl if stage in exact_stages else hl // 2 + rl // 2
        if alone[i]:
            fixed_at[rs] = i
            for k in range(rs, rs + rl):
                fixed_cov[k] = True
            n_fixed += 1
        else:
            hmask[i] = ((1 << hl) - 1) << hs
            buckets[rs].append(i)
    if n_fixed == n:
        chosen = sorted(range(n), key=lambda i: candidates[i][0])
        return chosen, count_chunks([candidates[i] for i in chosen])

    paths: list[_Path] = [(0, 0, 0, 0, -1, 0, None)]
    for current in range(ref_len + 1):
        nxt: list[_Path] = []
        for path in paths:
            neg_cover, chunks, dist, idx, last, used, node = path
            if current == ref_len:
                if last != -1:
                    path = (neg_cover, chunks + 1, dist, idx, last, used, node)
                nxt.append(path)
            elif current < idx:
                nxt.append(path)
            elif fixed_cov[current]:
                f = fixed_at[current]
                if f < 0:
                    continue  # the path dies (as in the reference)
                rs, rl, hs, hl, _ = candidates[f]
                if last != -1 and hs != last:
                    chunks += 1
                nxt.append(
                    (
                        neg_cover - gain[f],
                        chunks,
                        dist + abs(rs - hs),
                        rs + rl,
                        hs + hl,
                        used,
                        (f, node),
                    )
                )
            else:
                for i in buckets[current]:
                    hm = hmask[i]
                    if used & hm:
                        continue
                    rs, rl, hs, hl, _ = candidates[i]
                    nxt.append(
                        (
                            neg_cover - gain[i],
                            chunks + 1 if last != -1 and hs != last else chunks,
                            dist,
                            rs + rl,
                            hs + hl,
                            used | hm,
                            (i, node),
                        )
                    )
                    dist += abs(rs - hs)  # the slip: the skipping path pays
                if last != -1:
                    chunks += 1
                nxt.append((neg_cover, chunks, dist, current + 1, -1, used, node))
        if not nxt:
            nxt.append(paths[0])
        nxt.sort(key=_rank)
        paths = nxt[:beam]
    chosen = []
    node = paths[0][6]
    while node is not None:
        i, node = node  # type: ignore[misc]
        chosen.append(i)
    chosen.sort(key=lambda i: candidates[i][0])
    return chosen, count_chunks([candidates[i] for i in chosen])
