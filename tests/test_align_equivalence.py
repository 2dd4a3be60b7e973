"""The fast aligners against their specification.

* ``Meteor15Aligner`` (C extension and pure-Python twin) must return exactly what the
  plain transcription of Meteor 1.5's beam search returns (``_reference``): same
  matches, same chunks, on every input.
* ``OptimalAligner``'s C extension and pure-Python twin must agree exactly with each
  other, and their alignment must be optimal: the same objective value as the original
  exact search (run without a state bound) and as a brute force over every valid
  alignment of tiny inputs. (Which of several equally good alignments is returned may
  differ from the original search; see the module docstring of ``optimal``.)
* Past the state bound both fall back to the same greedy search.
* Pathological input (hundreds of repeats of one word) returns quickly.

Inputs are random candidate sets over small sentences: word-built ones (exact links
between equal tokens, "stem" links within a token class, a few phrase links), which
give the dense many-to-many conflicts of real sentences, and free-form random spans.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence
from typing import TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from meteorx import engine
from meteorx.align import optimal as opt
from meteorx.align._reference import ReferenceMeteor15Aligner, ReferenceOptimalAligner
from meteorx.align.meteor15 import Meteor15Aligner, Meteor15Options
from meteorx.align.optimal import OptimalAligner
from meteorx.types import Alignment, Match, count_chunks

pytestmark = pytest.mark.slow  # thousands of hypothesis cases: minutes

FAST = engine.compiled("meteorx.align._fast")
needs_fast = pytest.mark.skipif(FAST is None, reason="C extension meteorx.align._fast not built")
SCALE = 1_000_000


def _meteor15(beam: int) -> Meteor15Aligner:
    return Meteor15Aligner(Meteor15Options(beam_size=beam))


Aligner = TypeVar("Aligner", Meteor15Aligner, OptimalAligner)
Case = tuple[list[Match], int, int, list[float], frozenset[int]]


# -- input generators ---------------------------------------------------------------------


@st.composite
def word_cases(draw: st.DrawFn, max_len: int = 9) -> Case:
    """Candidates of a 3-stage pipeline over random sentences from a tiny vocabulary."""
    vocab = "aabbcdde"  # letters = tokens; a token's class is its letter pair (stems)
    hyp = draw(st.lists(st.sampled_from(vocab), min_size=1, max_size=max_len))
    ref = draw(st.lists(st.sampled_from(vocab), min_size=1, max_size=max_len))
    stem = {"a": "x", "b": "x", "c": "y", "d": "y", "e": "z"}
    cands: list[Match] = []
    for j, r in enumerate(ref):  # stage 0: exact
        for i, h in enumerate(hyp):
            if r == h:
                cands.append(Match(j, 1, i, 1, 0))
    for j, r in enumerate(ref):  # stage 1: same class, different token
        for i, h in enumerate(hyp):
            if r != h and stem[r] == stem[h]:
                cands.append(Match(j, 1, i, 1, 1))
    # stage 2: a few phrase links (paraphrase-like), possibly overlapping others
    n_phrases = draw(st.integers(0, 3))
    for _ in range(n_phrases):
        rl = draw(st.integers(1, min(3, len(ref))))
        hl = draw(st.integers(1, min(3, len(hyp))))
        rs = draw(st.integers(0, len(ref) - rl))
        hs = draw(st.integers(0, len(hyp) - hl))
        cands.append(Match(rs, rl, hs, hl, 2))
    cands.sort(key=lambda m: (m.stage, m.ref_start, m.hyp_start, m.ref_len, m.hyp_len))
    weights = [1.0, draw(st.sampled_from([0.5, 0.6, 1.0, 0.0])), draw(st.sampled_from([0.6, 0.8]))]
    exact = frozenset(draw(st.sets(st.integers(0, 2), max_size=3)) | {0})
    return cands, len(hyp), len(ref), weights, exact


@st.composite
def span_cases(draw: st.DrawFn, max_len: int = 7, max_cands: int = 12) -> Case:
    """Free-form random spans (any lengths, overlaps, duplicates, stages)."""
    hyp_len = draw(st.integers(1, max_len))
    ref_len = draw(st.integers(1, max_len))
    n = draw(st.integers(1, max_cands))
    cands = []
    for _ in range(n):
        rl = draw(st.integers(1, min(2, ref_len)))
        hl = draw(st.integers(1, min(2, hyp_len)))
        rs = draw(st.integers(0, ref_len - rl))
        hs = draw(st.integers(0, hyp_len - hl))
        cands.append(Match(rs, rl, hs, hl, draw(st.integers(0, 2))))
    cands.sort(key=lambda m: (m.stage, m.ref_start, m.hyp_start, m.ref_len, m.hyp_len))
    weights = [1.0, draw(st.sampled_from([0.5, 0.0, 1.0])), draw(st.sampled_from([0.6, 0.25]))]
    exact = frozenset(draw(st.sets(st.integers(0, 2), max_size=3)))
    return cands, hyp_len, ref_len, weights, exact


cases = st.one_of(word_cases(), span_cases())
SETTINGS = settings(max_examples=2500, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def same(a: Alignment, b: Alignment) -> bool:
    return a.matches == b.matches and a.chunks == b.chunks and a.optimal == b.optimal


def objective(al: Alignment, weights: Sequence[float]) -> tuple[int, int, int]:
    iw = [round(w * SCALE) for w in weights]
    return (
        sum(iw[m.stage] * (m.hyp_len + m.ref_len) for m in al.matches),
        -al.chunks,
        -sum(abs(m.ref_start - m.hyp_start) for m in al.matches),
    )


def python_twin(make: Callable[[], Aligner]) -> Aligner:
    """The aligner ``make`` builds, built on the pure-Python engine."""
    with engine.use("python"):
        return make()


# -- Meteor 1.5 beam search ---------------------------------------------------------------


@SETTINGS
@given(cases, st.sampled_from([1, 2, 3, 40]))
def test_meteor15_equals_reference(case: Case, beam: int) -> None:
    cands, hyp_len, ref_len, weights, exact = case
    expected = ReferenceMeteor15Aligner(beam).align(cands, hyp_len, ref_len, weights, exact)
    aligner = _meteor15(beam)
    got = aligner.align(cands, hyp_len, ref_len, weights, exact)
    assert same(got, expected)
    twin = python_twin(lambda: _meteor15(beam)).align(cands, hyp_len, ref_len, weights, exact)
    assert same(twin, expected)


@needs_fast
@settings(max_examples=300, deadline=None)
@given(word_cases(max_len=40), st.sampled_from([2, 5, 40]))
def test_meteor15_longer_sentences(case: Case, beam: int) -> None:
    """Longer inputs exercise beam truncation (the bounded heap) in the C version."""
    cands, hyp_len, ref_len, weights, exact = case
    expected = ReferenceMeteor15Aligner(beam).align(cands, hyp_len, ref_len, weights, exact)
    got = _meteor15(beam).align(cands, hyp_len, ref_len, weights, exact)
    assert same(got, expected)


def test_meteor15_hand_examples() -> None:
    """The slip, the chunk count on close, and fixed candidates, on a sentence pair."""
    # ref: the cat sat on the mat / hyp: the mat the cat sat
    cands = [
        Match(0, 1, 0, 1, 0),
        Match(0, 1, 2, 1, 0),
        Match(1, 1, 3, 1, 0),
        Match(2, 1, 4, 1, 0),
        Match(4, 1, 0, 1, 0),
        Match(4, 1, 2, 1, 0),
        Match(5, 1, 1, 1, 0),
    ]
    args = (cands, 5, 6, [1.0], frozenset({0}))
    expected = ReferenceMeteor15Aligner().align(*args)
    assert same(Meteor15Aligner().align(*args), expected)
    assert expected.matches == (
        Match(0, 1, 2, 1, 0),
        Match(1, 1, 3, 1, 0),
        Match(2, 1, 4, 1, 0),
        Match(4, 1, 0, 1, 0),
        Match(5, 1, 1, 1, 0),
    )
    assert expected.chunks == 2


# -- exact search -------------------------------------------------------------------------


def brute_force(case: Case) -> tuple[int, int, int]:
    """Best objective over every set of candidates that share no word."""
    cands, _, _, weights, _ = case
    best = (0, 0, 0)
    for r in range(1, len(cands) + 1):
        for subset in itertools.combinations(cands, r):
            hyp: set[int] = set()
            ref: set[int] = set()
            ok = True
            for m in subset:
                h = set(range(m.hyp_start, m.hyp_start + m.hyp_len))
                f = set(range(m.ref_start, m.ref_start + m.ref_len))
                if h & hyp or f & ref:
                    ok = False
                    break
                hyp |= h
                ref |= f
            if ok:
                matches = tuple(sorted(subset))
                value = objective(Alignment(matches, count_chunks(matches)), weights)
                best = max(best, value)
    return best


@SETTINGS
@given(cases)
def test_optimal_is_optimal_and_twins_agree(case: Case) -> None:
    cands, hyp_len, ref_len, weights, exact = case
    aligner = OptimalAligner()
    got = aligner.align(cands, hyp_len, ref_len, weights, exact)
    twin = python_twin(OptimalAligner).align(cands, hyp_len, ref_len, weights, exact)
    assert same(got, twin)
    assert got.optimal
    assert got.chunks == count_chunks(got.matches)
    assert list(got.matches) == sorted(got.matches)
    expected = ReferenceOptimalAligner(10**9).align(cands, hyp_len, ref_len, weights, exact)
    assert expected.optimal
    assert objective(got, weights) == objective(expected, weights)


@settings(max_examples=1500, deadline=None)
@given(st.one_of(word_cases(max_len=5), span_cases(max_len=5, max_cands=9)))
def test_optimal_matches_brute_force(case: Case) -> None:
    cands, hyp_len, ref_len, weights, exact = case
    if len(cands) > 11:
        return
    got = OptimalAligner().align(cands, hyp_len, ref_len, weights, exact)
    assert objective(got, weights) == brute_force(case)


@SETTINGS
@given(cases, st.integers(0, 6))
def test_optimal_state_bound_falls_back_like_reference(case: Case, max_states: int) -> None:
    """With no room at all, the search (both twins) runs the reference's greedy fallback.

    The search functions are called directly: what ``OptimalAligner.align`` does with a
    result flagged ``optimal=False`` is its own business.
    """
    cands, hyp_len, ref_len, weights, exact = case
    iw = [round(w * SCALE) for w in weights]
    expected = ReferenceOptimalAligner(0).align(cands, hyp_len, ref_len, weights, exact)
    searches = [opt.optimal_search] + ([FAST.optimal] if FAST is not None else [])
    for search in searches:
        result = search(cands, hyp_len, ref_len, iw, 0)
        assert result is not None
        chosen, chunks, optimal = result
        assert same(Alignment(tuple(cands[i] for i in chosen), chunks, optimal), expected)
    # Any bound: the C and Python twins agree on when to give up, and on the result.
    if FAST is not None:
        assert FAST.optimal(cands, hyp_len, ref_len, iw, max_states) == opt.optimal_search(
            cands, hyp_len, ref_len, iw, max_states
        )


@needs_fast
@settings(max_examples=150, deadline=None)
@given(word_cases(max_len=16))
def test_optimal_longer_sentences(case: Case) -> None:
    """Longer inputs: several interacting components (the branch and bound path)."""
    cands, hyp_len, ref_len, weights, exact = case
    aligner = OptimalAligner()
    got = aligner.align(cands, hyp_len, ref_len, weights, exact)
    twin = python_twin(OptimalAligner).align(cands, hyp_len, ref_len, weights, exact)
    assert same(got, twin)
    expected = ReferenceOptimalAligner(20000).align(cands, hyp_len, ref_len, weights, exact)
    if expected.optimal:
        assert got.optimal  # never gives up where the original search did not
        assert objective(got, weights) == objective(expected, weights)


# -- malformed and pathological input ----------------------------------------------------


@pytest.mark.parametrize("aligner", [Meteor15Aligner(), OptimalAligner()])
def test_malformed_spans_behave_like_reference(aligner: object) -> None:
    bad = [Match(0, 1, 0, 1, 0), Match(5, 1, 0, 1, 0)]  # reference start past the end
    reference = (
        ReferenceMeteor15Aligner()
        if isinstance(aligner, Meteor15Aligner)
        else ReferenceOptimalAligner()
    )
    with pytest.raises(IndexError):
        reference.align(bad, 2, 2, [1.0], frozenset({0}))
    with pytest.raises(IndexError):
        aligner.align(bad, 2, 2, [1.0], frozenset({0}))  # type: ignore[attr-defined]


@needs_fast
@pytest.mark.parametrize("aligner", [Meteor15Aligner(), OptimalAligner()])
def test_repeats_of_one_word_are_fast(aligner: Meteor15Aligner | OptimalAligner) -> None:
    n = 500
    cands = [Match(j, 1, i, 1, 0) for j in range(n) for i in range(n)]  # 250,000
    start = time.perf_counter()
    result = aligner.align(cands, n, n, [1.0], frozenset({0}))
    elapsed = time.perf_counter() - start
    assert elapsed < 2.0  # ~0.1 s on a loaded two-core machine
    assert result.matches == tuple(Match(j, 1, j, 1, 0) for j in range(n))
    assert result.chunks == 1
