"""The integer-programming fallback of the optimal aligner is exact (vs brute force)."""

from __future__ import annotations

import sys
import warnings
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from meteorx.align.ilp import solve_ilp
from meteorx.align.optimal import OptimalAligner, OptimalOptions
from meteorx.errors import MeteorxWarning
from meteorx.types import Match, count_chunks

WEIGHTS = [1_000_000, 600_000]


def objective(matches: list[Match]) -> tuple[int, int, int]:
    ordered = sorted(matches)
    cover = sum(WEIGHTS[m.stage] * (m.hyp_len + m.ref_len) for m in ordered)
    dist = sum(abs(m.ref_start - m.hyp_start) for m in ordered)
    return cover, -count_chunks(ordered), -dist


def consistent(matches: tuple[Match, ...]) -> bool:
    hyp: set[int] = set()
    ref: set[int] = set()
    for m in matches:
        hs = set(range(m.hyp_start, m.hyp_start + m.hyp_len))
        rs = set(range(m.ref_start, m.ref_start + m.ref_len))
        if hs & hyp or rs & ref:
            return False
        hyp |= hs
        ref |= rs
    return True


def brute_force(candidates: list[Match]) -> tuple[int, int, int]:
    best = (0, 0, 0)
    for k in range(1, len(candidates) + 1):
        for subset in combinations(candidates, k):
            if consistent(subset):
                best = max(best, objective(list(subset)))
    return best


@st.composite
def problems(draw: st.DrawFn) -> tuple[list[Match], int, int]:
    hyp_len = draw(st.integers(1, 6))
    ref_len = draw(st.integers(1, 6))
    cands = set()
    for _ in range(draw(st.integers(1, 9))):
        hl = draw(st.integers(1, 2))
        rl = draw(st.integers(1, 2))
        h = draw(st.integers(0, max(0, hyp_len - hl)))
        r = draw(st.integers(0, max(0, ref_len - rl)))
        if h + hl <= hyp_len and r + rl <= ref_len:
            cands.add(Match(r, rl, h, hl, draw(st.integers(0, 1))))
    return sorted(cands, key=lambda m: (m.stage, m.ref_start, m.hyp_start)), hyp_len, ref_len


@settings(max_examples=300, deadline=None)
@given(problems())
def test_ilp_is_optimal(problem: tuple[list[Match], int, int]) -> None:
    candidates, hyp_len, ref_len = problem
    chosen = solve_ilp(candidates, hyp_len, ref_len, WEIGHTS)
    assert chosen is not None
    assert consistent(tuple(chosen))
    assert objective(chosen) == brute_force(candidates)


@settings(max_examples=300, deadline=None)
@given(problems())
def test_dp_and_ilp_agree(problem: tuple[list[Match], int, int]) -> None:
    candidates, hyp_len, ref_len = problem
    dp = OptimalAligner().align(candidates, hyp_len, ref_len, [1.0, 0.6])
    chosen = solve_ilp(candidates, hyp_len, ref_len, WEIGHTS)
    assert chosen is not None
    assert objective(list(dp.matches)) == objective(chosen)


def test_without_scipy_the_fallback_warns_naming_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """SciPy is optional (the ``ilp`` extra): without it, the aligner keeps its greedy
    result for inputs past the state bound, says so once, and marks it non-optimal."""
    from meteorx.align import ilp

    for name in ("scipy", "scipy.optimize", "scipy.sparse"):
        monkeypatch.setitem(sys.modules, name, None)  # import fails as if not installed
    ilp._warn_no_scipy.cache_clear()
    candidates = [Match(0, 1, 0, 1, 0), Match(0, 1, 1, 1, 0)]
    with pytest.warns(MeteorxWarning, match=r"needs SciPy \(pip install scipy, "):
        assert solve_ilp(candidates, 2, 1, WEIGHTS) is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert solve_ilp(candidates, 2, 1, WEIGHTS) is None  # warned once per process
    # Past the bound, the aligner's answer is the greedy one, flagged.
    repeats = [Match(j, 1, i, 1, 0) for i in range(40) for j in range(40)]
    result = OptimalAligner(OptimalOptions(max_states=10)).align(repeats, 40, 40, [1.0])
    assert result.optimal is False and len(result.matches) == 40
    ilp._warn_no_scipy.cache_clear()
