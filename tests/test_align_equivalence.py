"""The alignment searches: compiled twins against their pure-Python definitions, and the
optimal search against an exhaustive oracle.

* ``Meteor15Aligner``: the C extension (``_fast.meteor15``) and the pure-Python twin
  (``meteor15.beam_search``) return the same matches and chunks on every input: random
  candidate sets, and every segment of both xray systems with the ``li`` preset's
  candidates. Hand-checked examples pin what the search decides.
* ``OptimalAligner``: the C extension (``_fast.optimal``) and the pure-Python twin
  (``optimal.optimal_search``) agree exactly (matches, chunks, optimality), with the
  default state bound and with a large one; and their alignment is optimal: it reaches
  the value that the exhaustive oracle of ``tests/_oracle.py`` finds, on random inputs and
  on every xray segment (both systems; the ``li`` and ``meteor-2005`` presets'
  candidates) whose parts the oracle can enumerate or walk within its budget. (Which of
  several equally good alignments is returned is the search's tie rule; see the module
  docstring of ``optimal``.)
* Past the state bound both twins fall back to the same greedy search.
* Malformed candidates raise an IndexError naming the candidate; pathological input
  (hundreds of repeats of one word) returns quickly.

Random inputs are candidate sets over small sentences: word-built ones (exact links
between equal tokens, "stem" links within a token class, a few phrase links), which
give the dense many-to-many conflicts of real sentences, and free-form random spans.
"""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from meteorx import engine
from meteorx.align import meteor15 as m15
from meteorx.align import optimal as opt
from meteorx.align.meteor15 import Meteor15Aligner, Meteor15Options
from meteorx.align.optimal import OptimalAligner, OptimalOptions
from meteorx.metric import Scorer
from meteorx.types import Alignment, Match, count_chunks
from tests import _oracle as oracle
from tests.conftest import require_wordnet

pytestmark = pytest.mark.slow  # thousands of hypothesis cases, every xray segment: minutes


def _compiled_searches() -> Any:
    """``meteorx.align._fast`` when it is built, whatever ``$METEORX_ENGINE`` says (the
    twins are compared in one process), else None."""
    try:
        with engine.use("c"):
            return engine.compiled("meteorx.align._fast")
    except engine.EngineError:
        return None


FAST = _compiled_searches()
needs_fast = pytest.mark.skipif(FAST is None, reason="C extension meteorx.align._fast not built")
DEFAULT_STATES = OptimalOptions().max_states
LARGE_STATES = 10**9


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


def python_twin(make: Callable[[], Aligner]) -> Aligner:
    """The aligner ``make`` builds, built on the pure-Python engine."""
    with engine.use("python"):
        return make()


def compiled_twin(make: Callable[[], Aligner]) -> Aligner:
    """The aligner ``make`` builds, built on the compiled engine."""
    with engine.use("c"):
        return make()


# -- xray: the candidates real sentences give ---------------------------------------------

#: (candidates, hyp_len, ref_len, stage weights, exact stages) of one segment.
Inputs = tuple[list[Match], int, int, list[float], frozenset[int]]


class _Recorder:
    """Stands in for a scorer's aligner: keeps what it is asked to align, then aligns."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.calls: list[Inputs] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def align(
        self,
        candidates: Sequence[Match],
        hyp_len: int,
        ref_len: int,
        weights: Sequence[float],
        exact_stages: frozenset[int],
    ) -> Alignment:
        self.calls.append((list(candidates), hyp_len, ref_len, list(weights), exact_stages))
        result: Alignment = self.inner.align(candidates, hyp_len, ref_len, weights, exact_stages)
        return result


_XRAY_INPUTS: dict[tuple[str, str, str], list[Inputs]] = {}


def xray_inputs(
    preset: str, system: str, xray: dict[str, list[str]], aligner: str = "optimal"
) -> list[Inputs]:
    """What the ``preset``'s stages give the aligner on every segment of xray ``system``
    (with ``aligner`` in place of the preset's, so that it sees every stage's candidates
    as that aligner would)."""
    key = (preset, system, aligner)
    if key not in _XRAY_INPUTS:
        if preset == "meteor-2005":
            require_wordnet()
        scorer = Scorer({"extends": preset, "language": "en", "aligner": {"name": aligner}})
        recorder = _Recorder(scorer.aligner)
        scorer.aligner = recorder  # type: ignore[assignment]
        scorer.corpus(xray[system], [[r] for r in xray["ref"]])
        assert len(recorder.calls) == len(xray[system]) == len(xray["ref"])
        _XRAY_INPUTS[key] = recorder.calls
    return _XRAY_INPUTS[key]


# -- Meteor 1.5 beam search ---------------------------------------------------------------


@needs_fast
@SETTINGS
@given(cases, st.sampled_from([1, 2, 3, 40]))
def test_meteor15_twins_agree(case: Case, beam: int) -> None:
    cands, hyp_len, ref_len, weights, exact = case
    got = compiled_twin(lambda: _meteor15(beam)).align(cands, hyp_len, ref_len, weights, exact)
    twin = python_twin(lambda: _meteor15(beam)).align(cands, hyp_len, ref_len, weights, exact)
    assert same(got, twin)
    assert oracle.is_alignment(got.matches)
    assert list(got.matches) == sorted(got.matches)
    assert got.chunks == count_chunks(got.matches)


@needs_fast
@settings(max_examples=300, deadline=None)
@given(word_cases(max_len=40), st.sampled_from([2, 5, 40]))
def test_meteor15_longer_sentences(case: Case, beam: int) -> None:
    """Longer inputs exercise beam truncation (the bounded heap) in the C version."""
    cands, hyp_len, ref_len, weights, exact = case
    got = compiled_twin(lambda: _meteor15(beam)).align(cands, hyp_len, ref_len, weights, exact)
    twin = python_twin(lambda: _meteor15(beam)).align(cands, hyp_len, ref_len, weights, exact)
    assert same(got, twin)


@pytest.mark.parametrize("which", ["c", "python"])
def test_meteor15_hand_examples(which: str) -> None:
    """The slip, the chunk count on close, and fixed candidates, on a sentence pair."""
    if which == "c" and FAST is None:
        pytest.skip("C extension meteorx.align._fast not built")
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
    with engine.use(which):
        got = Meteor15Aligner().align(cands, 5, 6, [1.0], frozenset({0}))
    assert got.matches == (
        Match(0, 1, 2, 1, 0),
        Match(1, 1, 3, 1, 0),
        Match(2, 1, 4, 1, 0),
        Match(4, 1, 0, 1, 0),
        Match(5, 1, 1, 1, 0),
    )
    assert got.chunks == 2


@needs_fast
@pytest.mark.parametrize("system", ["system1", "system2"])
def test_meteor15_twins_agree_on_xray(system: str, xray: dict[str, list[str]]) -> None:
    """Every xray segment, with the candidates of the ``li`` preset (whose aligner this
    is): the two beam searches choose the same matches."""
    inputs = xray_inputs("li", system, xray, aligner="meteor-1.5")
    assert sum(len(c) for c, *_ in inputs) > 10 * len(inputs)  # real candidate sets
    for n, (cands, hyp_len, ref_len, _, exact) in enumerate(inputs):
        if not cands:
            continue
        got = FAST.meteor15(cands, hyp_len, ref_len, exact, 40)
        assert got == m15.beam_search(cands, hyp_len, ref_len, exact, 40), f"segment {n + 1}"


# -- the oracle itself --------------------------------------------------------------------


def every_alignment_best(cands: Sequence[Match], weights: Sequence[int]) -> oracle.Value:
    """The best value over every subset of the candidates that is an alignment."""
    best = (0, 0, 0)
    for r in range(1, len(cands) + 1):
        for subset in itertools.combinations(cands, r):
            if oracle.is_alignment(subset):
                best = max(best, oracle.objective(subset, weights))
    return best


@settings(max_examples=1500, deadline=None)
@given(st.one_of(word_cases(max_len=5), span_cases(max_len=5, max_cands=9)))
def test_oracle_equals_every_subset(case: Case) -> None:
    """The oracle's shortcuts (independent parts, maximal alignments only, the exact
    walk) give what trying every subset of the candidates gives."""
    cands, _, _, weights, _ = case
    if len(cands) > 11:
        return
    iw = oracle.int_weights(weights)
    expected = every_alignment_best(cands, iw)
    assert oracle.best_value(cands, iw) == expected
    assert oracle.best_value(cands, iw, max_nodes=0) == expected  # the walk for every part
    assert oracle.brute_force(cands, iw, 10**7) == expected  # one part: no split
    assert oracle.exact_walk(cands, iw, 10**7) == expected


# -- exact search -------------------------------------------------------------------------


@needs_fast
@SETTINGS
@given(cases)
def test_optimal_twins_agree_and_are_optimal(case: Case) -> None:
    cands, hyp_len, ref_len, weights, exact = case
    got = compiled_twin(OptimalAligner).align(cands, hyp_len, ref_len, weights, exact)
    twin = python_twin(OptimalAligner).align(cands, hyp_len, ref_len, weights, exact)
    assert same(got, twin)
    assert got.optimal
    assert got.chunks == count_chunks(got.matches)
    assert list(got.matches) == sorted(got.matches)
    assert oracle.is_alignment(got.matches)
    iw = oracle.int_weights(weights)
    assert oracle.objective(got.matches, iw) == oracle.best_value(cands, iw)


@SETTINGS
@given(cases, st.integers(0, 6))
def test_optimal_state_bound_falls_back_to_the_same_greedy(case: Case, max_states: int) -> None:
    """With no room at all, both twins give up and run the same greedy fallback; with any
    bound they agree on when to give up, and on the result.

    The search functions are called directly: what ``OptimalAligner.align`` does with a
    result flagged ``optimal=False`` is its own business.
    """
    cands, hyp_len, ref_len, weights, _ = case
    iw = oracle.int_weights(weights)
    result = opt.optimal_search(cands, hyp_len, ref_len, iw, 0)
    assert result is not None
    chosen, chunks, optimal = result
    matches = [cands[i] for i in chosen]
    assert oracle.is_alignment(matches)
    assert chunks == count_chunks(matches)
    assert matches == sorted(matches, key=lambda m: m.ref_start)
    if optimal:  # nothing left to search: every candidate was fixed
        assert result == opt.optimal_search(cands, hyp_len, ref_len, iw, LARGE_STATES)
    if FAST is not None:
        assert FAST.optimal(cands, hyp_len, ref_len, iw, 0) == result
        assert FAST.optimal(cands, hyp_len, ref_len, iw, max_states) == opt.optimal_search(
            cands, hyp_len, ref_len, iw, max_states
        )


@pytest.mark.parametrize("which", ["c", "python"])
def test_optimal_greedy_fallback_hand_example(which: str) -> None:
    """Past the bound, each reference word takes the free candidate with the most
    coverage, then the one that extends the previous match, then the closest."""
    if which == "c" and FAST is None:
        pytest.skip("C extension meteorx.align._fast not built")
    search = FAST.optimal if which == "c" else opt.optimal_search
    # ref: a b a / hyp: a a b; weights: exact 1.0, stem 0.5
    cands = [Match(0, 1, 0, 1, 0), Match(0, 1, 1, 1, 0), Match(1, 1, 2, 1, 0)]
    cands += [Match(2, 1, 0, 1, 0), Match(2, 1, 1, 1, 0), Match(1, 1, 1, 1, 1)]
    result = search(cands, 3, 3, [1_000_000, 500_000], 0)
    assert result is not None
    chosen, chunks, optimal = result
    # ref 0: a@0 (closest of two equal); ref 1: b@2 (exact beats stem); ref 2: a@1
    assert [cands[i] for i in chosen] == [cands[0], cands[2], cands[4]]
    assert (chunks, optimal) == (3, False)


@needs_fast
@settings(max_examples=150, deadline=None)
@given(word_cases(max_len=16))
def test_optimal_longer_sentences(case: Case) -> None:
    """Longer inputs: several interacting components (the branch and bound path)."""
    cands, hyp_len, ref_len, weights, exact = case
    got = compiled_twin(OptimalAligner).align(cands, hyp_len, ref_len, weights, exact)
    twin = python_twin(OptimalAligner).align(cands, hyp_len, ref_len, weights, exact)
    assert same(got, twin)
    assert got.optimal
    iw = oracle.int_weights(weights)
    best = oracle.best_value(cands, iw)
    if best is not None:
        assert oracle.objective(got.matches, iw) == best


@pytest.mark.parametrize("system", ["system1", "system2"])
@pytest.mark.parametrize("preset", ["li", "meteor-2005"])
def test_optimal_twins_agree_and_are_optimal_on_xray(
    preset: str, system: str, xray: dict[str, list[str]]
) -> None:
    """Every xray segment: the Python and (when built) the compiled search return the
    same result, with the default state bound and with a large one; with the large one
    neither gives up; and the alignment reaches the oracle's optimum wherever the oracle
    settles the segment (all but a few sentences with dozens of repeated words)."""
    inputs = xray_inputs(preset, system, xray)
    settled = 0
    for n, (cands, hyp_len, ref_len, weights, _) in enumerate(inputs):
        where = f"{preset} {system} segment {n + 1}"
        iw = oracle.int_weights(weights)
        large = opt.optimal_search(cands, hyp_len, ref_len, iw, LARGE_STATES)
        default = opt.optimal_search(cands, hyp_len, ref_len, iw, DEFAULT_STATES)
        if FAST is not None:
            assert FAST.optimal(cands, hyp_len, ref_len, iw, LARGE_STATES) == large, where
            assert FAST.optimal(cands, hyp_len, ref_len, iw, DEFAULT_STATES) == default, where
        assert large is not None and large[2], where
        assert default is not None
        if default[2]:  # the bound only stops the same walk early
            assert default == large, where
        matches = [cands[i] for i in large[0]]
        assert oracle.is_alignment(matches), where
        assert large[1] == count_chunks(matches), where
        best = oracle.best_value(cands, iw, max_nodes=5_000, max_states=50_000)
        if best is not None:
            assert oracle.objective(matches, iw) == best, where
            settled += 1
    assert settled >= 0.99 * len(inputs)


# -- malformed and pathological input ----------------------------------------------------


@pytest.mark.parametrize("which", ["c", "python"])
@pytest.mark.parametrize("make", [Meteor15Aligner, OptimalAligner])
def test_malformed_candidates_raise_naming_the_candidate(
    which: str, make: Callable[[], Meteor15Aligner | OptimalAligner]
) -> None:
    if which == "c" and FAST is None:
        pytest.skip("C extension meteorx.align._fast not built")
    with engine.use(which):
        aligner = make()
    for bad, problem in [
        (Match(5, 1, 0, 1, 0), "runs past the reference's 2 words"),
        (Match(0, 1, 1, 2, 0), "runs past the hypothesis's 2 words"),
        (Match(1, 0, 0, 1, 0), "has a length below 1"),
        (Match(0, 1, -1, 1, 0), "has a negative start"),
    ]:
        with pytest.raises(IndexError, match=re.escape(f"{bad!r} {problem}")):
            aligner.align([Match(0, 1, 0, 1, 0), bad], 2, 2, [1.0], frozenset({0}))
    if isinstance(aligner, OptimalAligner):
        with pytest.raises(IndexError, match="which has no weight"):
            aligner.align([Match(0, 1, 0, 1, 3)], 2, 2, [1.0], frozenset({0}))


@needs_fast
@pytest.mark.parametrize("make", [Meteor15Aligner, OptimalAligner])
def test_repeats_of_one_word_are_fast(make: Callable[[], Meteor15Aligner | OptimalAligner]) -> None:
    aligner = compiled_twin(make)
    n = 500
    cands = [Match(j, 1, i, 1, 0) for j in range(n) for i in range(n)]  # 250,000
    start = time.perf_counter()
    result = aligner.align(cands, n, n, [1.0], frozenset({0}))
    elapsed = time.perf_counter() - start
    assert elapsed < 2.0  # ~0.1 s on a loaded two-core machine
    assert result.matches == tuple(Match(j, 1, j, 1, 0) for j in range(n))
    assert result.chunks == 1
