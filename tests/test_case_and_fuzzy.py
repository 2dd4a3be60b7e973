"""The ``case`` matcher (plugins/case.py, part of the meteorx preset) and the ``fuzzy``
matcher the agreement harness measured and did not keep (benchmarks/fuzzy_matcher.py)."""

from __future__ import annotations

import pytest

from benchmarks.fuzzy_matcher import FuzzyMatcher, FuzzyOptions
from meteorx.languages import resolve_language
from meteorx_plugins.case import CaseMatcher, CaseOptions


def _fuzzy(**options: object) -> FuzzyMatcher:
    return FuzzyMatcher(FuzzyOptions.model_validate(options), resolve_language("en"))


def _links(matcher: object, hyp: str, ref: str) -> list[tuple[int, int, int, int]]:
    prepare = matcher.prepare  # type: ignore[attr-defined]
    candidates = matcher.candidates  # type: ignore[attr-defined]
    return [tuple(s) for s in candidates(prepare(hyp.split()), prepare(ref.split()))]


@pytest.mark.parametrize("measure", ["indel", "levenshtein", "prefix"])
def test_fuzzy_links_near_misses_in_reference_then_hypothesis_order(measure: str) -> None:
    matcher = _fuzzy(threshold=0.6, measure=measure)
    # colour~color (indel .91, levenshtein .83, prefix .67), houses~housing (indel .62,
    # levenshtein .57, prefix .57); identical words and short words never link.
    links = _links(matcher, "the colour of houses is red", "the color of the housing")
    expected = {"indel": [(1, 1, 1, 1), (3, 1, 4, 1)]}
    assert links == expected.get(measure, [(1, 1, 1, 1)])


def test_fuzzy_similarity_and_threshold() -> None:
    matcher = _fuzzy(threshold=0.9)
    assert matcher.similarity("colour", "color") == pytest.approx(10 / 11)
    assert _links(matcher, "colour", "color") == [(0, 1, 0, 1)]
    assert _links(_fuzzy(threshold=0.95), "colour", "color") == []
    assert _links(_fuzzy(min_length=6), "colour", "color") == []


def test_fuzzy_ignore_case_leaves_case_variants_to_the_case_stage() -> None:
    matcher = _fuzzy(threshold=0.8, ignore_case=True)
    assert _links(matcher, "Colour House", "color house") == [(0, 1, 0, 1)]
    assert matcher.similarity("Colour", "COLOR") == pytest.approx(10 / 11)


def test_case_matcher_keys() -> None:
    english = resolve_language("en")
    plain = CaseMatcher(CaseOptions(), english)
    stems = CaseMatcher(CaseOptions(stem=True), english)
    assert plain.keys("The") == plain.keys("the") != plain.keys("then")
    assert stems.keys("Houses") == stems.keys("house")
    assert plain.single_keys(["A", "a"]) == ["a", "a"]
    assert plain.describe() == "case.v1" and stems.describe() == "case.v1(stem)"
