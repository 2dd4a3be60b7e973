"""Formulas, statistics and the Python API."""

from __future__ import annotations

import math
from dataclasses import astuple

import pytest
from hypothesis import given
from hypothesis import strategies as st

import meteorx
from meteorx.metric import Scorer
from meteorx.scoring import Parameters, breakdown_of, system_score
from meteorx.stats import Layout, Stats, sum_stats


@pytest.fixture(scope="module")
def li_en() -> Scorer:
    return Scorer("li", language="en", normalize="lower")


def test_identical_sentences_score_one_under_meteor15(li_en: Scorer) -> None:
    assert li_en.segment("The cat sat on the mat", "the cat sat on the mat").score == 1.0


def test_empty_input_scores_zero(li_en: Scorer) -> None:
    assert li_en.segment("", "the cat").score == 0.0
    assert li_en.segment("the cat", "").score == 0.0
    assert li_en.segment("", "").score == 0.0


def test_nothing_matched_scores_zero(li_en: Scorer) -> None:
    result = li_en.segment("a b c", "x y z")
    assert result.score == 0.0
    assert result.alignment.matches == ()


def test_stem_stage_links_inflections(li_en: Scorer) -> None:
    result = li_en.segment("the dogs jumped", "the dog jumps")
    stages = sorted(m.stage for m in result.alignment.matches)
    assert stages == [0, 1, 1]  # "the" exact, dogs/dog and jumped/jumps by stem


def test_several_references_keep_the_best(li_en: Scorer) -> None:
    hyp = "the cat sat on the mat"
    result = li_en.segment(hyp, ["a dog stood", "the cat sat on the mat", "cat"])
    assert result.ref_index == 1
    assert result.score == 1.0


def test_token_lists_are_accepted(li_en: Scorer) -> None:
    a = li_en.segment(["the", "cat"], ["the", "cat", "sat"])
    b = li_en.segment("the cat", "the cat sat")
    assert a.score == b.score
    c = li_en.segment(["the", "cat"], [["a", "dog"], ["the", "cat", "sat"]])
    assert c.score == b.score


def test_corpus_sums_statistics_not_scores(li_en: Scorer) -> None:
    hyps = ["the cat sat", "a completely different sentence here"]
    refs = ["the cat sat on the mat", "nothing in common"]
    result = li_en.corpus(hyps, refs)
    total = sum_stats(s.stats for s in result.segments)
    assert result.stats == total
    assert result.score == breakdown_of(total, li_en.params).score
    mean = sum(s.score for s in result.segments) / 2
    assert not math.isclose(result.score, mean)


def test_stats_round_trip_and_addition() -> None:
    a = Stats(3, 4, 1, 1, (2.0, 0.0), (2.0, 0.0), (1.0, 0.0), (1.0, 0.0), 2, 3, 3)
    b = Stats(1, 1, 0, 0, (1.0,), (1.0,), (0.0,), (0.0,), 1, 1, 1)
    c = a + b
    assert c.hyp_len == 4
    assert c.hyp_content_matches == (3.0, 0.0)
    assert Stats.from_list(c.to_list(), segments=2) == c


def test_layout_names_every_column_once() -> None:
    """The row layout is Meteor 1.5's -ssOut order: 4 counts, a block of 4 per stage, 3."""
    layout = Layout(2)
    record = Stats(3, 4, 1, 2, (5.0, 6.0), (7.0, 8.0), (9.0, 10.0), (11.0, 12.0), 13, 14, 15)
    row = layout.row(record)
    assert row == [3, 4, 1, 2, 5.0, 7.0, 9.0, 11.0, 6.0, 8.0, 10.0, 12.0, 13, 14, 15]
    assert row == record.to_list() and len(row) == layout.width == 15
    assert row[layout.column("ref_function_matches", 1)] == 12.0
    assert row[layout.column("chunks")] == 13
    assert layout.record(row) == record == Stats.from_list(row)
    assert Layout(3).row(record)[layout.width - 3 : layout.width + 1] == [0.0] * 4  # padded
    assert layout.names(["exact", "stem"])[4:6] == ["exact:hyp_content", "exact:ref_content"]
    with pytest.raises(ValueError, match="7 \\+ 4k numbers, got 9"):
        Layout.of_width(9)
    with pytest.raises(KeyError):
        layout.column("hyp_content_matches", 2)
    with pytest.raises(ValueError, match="3 stages, expected 2"):
        layout.row(Stats(1, 1, 0, 0, (1.0,) * 3, (1.0,) * 3, (0.0,) * 3, (0.0,) * 3, 1, 1, 1))


def test_system_score_rule() -> None:
    total = breakdown_of(
        Stats(2, 2, 0, 0, (1.0,), (1.0,), (0.0,), (0.0,), 1, 1, 1),
        Parameters(0.9, 3.0, 0.5, 0.5, (1.0,)),
    )
    assert system_score("statistics", total, [0.25, 0.5]) is total
    assert system_score("mean", total, [0.25, 0.5]).score == 0.375
    assert system_score("mean", total, lambda: (1.5, 3)).score == 0.5
    assert system_score("mean", total, []) is total  # no segments: the statistics' score
    assert system_score("mean", total, [0.25]).precision == total.precision


def test_nan_scores_zero() -> None:
    params = Parameters(0.9, 3.0, 0.5, 0.5, (1.0,), True)
    assert breakdown_of(Stats(), params).score == 0.0


def test_fmean_alpha_point_nine_is_the_2005_harmonic_mean() -> None:
    params = Parameters(0.9, 3.0, 0.5, 0.5, (1.0,), False)
    stats = Stats(6, 9, 0, 0, (5.0,), (5.0,), (0.0,), (0.0,), 2, 5, 5)
    b = breakdown_of(stats, params)
    p, r = 5 / 6, 5 / 9
    assert b.fmean == pytest.approx(10 * p * r / (r + 9 * p))
    assert b.penalty == pytest.approx(0.5 * (2 / 5) ** 3)


def test_module_level_score_function() -> None:
    result = meteorx.score(
        "the cat sat on the mat", "the cat sat on the mat", config="meteor-1.5-pt"
    )
    assert result.score == 1.0
    corpus = meteorx.corpus_score(["o gato"], ["o gato"], config="meteor-1.5-pt")
    assert corpus.score == 1.0


@pytest.mark.parametrize(
    "code",
    [
        "en",
        "pt",
        "es",
        "fr",
        "de",
        "it",
        "nl",
        "sv",
        "da",
        "no",
        "fi",
        "hu",
        "ro",
        "ru",
        "tr",
        "cs",
        "pl",
        "el",
        "ca",
        "eu",
        "et",
        "lt",
        "hi",
        "id",
        "ar",
    ],
)
def test_every_snowball_language_stems(code: str) -> None:
    scorer = Scorer("li", language=code)
    assert scorer.matchers[1].describe().startswith("stem.v1(snowball-")
    assert scorer.segment("a b", "a b").score == 1.0


def test_language_without_stemmer_gives_clear_error() -> None:
    from meteorx.errors import LanguageError

    with pytest.raises(LanguageError, match="no Snowball stemmer for Chinese"):
        Scorer("li", language="zh")


def test_signature_names_every_setting() -> None:
    scorer = Scorer("li", language="pt", normalize="lower")
    result = scorer.corpus(["o gato"], ["o gato"])
    assert result.signature == (
        "meteorx|preset:li|lang:pt|norm:lower|unicode:nfc|"
        "stages:exact=exact.v1:1,stem=stem.v1(snowball-portuguese):0.5|"
        "a:0.75|b:1.4|g:0.7|d:0.5|fw:meteor-1.5-portuguese|align:meteor-1.5(beam=40)|"
        "perfect:yes|refs:1|"
        f"version:{meteorx.__version__}"
    )


_COUNTS = st.one_of(st.integers(0, 10**6), st.floats(0, 1e6, allow_nan=False))
_STAGES = st.lists(st.floats(0, 1e3, allow_nan=False), max_size=4).map(tuple)
_RECORDS = st.builds(
    Stats, _COUNTS, _COUNTS, _COUNTS, _COUNTS, _STAGES, _STAGES, _STAGES, _STAGES,
    _COUNTS, _COUNTS, _COUNTS, st.integers(0, 5),
)  # fmt: skip


@given(st.lists(_RECORDS, max_size=12))
def test_sum_stats_equals_adding_the_records_bit_for_bit(records: list[Stats]) -> None:
    """sum_stats makes the float additions of ``+`` in the same order, for records of
    any stage count, ints or floats."""
    added = Stats(segments=0)
    for record in records:
        added = added + record
    total = sum_stats(iter(records))
    assert repr(total) == repr(added)
    assert [type(v) for v in astuple(total)] == [type(v) for v in astuple(added)]
