"""The exact optimum of METEOR's alignment objective, by dynamic programming.

Objective, compared lexicographically:
  1. maximise weighted coverage  sum(weight(stage) x (hyp words + ref words)),
  2. then minimise the number of chunks,
  3. then minimise the total distance  sum |ref_start - hyp_start|.

All three are sums over matches (chunks: +1 for each match, -1 for each match that
extends the one just before it in both sentences), so a left-to-right walk over
reference positions is a shortest-path problem whose state is (position, hypothesis
words used, hypothesis end of the match just before). The search keeps that state
space small with exact reductions only:

* a candidate that conflicts with no other candidate (and has a positive weight) is
  in every optimum, so it is fixed; what it adds to a neighbour (a saved chunk) is
  credited to that neighbour;
* the remaining candidates fall into *components* (linked by shared words). Two
  components interact only if a match of one can extend a match of the other; groups
  that cannot interact are solved by separate walks, so the state never holds the
  product of their choices;
* a group of several interacting components is solved by a branch and bound walk:
  each component is first solved alone (exactly, remembering for every state the best
  value still reachable), the components' optima together give a lower bound, and a
  state is dropped when even the best completion its components allow, plus one saved
  chunk for every interaction still possible, falls short of that bound;
* only hypothesis words that some later candidate could use are kept in the state,
  and the previous match's end only if a candidate at the current position starts
  there.

Ties (equal coverage, chunks and distance) go to the alignment found first by a walk
that tries "skip this reference word" before the candidates at it, in the order given;
this is deterministic but, on tied inputs, may differ from earlier versions.

Bound: when the walks together would create more than ``max_states`` states (default
20,000), or handle more than 1,000 x ``max_states`` 64-bit words of state (a state of
a group spanning n hypothesis words costs ceil(n / 64) per step it is tried; this only
matters for groups thousands of words wide, such as a huge hypothesis against a short
reference), the search gives up. ``OptimalAligner`` then solves the same objective as
an integer programme (:mod:`meteorx.align.ilp`, up to its candidate limit), and only
past that keeps the search's greedy left-to-right fallback (prefers covering,
chunk-extending, close matches; linear in the number of candidates), marked
``optimal=False``. With the reductions above no xray sentence needs more than about
5,300 states or 75,000 words (the earlier single walk gave up on 86 of its 4,978
sentences); hundreds of repeats of one word hit the bound within the first two
reference positions.

Weights are compared as integers (millionths) so ties are exact, not float noise.

The C extension (``meteorx.align._fast``) runs the same search; without it the
pure-Python twin below gives the same result, more slowly. The tests check both against
an exhaustive search (``tests/_oracle.py``).
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from meteorx.align import Aligner
from meteorx.align.common import conflict_free, search_refused
from meteorx.align.ilp import solve_ilp
from meteorx.align.optimal_dp import WORK_PER_STATE, Info, TooManyStates, solve
from meteorx.config_models import Count
from meteorx.engine import compiled
from meteorx.types import Alignment, Match, count_chunks

_SCALE = 1_000_000


class OptimalOptions(BaseModel):
    """Options of the ``optimal`` aligner."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_states: Count = Field(
        20000, description="search states before falling back to an integer programme"
    )


class OptimalAligner(Aligner):
    """Exact search with a documented state bound (see the module docstring)."""

    Options = OptimalOptions

    def __init__(self, options: OptimalOptions | None = None) -> None:
        self.max_states = (options or OptimalOptions()).max_states
        fast = compiled("meteorx.align._fast")  # the engine seam picks C or Python
        self._search = fast.optimal if fast is not None else optimal_search

    def align(
        self,
        candidates: Sequence[Match],
        hyp_len: int,
        ref_len: int,
        weights: Sequence[float],
        exact_stages: frozenset[int] = frozenset(),
    ) -> Alignment:
        if not candidates:
            return Alignment((), 0)
        int_weights = [round(w * _SCALE) for w in weights]
        result = self._search(candidates, hyp_len, ref_len, int_weights, self.max_states)
        if result is None:
            args = (candidates, hyp_len, ref_len, int_weights, self.max_states)
            result = search_refused(self._search, optimal_search, args, len(weights))
        chosen, chunks, optimal = result
        if not optimal:
            # Past the DP's state bound: solve the same objective exactly as an integer
            # programme (meteorx.align.ilp); only if that is too big too, keep the greedy
            # result, flagged optimal=False.
            exact = solve_ilp(candidates, hyp_len, ref_len, int_weights)
            if exact is not None:
                matches = tuple(exact)
                return Alignment(matches, count_chunks(matches), True)
        return Alignment(tuple([candidates[i] for i in chosen]), chunks, optimal)

    def describe(self) -> str:
        return f"optimal(max_states={self.max_states})"


def optimal_search(
    candidates: Sequence[Match],
    hyp_len: int,
    ref_len: int,
    weights: Sequence[int],
    max_states: int,
) -> tuple[list[int], int, bool] | None:
    """Chosen candidate indices (by reference start), their chunks, and optimality.

    ``weights`` are integer stage weights (millionths). The pure-Python twin of
    ``_fast.optimal``; None when a span or stage is out of range (the caller then raises
    :func:`~meteorx.align.common.bad_candidates`).
    """
    alone = conflict_free(candidates, hyp_len, ref_len, len(weights))
    if alone is None:
        return None
    fixed: list[int] = []
    amb: list[int] = []
    for i, m in enumerate(candidates):
        if weights[m[4]] > 0 and alone[i]:
            fixed.append(i)
        else:
            amb.append(i)
    chosen = list(fixed)
    optimal = True
    if amb:
        info = Info(candidates, weights)
        info.max_states = max_states
        info.max_work = max_states * WORK_PER_STATE
        try:
            chosen.extend(solve(candidates, fixed, amb, info))
        except TooManyStates:
            chosen = _greedy(candidates, fixed, amb, weights, ref_len)
            optimal = False
    chosen.sort(key=lambda i: candidates[i][0])
    return chosen, count_chunks([candidates[i] for i in chosen]), optimal


def _greedy(
    candidates: Sequence[Match],
    fixed: list[int],
    amb: list[int],
    weights: Sequence[int],
    ref_len: int,
) -> list[int]:
    """Left-to-right greedy fallback for inputs past the state bound.

    At each reference position take the fixed candidate, else the free one with the best
    (coverage, extends the previous match, -distance); the first of equals.
    """
    fixed_at = {candidates[f][0]: f for f in fixed}
    buckets: dict[int, list[int]] = {}
    for i in range(len(candidates)):
        buckets.setdefault(candidates[i][0], []).append(i)
    used = 0
    last = -1
    chosen: list[int] = []
    j = 0
    while j < ref_len:
        best = fixed_at.get(j, -1)
        if best < 0:
            best_key: tuple[int, int, int] | None = None
            for i in buckets.get(j, ()):
                rs, _, hs, hl, stage = candidates[i]
                if used & (((1 << hl) - 1) << hs):
                    continue
                key = (
                    weights[stage] * (hl + candidates[i][1]),
                    1 if hs == last else 0,
                    -abs(rs - hs),
                )
                if best_key is None or key > best_key:
                    best, best_key = i, key
        if best < 0 or used & (((1 << candidates[best][3]) - 1) << candidates[best][2]):
            last = -1
            j += 1
            continue
        chosen.append(best)
        rs, rl, hs, hl, _ = candidates[best]
        used |= ((1 << hl) - 1) << hs
        last = hs + hl
        j += rl
    return chosen
