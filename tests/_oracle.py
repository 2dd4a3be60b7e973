"""An exhaustive oracle for the optimal aligner's objective (tests only).

The objective (:mod:`meteorx.align.optimal`), compared lexicographically, over every
*alignment* (a set of candidates no two of which share a hypothesis word or a reference
word):

1. maximise coverage, the sum over matches of ``weight(stage) x (hyp words + ref words)``
   (integer weights, in millionths, as the aligner compares them);
2. then minimise chunks (:func:`meteorx.types.count_chunks` of the matches in reference
   order);
3. then minimise distance, the sum over matches of ``|ref_start - hyp_start|``.

Which of several equally good alignments the aligner returns is its own business (its
tie rule follows its search order), so the oracle gives the optimal *value*; an
alignment is optimal when it is an alignment and reaches that value.

How the oracle stays small enough to run and still exact:

* **Independent parts.** Say that ``d`` *continues* ``c`` when ``d`` starts where ``c``
  ends on both sides. In an alignment ``A`` (matches in reference order), a match
  starts a new chunk unless the match just before it ends where it starts on both
  sides, and that match is then the one and only member of ``A`` it continues (two
  matches of ``A`` cannot end at the same reference word). So
  ``chunks(A) = |A| - #{(c, d) in A x A : d continues c}``: coverage and distance are
  sums over matches, chunks a sum over matches and "continues" pairs. Link two
  candidates when they share a word or one continues the other: the objective is the
  sum of its values on the connected parts, and an alignment is exactly a choice of an
  alignment in every part. The optimum is the sum of the parts' optima.
* **Brute force** (:func:`brute_force`), per part: every alignment of the part that no
  candidate of positive weight could join (adding one raises coverage, so every optimum
  is such a maximal alignment) is enumerated, and the best value kept. The walk decides
  the candidates one by one, in reference order; it drops "leave it out" only for a
  candidate that is free and that no later candidate overlaps (it would stay free: the
  result could not be maximal).
* **Exact walk** (:func:`exact_walk`), for parts too large to enumerate: a
  left-to-right walk over reference positions whose state is (the hypothesis words taken
  that a later candidate could use, the hypothesis end of the previous match when it
  ends at this position and a candidate here starts there, else -1). Every alignment is
  exactly one path (take a candidate at its reference start, jump past its end; or step
  over the position); two partial paths in the same state have the same completions,
  with the same added value (coverage and distance are per match, and the chunk a match
  starts depends only on the state), so keeping the best value per state is exact. It
  has no state cap that changes its answer: past ``max_states`` it gives up (returns
  None) and the part stays unchecked.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from meteorx.types import Match, count_chunks

Value = tuple[int, int, int]  # (coverage, -chunks, -distance), compared as tuples

SCALE = 1_000_000


def int_weights(weights: Sequence[float]) -> list[int]:
    """Stage weights as the optimal aligner compares them (millionths)."""
    return [round(w * SCALE) for w in weights]


def objective(matches: Sequence[Match], weights: Sequence[int]) -> Value:
    """The objective value of a set of matches (any order)."""
    ordered = sorted(matches)
    return (
        sum(weights[m.stage] * (m.hyp_len + m.ref_len) for m in ordered),
        -count_chunks(ordered),
        -sum(abs(m.ref_start - m.hyp_start) for m in ordered),
    )


def is_alignment(matches: Sequence[Match]) -> bool:
    """No two matches share a hypothesis word or a reference word."""
    hyp: set[int] = set()
    ref: set[int] = set()
    for m in matches:
        h = set(range(m.hyp_start, m.hyp_start + m.hyp_len))
        r = set(range(m.ref_start, m.ref_start + m.ref_len))
        if h & hyp or r & ref:
            return False
        hyp |= h
        ref |= r
    return True


def parts(candidates: Sequence[Match]) -> list[list[Match]]:
    """The connected parts: candidates linked by a shared word or by continuing."""
    n = len(candidates)
    parent = list(range(n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(a: int, b: int) -> None:
        a, b = find(a), find(b)
        if a != b:
            parent[max(a, b)] = min(a, b)

    first: dict[tuple[str, int], int] = {}
    starting: dict[tuple[int, int], list[int]] = {}
    for i, m in enumerate(candidates):
        for k in range(m.hyp_start, m.hyp_start + m.hyp_len):
            union(first.setdefault(("hyp", k), i), i)
        for k in range(m.ref_start, m.ref_start + m.ref_len):
            union(first.setdefault(("ref", k), i), i)
        starting.setdefault((m.ref_start, m.hyp_start), []).append(i)
    for i, m in enumerate(candidates):
        for d in starting.get((m.ref_start + m.ref_len, m.hyp_start + m.hyp_len), ()):
            union(i, d)
    grouped: dict[int, list[Match]] = {}
    for i, m in enumerate(candidates):
        grouped.setdefault(find(i), []).append(m)
    return list(grouped.values())


class _Budget(Exception):
    """The enumeration went past its budget."""


def brute_force(part: Sequence[Match], weights: Sequence[int], max_nodes: int) -> Value | None:
    """The best value over every maximal alignment of ``part``; None past ``max_nodes``
    steps of the enumeration."""
    cands = sorted(part)
    n = len(cands)
    hyp_mask = [((1 << m.hyp_len) - 1) << m.hyp_start for m in cands]
    ref_mask = [((1 << m.ref_len) - 1) << m.ref_start for m in cands]
    overlapped_later = [
        any(hyp_mask[a] & hyp_mask[b] or ref_mask[a] & ref_mask[b] for b in range(a + 1, n))
        for a in range(n)
    ]
    best: list[Value] = []
    chosen: list[Match] = []
    left_out: list[int] = []
    nodes = 0

    def visit(k: int, hyp_used: int, ref_used: int) -> None:
        nonlocal nodes
        nodes += 1
        if nodes > max_nodes:
            raise _Budget
        if k == n:
            for e in left_out:
                if weights[cands[e].stage] > 0 and not (
                    hyp_mask[e] & hyp_used or ref_mask[e] & ref_used
                ):
                    return  # a positive candidate could still join: not an optimum
            value = objective(chosen, weights)
            if not best or value > best[0]:
                best[:] = [value]
            return
        free = not (hyp_mask[k] & hyp_used or ref_mask[k] & ref_used)
        if free:
            chosen.append(cands[k])
            visit(k + 1, hyp_used | hyp_mask[k], ref_used | ref_mask[k])
            chosen.pop()
        if not free or weights[cands[k].stage] <= 0 or overlapped_later[k]:
            left_out.append(k)
            visit(k + 1, hyp_used, ref_used)
            left_out.pop()

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 2 * n + 100))
    try:
        visit(0, 0, 0)
    except _Budget:
        return None
    finally:
        sys.setrecursionlimit(limit)
    return best[0]


def exact_walk(part: Sequence[Match], weights: Sequence[int], max_states: int) -> Value | None:
    """The best value over every alignment of ``part``, by the exact walk of the module
    docstring; None if it would need more than ``max_states`` states."""
    end = max((m.ref_start + m.ref_len for m in part), default=0)
    at: dict[int, list[Match]] = {}
    for m in part:
        at.setdefault(m.ref_start, []).append(m)
    later = [0] * (end + 1)  # hypothesis words of candidates at or after each position
    mask = 0
    for j in range(end - 1, -1, -1):
        for m in at.get(j, ()):
            mask |= ((1 << m.hyp_len) - 1) << m.hyp_start
        later[j] = mask
    starts = {j: {m.hyp_start for m in ms} for j, ms in at.items()}
    layers: list[dict[tuple[int, int], Value]] = [{} for _ in range(end + 1)]
    layers[0][(0, -1)] = (0, 0, 0)
    states = 1

    def offer(j: int, used: int, last: int, value: Value) -> None:
        nonlocal states
        key = (used & later[j], last if last in starts.get(j, ()) else -1)
        old = layers[j].get(key)
        if old is None:
            states += 1
            layers[j][key] = value
        elif value > old:
            layers[j][key] = value

    for j in range(end):
        for (used, last), value in layers[j].items():
            offer(j + 1, used, -1, value)  # step over reference word j
            for m in at.get(j, ()):
                taken = ((1 << m.hyp_len) - 1) << m.hyp_start
                if used & taken:
                    continue
                gained = (
                    value[0] + weights[m.stage] * (m.hyp_len + m.ref_len),
                    value[1] - (0 if m.hyp_start == last else 1),
                    value[2] - abs(m.ref_start - m.hyp_start),
                )
                offer(j + m.ref_len, used | taken, m.hyp_start + m.hyp_len, gained)
        layers[j] = {}
        if states > max_states:
            return None
    return max(layers[end].values())


def best_value(
    candidates: Sequence[Match],
    weights: Sequence[int],
    max_nodes: int = 5_000,
    max_states: int = 300_000,
) -> Value | None:
    """The optimal value over every alignment of ``candidates`` (brute force per part,
    the exact walk for parts past ``max_nodes``), or None when a part is past both."""
    total = (0, 0, 0)
    for part in parts(candidates):
        value = brute_force(part, weights, max_nodes)
        if value is None:
            value = exact_walk(part, weights, max_states)
        if value is None:
            return None
        total = (total[0] + value[0], total[1] + value[1], total[2] + value[2])
    return total
