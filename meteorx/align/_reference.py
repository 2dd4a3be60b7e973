"""The original pure-Python aligners, kept as the specification the fast ones must match.

``ReferenceMeteor15Aligner`` is the straightforward transcription of Meteor 1.5's beam
search; ``ReferenceOptimalAligner`` is the first exact dynamic programme (one walk over
all reference positions, state = hypothesis words used and the previous match's end).
Both are slow (milliseconds per sentence) and are used only by the equivalence tests and
as the path taken for malformed input. Do not optimise them: their value is that they are
simple enough to check by reading.
"""

from __future__ import annotations

from collections.abc import Sequence

from meteorx.align.common import bucket_by_ref, isolated_matches, span_mask
from meteorx.types import Alignment, Match, count_chunks

# Path fields (a list, mutated in place like the Java objects it mirrors).
_COVER, _CHUNKS, _DIST, _IDX, _LAST, _USED_HYP, _USED_REF, _CHOSEN = range(8)


def _rank(path: list[object]) -> tuple[int, int, int]:
    return (-path[_COVER], path[_CHUNKS], path[_DIST])  # type: ignore[operator,return-value]


class ReferenceMeteor15Aligner:
    """Meteor 1.5's beam search (see the module docstring)."""

    def __init__(self, beam_size: int = 40) -> None:
        self.beam_size = beam_size

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
        buckets = bucket_by_ref(candidates, ref_len)
        fixed = isolated_matches(candidates, buckets, hyp_len, ref_len)
        if len(fixed) == len(candidates):
            matches = tuple(fixed[j] for j in sorted(fixed))
            return Alignment(matches, count_chunks(matches))

        def gain(m: Match) -> int:
            if m.stage in exact_stages:
                return m.hyp_len + m.ref_len
            return m.hyp_len // 2 + m.ref_len // 2

        used_hyp = 0
        used_ref = 0
        for m in fixed.values():
            used_hyp |= span_mask(m.hyp_start, m.hyp_len)
            used_ref |= span_mask(m.ref_start, m.ref_len)
        beam = self.beam_size
        paths: list[list[object]] = [[0, 0, 0, 0, -1, used_hyp, used_ref, None]]
        for current in range(ref_len + 1):
            paths.sort(key=_rank)
            next_paths: list[list[object]] = []
            for path in paths[:beam]:
                last = path[_LAST]
                if current == ref_len:
                    if last != -1:
                        path[_CHUNKS] += 1  # type: ignore[operator]
                    next_paths.append(path)
                    continue
                if path[_USED_REF] >> current & 1:  # type: ignore[operator]
                    if current < path[_IDX]:  # type: ignore[operator]
                        next_paths.append(path)
                        continue
                    fm = fixed.get(current)
                    if fm is None:
                        continue
                    path[_COVER] += gain(fm)  # type: ignore[operator]
                    if last != -1 and fm.hyp_start != last:
                        path[_CHUNKS] += 1  # type: ignore[operator]
                    path[_IDX] = fm.ref_start + fm.ref_len
                    path[_LAST] = fm.hyp_start + fm.hyp_len
                    path[_DIST] += abs(fm.ref_start - fm.hyp_start)  # type: ignore[operator]
                    path[_CHOSEN] = (fm, path[_CHOSEN])
                    next_paths.append(path)
                    continue
                for m in buckets[current]:
                    hmask = span_mask(m.hyp_start, m.hyp_len)
                    rmask = span_mask(m.ref_start, m.ref_len)
                    if path[_USED_HYP] & hmask or path[_USED_REF] & rmask:  # type: ignore[operator]
                        continue
                    new = path.copy()
                    new[_USED_HYP] = path[_USED_HYP] | hmask  # type: ignore[operator]
                    new[_USED_REF] = path[_USED_REF] | rmask  # type: ignore[operator]
                    new[_COVER] = path[_COVER] + gain(m)  # type: ignore[operator]
                    if last != -1 and m.hyp_start != last:
                        new[_CHUNKS] = path[_CHUNKS] + 1  # type: ignore[operator]
                    new[_IDX] = m.ref_start + m.ref_len
                    new[_LAST] = m.hyp_start + m.hyp_len
                    new[_CHOSEN] = (m, path[_CHOSEN])
                    path[_DIST] += abs(m.ref_start - m.hyp_start)  # type: ignore[operator]
                    next_paths.append(new)
                if last != -1:
                    path[_CHUNKS] += 1  # type: ignore[operator]
                    path[_LAST] = -1
                path[_IDX] = current + 1
                next_paths.append(path)
            if not next_paths:
                next_paths.append(paths[0])
            paths = next_paths
        paths.sort(key=_rank)
        chosen: list[Match] = []
        node = paths[0][_CHOSEN]
        while node is not None:
            m, node = node  # type: ignore[misc]
            chosen.append(m)
        chosen.sort()
        matches = tuple(chosen)
        return Alignment(matches, count_chunks(matches))


_SCALE = 1_000_000


class ReferenceOptimalAligner:
    """Exact search with a documented state bound (see the module docstring)."""

    def __init__(self, max_states: int = 20000) -> None:
        self.max_states = max_states

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
        buckets = bucket_by_ref(candidates, ref_len)
        fixed = {
            j: m
            for j, m in isolated_matches(candidates, buckets, hyp_len, ref_len).items()
            if int_weights[m.stage] > 0
        }
        if len(fixed) == len(candidates):
            matches = tuple(fixed[j] for j in sorted(fixed))
            return Alignment(matches, count_chunks(matches))
        result = self._search(buckets, fixed, int_weights, ref_len)
        if result is None:
            return _greedy(buckets, fixed, int_weights, ref_len)
        return result

    def _search(
        self,
        buckets: list[list[Match]],
        fixed: dict[int, Match],
        weights: list[int],
        ref_len: int,
    ) -> Alignment | None:
        # Hypothesis words that ambiguous candidates at reference position >= j can use.
        relevant = [0] * (ref_len + 1)
        for j in range(ref_len - 1, -1, -1):
            mask = relevant[j + 1]
            if j not in fixed:
                for m in buckets[j]:
                    mask |= span_mask(m.hyp_start, m.hyp_len)
            relevant[j] = mask
        # Hypothesis starts a match at j could have (to normalise "previous end").
        starts = [
            {fixed[j].hyp_start} if j in fixed else {m.hyp_start for m in buckets[j]}
            for j in range(ref_len)
        ]

        # layers[j]: state (used, last_end) -> (value, back-pointer).
        # value = (coverage, -chunks, -distance); back-pointer = (match, parent) list.
        Value = tuple[int, int, int]
        layers: list[dict[tuple[int, int], tuple[Value, object]]] = [{} for _ in range(ref_len + 1)]
        layers[0][(0, -1)] = ((0, 0, 0), None)
        states = 1

        def push(j: int, used: int, last: int, value: Value, back: object) -> None:
            nonlocal states
            if j < ref_len and last not in starts[j]:
                last = -1
            key = (used & relevant[j], last)
            layer = layers[j]
            old = layer.get(key)
            if old is None:
                states += 1
                layer[key] = (value, back)
            elif value > old[0]:
                layer[key] = (value, back)

        for j in range(ref_len):
            layer = layers[j]
            if not layer:
                continue
            if states > self.max_states:
                return None
            fixed_match = fixed.get(j)
            for (used, last), (value, back) in layer.items():
                cover, neg_chunks, neg_dist = value
                if fixed_match is not None:
                    options: Sequence[Match] = (fixed_match,)
                else:
                    options = buckets[j]
                    # Skipping this reference word.
                    push(j + 1, used, -1, value, back)
                for m in options:
                    hmask = span_mask(m.hyp_start, m.hyp_len)
                    if used & hmask:
                        continue
                    new_value = (
                        cover + weights[m.stage] * (m.hyp_len + m.ref_len),
                        neg_chunks - (0 if m.hyp_start == last else 1),
                        neg_dist - abs(m.ref_start - m.hyp_start),
                    )
                    push(j + m.ref_len, used | hmask, m.hyp_start + m.hyp_len, new_value, (m, back))
            layers[j] = {}  # free memory as we go
        final = layers[ref_len]
        best_value, best_back = max(final.values(), key=lambda item: item[0])
        del best_value
        chosen: list[Match] = []
        node = best_back
        while node is not None:
            m, node = node  # type: ignore[misc]
            chosen.append(m)
        chosen.reverse()
        matches = tuple(chosen)
        return Alignment(matches, count_chunks(matches))


def _greedy(
    buckets: list[list[Match]], fixed: dict[int, Match], weights: list[int], ref_len: int
) -> Alignment:
    """Left-to-right greedy fallback for inputs past the state bound."""
    used = 0
    last = -1
    chosen: list[Match] = []
    j = 0
    while j < ref_len:
        best: Match | None = fixed.get(j)
        if best is None:
            best_key: tuple[int, int, int] | None = None
            for m in buckets[j]:
                if used & span_mask(m.hyp_start, m.hyp_len):
                    continue
                key = (
                    weights[m.stage] * (m.hyp_len + m.ref_len),
                    1 if m.hyp_start == last else 0,
                    -abs(m.ref_start - m.hyp_start),
                )
                if best_key is None or key > best_key:
                    best, best_key = m, key
        if best is None or used & span_mask(best.hyp_start, best.hyp_len):
            last = -1
            j += 1
            continue
        chosen.append(best)
        used |= span_mask(best.hyp_start, best.hyp_len)
        last = best.hyp_start + best.hyp_len
        j += best.ref_len
    matches = tuple(chosen)
    return Alignment(matches, count_chunks(matches), optimal=False)
