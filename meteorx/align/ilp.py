"""Exact alignment by integer linear programming, for inputs the DP cannot enumerate.

The optimal aligner's dynamic programme is exact but its state space grows with the
number of interchangeable candidates (sentences with many repeats of "the", "of", ",").
Past its state bound it hands the problem here: the same lexicographic objective,
solved exactly with the HiGHS mixed-integer solver (via SciPy, the optional ``ilp``
extra: without it these inputs keep the greedy result, with a warning) in three steps —
maximise coverage; then, with coverage fixed at its optimum, minimise chunks; then,
with both fixed, minimise distance.

Formulation: a binary ``x_c`` per candidate (at most one candidate per hypothesis word
and per reference word), and a binary ``y_cd`` per pair of candidates where ``d``
continues ``c`` (adjacent on both sides), with ``y_cd <= x_c`` and ``y_cd <= x_d``.
Each chosen link has at most one chosen predecessor, so chunks = sum(x) - sum(y).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from functools import cache

from meteorx.errors import MeteorxWarning
from meteorx.types import Match

# Above this many candidates the exact solver is not attempted (the caller falls back).
MAX_ILP_CANDIDATES = 4000

# meteorx is installed from a checkout or a built wheel: SciPy alone is the "ilp" extra.
INSTALL_HINT = 'pip install scipy, or pip install ".[ilp]" in a checkout of meteorx'


@cache
def _warn_no_scipy() -> None:
    """Once per process: the exact fallback needs SciPy, an optional dependency (it is
    large, ~100 MB, and only pathological inputs reach this fallback)."""
    warnings.warn(
        "the optimal aligner's search reached its state bound and its exact fallback "
        f"needs SciPy ({INSTALL_HINT}); such alignments are greedy, marked optimal=False",
        MeteorxWarning,
        stacklevel=4,
    )


def solve_ilp(
    candidates: Sequence[Match], hyp_len: int, ref_len: int, weights: Sequence[int]
) -> list[Match] | None:
    """The optimal set of matches, or None if SciPy is missing (warned once) or the
    problem too big."""
    n = len(candidates)
    if n == 0:
        return []
    if n > MAX_ILP_CANDIDATES:
        return None
    try:
        import numpy as np
        from scipy.optimize import Bounds, LinearConstraint, milp
        from scipy.sparse import coo_matrix
    except ImportError:
        _warn_no_scipy()
        return None

    by_ref_start: dict[tuple[int, int], list[int]] = {}
    for k, m in enumerate(candidates):
        by_ref_start.setdefault((m.ref_start, m.hyp_start), []).append(k)
    pairs: list[tuple[int, int]] = []
    for c, m in enumerate(candidates):
        for d in by_ref_start.get((m.ref_start + m.ref_len, m.hyp_start + m.hyp_len), ()):
            pairs.append((c, d))
    n_y = len(pairs)
    n_vars = n + n_y

    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    upper: list[float] = []
    row = 0
    # One link per hypothesis word and per reference word.
    for length, side in ((hyp_len, "hyp"), (ref_len, "ref")):
        members: list[list[int]] = [[] for _ in range(length)]
        for k, m in enumerate(candidates):
            start, span = (m.hyp_start, m.hyp_len) if side == "hyp" else (m.ref_start, m.ref_len)
            for pos in range(start, start + span):
                members[pos].append(k)
        for ks in members:
            if len(ks) > 1:
                for k in ks:
                    rows.append(row)
                    cols.append(k)
                    vals.append(1.0)
                upper.append(1.0)
                row += 1
    # y_cd <= x_c and y_cd <= x_d.
    for p, (c, d) in enumerate(pairs):
        for member in (c, d):
            rows += [row, row]
            cols += [n + p, member]
            vals += [1.0, -1.0]
            upper.append(0.0)
            row += 1

    coverage = np.zeros(n_vars)
    chunks = np.zeros(n_vars)
    distance = np.zeros(n_vars)
    for k, m in enumerate(candidates):
        coverage[k] = weights[m.stage] * (m.hyp_len + m.ref_len)
        chunks[k] = 1.0
        distance[k] = abs(m.ref_start - m.hyp_start)
    chunks[n:] = -1.0

    constraints = []
    if row:
        a = coo_matrix((vals, (rows, cols)), shape=(row, n_vars)).tocsr()
        constraints.append(LinearConstraint(a, -np.inf, np.array(upper)))
    integrality = np.ones(n_vars)
    bounds = Bounds(0, 1)

    # One solve with a combined objective when the lexicographic weights fit exactly in
    # a double; otherwise three solves, each fixing the previous optimum.
    unit = 0
    for k in range(n):
        unit = math.gcd(unit, int(coverage[k]))
    cover_units = coverage / max(unit, 1)
    d_scale = float(distance.sum()) + 1.0
    c_scale = (float(n) + 1.0) * d_scale
    options = {"mip_rel_gap": 0.0, "presolve": True}

    def solve(objective: np.ndarray, extra: list[LinearConstraint]) -> np.ndarray | None:
        res = milp(
            objective,
            constraints=constraints + extra,
            integrality=integrality,
            bounds=bounds,
            options=options,
        )
        return None if res.x is None else np.round(res.x)

    if float(cover_units.sum()) * c_scale < 2.0**50:
        x = solve(-cover_units * c_scale + chunks * d_scale + distance, [])
        if x is None:
            return None
    else:
        x = solve(-coverage, [])
        if x is None:
            return None
        best_cover = float(coverage @ x)
        keep_cover = LinearConstraint(coverage.reshape(1, -1), best_cover - 0.5, np.inf)
        x = solve(chunks, [keep_cover])
        if x is None:
            return None
        best_chunks = float(chunks @ x)
        keep_chunks = LinearConstraint(chunks.reshape(1, -1), -np.inf, best_chunks + 0.5)
        x2 = solve(distance, [keep_cover, keep_chunks])
        if x2 is not None:
            x = x2
    return sorted(candidates[k] for k in range(n) if x[k] > 0.5)
