"""The exact search behind :mod:`meteorx.align.optimal`: walks, components, branch and bound.

Kept apart from the aligner and its fallbacks so that the state-space search reads as
one piece; :mod:`meteorx.align.optimal`'s docstring states the objective and the exact
reductions that this module implements (``_fast.optimal`` is its compiled twin).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

from meteorx.types import Match

# Work budget per allowed state, in 64-bit bitset words handled (see Info.spend).
WORK_PER_STATE = 1000

Value = tuple[int, int, int]  # (coverage, -chunks, -distance), compared lexicographically


class TooManyStates(Exception):
    """The state bound was reached."""


class _Walk:
    """One left-to-right walk over the reference positions of a set of candidates."""

    def __init__(self, cand: list[int], info: Info) -> None:
        starts = sorted({info.rs[i] for i in cand})
        self.pos = starts
        index = {p: t for t, p in enumerate(starts)}
        T = len(starts)
        self.by: list[list[int]] = [[] for _ in range(T)]
        for i in cand:  # ``cand`` is in the given order, so buckets keep it
            self.by[index[info.rs[i]]].append(i)
        self.rel = [0] * (T + 1)
        for t in range(T - 1, -1, -1):
            mask = self.rel[t + 1]
            for i in self.by[t]:
                mask |= info.hmask[i]
            self.rel[t] = mask
        # Where a walk goes after taking candidate i, and the "last" it carries there
        # (only if a candidate at that position starts where i ends).
        starts_at = {(t, info.hs[k]) for t in range(T) for k in self.by[t]}
        self.next_t: dict[int, int] = {}
        self.next_last: dict[int, int] = {}
        for i in cand:
            end = info.rs[i] + info.rl[i]
            t2 = bisect_left(starts, end)
            self.next_t[i] = t2
            hyp_end = info.hs[i] + info.hl[i]
            carries = t2 < T and starts[t2] == end and (t2, hyp_end) in starts_at
            self.next_last[i] = hyp_end if carries else -1
        self.layers: list[dict[tuple[int, int], list[object]]] = []


class Info:
    """Per-candidate data of the non-fixed candidates, indexed like ``candidates``."""

    def __init__(self, candidates: Sequence[Match], weights: Sequence[int]) -> None:
        self.rs = [m[0] for m in candidates]
        self.rl = [m[1] for m in candidates]
        self.hs = [m[2] for m in candidates]
        self.hl = [m[3] for m in candidates]
        self.hmask = [((1 << m[3]) - 1) << m[2] for m in candidates]
        self.gain: list[Value] = [(0, 0, 0)] * len(candidates)
        self.weights = weights
        self.states = 0
        self.max_states = 0
        self.work = 0
        self.max_work = 0
        self.width = 1  # 64-bit words per bitset of the group being solved (see spend)

    def spend(self, units: int) -> None:
        """Count work; past the budget the search gives up like past the state bound."""
        self.work += units
        if self.work > self.max_work:
            raise TooManyStates


def solve(candidates: Sequence[Match], fixed: list[int], amb: list[int], info: Info) -> list[int]:
    """The non-fixed candidates of an optimal alignment."""
    fixed_ends = {(info.rs[f] + info.rl[f], info.hs[f] + info.hl[f]) for f in fixed}
    fixed_starts = {(info.rs[f], info.hs[f]) for f in fixed}
    for i in amb:
        rs, rl, hs, hl, stage = candidates[i]
        saved = ((rs, hs) in fixed_ends) + ((rs + rl, hs + hl) in fixed_starts)
        info.gain[i] = (info.weights[stage] * (hl + rl), saved - 1, -abs(rs - hs))

    # Components: candidates linked by a shared hypothesis or reference word.
    parent = {i: i for i in amb}

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(a: int, b: int) -> None:
        a, b = find(a), find(b)
        if a != b:
            parent[max(a, b)] = min(a, b)

    first_on: dict[tuple[int, int], int] = {}
    for i in amb:
        for k in range(info.hs[i], info.hs[i] + info.hl[i]):
            union(first_on.setdefault((0, k), i), i)
        for k in range(info.rs[i], info.rs[i] + info.rl[i]):
            union(first_on.setdefault((1, k), i), i)
    comp = {i: find(i) for i in amb}
    # Interactions: a candidate that ends where one of another component starts.
    ending: dict[tuple[int, int], list[int]] = {}
    for i in amb:
        ending.setdefault((info.rs[i] + info.rl[i], info.hs[i] + info.hl[i]), []).append(i)
    cross: list[tuple[int, int]] = []
    group_parent = {c: c for c in comp.values()}

    def find_group(x: int) -> int:
        while group_parent[x] != x:
            x = group_parent[x]
        return x

    for k in amb:
        for i in ending.get((info.rs[k], info.hs[k]), ()):
            if comp[i] != comp[k]:
                cross.append((i, k))
                a, b = find_group(comp[i]), find_group(comp[k])
                if a != b:
                    group_parent[max(a, b)] = min(a, b)
    groups: dict[int, list[int]] = {}
    for i in amb:
        groups.setdefault(find_group(comp[i]), []).append(i)

    chosen: list[int] = []
    for members in groups.values():
        words = {k for i in members for k in range(info.hs[i], info.hs[i] + info.hl[i])}
        info.width = (len(words) + 63) // 64
        comps: dict[int, list[int]] = {}
        for i in members:
            comps.setdefault(comp[i], []).append(i)
        if len(comps) == 1:
            chosen.extend(_best_path(_forward(_Walk(members, info), info, None)))
            continue
        # Solve each component alone, keeping every state's best value to go.
        comp_walks: list[tuple[int, _Walk]] = []
        lower: list[int] = []
        for c, cm in comps.items():
            walk = _forward(_Walk(cm, info), info, None)
            _backward(walk, info)
            comp_walks.append((c, walk))
            lower.extend(_best_path(walk))
        bound = _value(lower, info)
        group_cross = [(i, k) for i, k in cross if comp[i] in comps]
        walk = _Walk(members, info)
        chosen.extend(
            _best_path(
                _forward(walk, info, _Heuristic(walk, comp_walks, comp, group_cross, bound, info))
            )
        )
    return chosen


class _Heuristic:
    """Upper bound on the value a group walk can still add (branch and bound)."""

    def __init__(
        self,
        walk: _Walk,
        comp_walks: list[tuple[int, _Walk]],
        comp: dict[int, int],
        cross: list[tuple[int, int]],
        bound: Value,
        info: Info,
    ) -> None:
        self.bound = bound
        self.comp = comp
        self.comp_walks = comp_walks
        T = len(walk.pos)
        # For every group position t: each component's next position index (or None).
        self.next_in: list[list[int]] = []
        for t in range(T + 1):
            p = walk.pos[t] if t < T else -1
            row = [bisect_left(cw.pos, p) if t < T else len(cw.pos) for _, cw in comp_walks]
            self.next_in.append(row)
        by_b: dict[int, list[tuple[int, int]]] = {}
        for i, k in cross:
            by_b.setdefault(info.rs[k], []).append((i, k))
        self.boundaries = sorted(by_b.items())
        self.info = info
        self.walk = walk

    def __call__(self, t: int, used: int, last: int, taken: int) -> Value | None:
        """Best-case value still reachable from group state (t, used, last).

        ``taken`` is the candidate that produced ``last`` (-1 if none). None if a
        component state is unknown (the caller then keeps the state).
        """
        walk = self.walk
        T = len(walk.pos)
        p = walk.pos[t] if t < T else -1
        cov = neg_chunks = neg_dist = 0
        taken_comp = self.comp[taken] if taken >= 0 else -1
        for (c, cw), s in zip(self.comp_walks, self.next_in[t], strict=True):
            if s == len(cw.pos):
                continue
            lc = last if cw.pos[s] == p and taken_comp == c else -1
            entry = cw.layers[s].get((used & cw.rel[s], lc))
            if entry is None:
                return None
            h: Value = entry[2]  # type: ignore[assignment]
            cov += h[0]
            neg_chunks += h[1]
            neg_dist += h[2]
        hmask = self.info.hmask
        hs = self.info.hs
        for b, pairs in self.boundaries:
            if t == T or b < p:
                continue
            if b == p:
                if last != -1 and any(hs[k] == last and not used & hmask[k] for _, k in pairs):
                    neg_chunks += 1
            elif any(not used & (hmask[i] | hmask[k]) for i, k in pairs):
                neg_chunks += 1
        return (cov, neg_chunks, neg_dist)


def _forward(walk: _Walk, info: Info, heuristic: _Heuristic | None) -> _Walk:
    """Fill ``walk.layers``: state (used, last) -> [value, (candidate, back), h]."""
    T = len(walk.pos)
    layers: list[dict[tuple[int, int], list[object]]] = [{} for _ in range(T + 1)]
    layers[0][(0, -1)] = [(0, 0, 0), None, None]
    info.states += 1
    if info.states > info.max_states:
        raise TooManyStates
    rel = walk.rel
    gain = info.gain
    hmask = info.hmask
    hs = info.hs
    bound = heuristic.bound if heuristic is not None else None
    for t in range(T):
        for (used, last), entry in layers[t].items():
            value: Value = entry[0]  # type: ignore[assignment]
            back = entry[1]
            moves: list[tuple[int, int, int, int, Value]] = [(-1, t + 1, used, -1, value)]
            for i in walk.by[t]:
                hm = hmask[i]
                if used & hm:
                    continue
                g = gain[i]
                moves.append(
                    (
                        i,
                        walk.next_t[i],
                        used | hm,
                        walk.next_last[i],
                        (value[0] + g[0], value[1] + g[1] + (hs[i] == last), value[2] + g[2]),
                    )
                )
            for i, t2, used2, last2, new in moves:
                info.spend(info.width)
                key = (used2 & rel[t2], last2)
                layer = layers[t2]
                old = layer.get(key)
                if old is not None and not new > old[0]:  # type: ignore[operator]
                    continue
                if heuristic is not None:
                    info.spend(info.width * len(heuristic.comp_walks))
                    h = heuristic(t2, used2, last2, i if last2 != -1 else -1)
                    if h is not None and (new[0] + h[0], new[1] + h[1], new[2] + h[2]) < bound:  # type: ignore[operator]
                        continue
                if old is None:
                    info.states += 1
                    if info.states > info.max_states:
                        raise TooManyStates
                    layer[key] = [new, (i, back) if i >= 0 else back, None]
                else:
                    old[0] = new
                    old[1] = (i, back) if i >= 0 else back
    walk.layers = layers
    return walk


def _backward(walk: _Walk, info: Info) -> None:
    """Store in every state the best value still reachable from it (exact)."""
    T = len(walk.pos)
    layers = walk.layers
    for entry in layers[T].values():
        entry[2] = (0, 0, 0)
    for t in range(T - 1, -1, -1):
        for (used, last), entry in layers[t].items():
            info.spend(info.width)
            best = layers[t + 1][(used & walk.rel[t + 1], -1)][2]
            for i in walk.by[t]:
                if used & info.hmask[i]:
                    continue
                info.spend(info.width)
                t2 = walk.next_t[i]
                h = layers[t2][((used | info.hmask[i]) & walk.rel[t2], walk.next_last[i])][2]
                g = info.gain[i]
                v = (h[0] + g[0], h[1] + g[1] + (info.hs[i] == last), h[2] + g[2])  # type: ignore[index]
                if v > best:  # type: ignore[operator]
                    best = v
            entry[2] = best


def _best_path(walk: _Walk) -> list[int]:
    """Candidates of the best final state (the final layer has a single state)."""
    (entry,) = walk.layers[len(walk.pos)].values()
    chosen: list[int] = []
    node = entry[1]
    while node is not None:
        i: int
        i, node = node  # type: ignore[misc]
        chosen.append(i)
    return chosen


def _value(chosen: list[int], info: Info) -> Value:
    """Objective value of a set of non-fixed candidates (fixed ones add a constant)."""
    ends = {(info.rs[i] + info.rl[i], info.hs[i] + info.hl[i]) for i in chosen}
    cov = neg_chunks = neg_dist = 0
    for i in chosen:
        g = info.gain[i]
        cov += g[0]
        neg_chunks += g[1] + ((info.rs[i], info.hs[i]) in ends)
        neg_dist += g[2]
    return (cov, neg_chunks, neg_dist)
