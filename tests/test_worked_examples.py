"""The worked examples of the reference page (Wikipedia + the Portuguese explainer).

Each row cites its source; the expected numbers are the published ones, not outputs
of meteorx.
"""

from __future__ import annotations

import pytest

from meteorx.metric import Scorer

REF_EN = "the cat sat on the mat"
REF_PT = "o cupom vale para toda a loja até domingo"

# (hypothesis, reference, P, R, Fmean, chunks, penalty, score) — reference page table 1.
EXAMPLES = [
    ("on the mat sat the cat", REF_EN, 1, 1, 1, 3, 0.0625, 0.9375),  # Wikipedia
    ("the cat sat on the mat", REF_EN, 1, 1, 1, 1, 0.0023, 0.9977),  # Wikipedia
    ("the cat was sat on the mat", REF_EN, 0.8571, 1, 0.9836, 2, 0.0185, 0.9654),  # Wikipedia
    (
        "o cupom vale só até domingo",
        REF_PT,
        0.8333,
        0.5556,
        0.5747,
        2,
        0.032,
        0.5563,
    ),  # PT explainer
    (
        "até domingo o cupom vale para toda a loja",
        REF_PT,
        1,
        1,
        1,
        2,
        0.0055,
        0.9945,
    ),  # PT explainer
]


@pytest.fixture(scope="module")
def exact_2005() -> Scorer:
    return Scorer({"extends": "meteor-2005", "stages": [{"matcher": "exact"}]})


@pytest.mark.parametrize(("hyp", "ref", "p", "r", "fmean", "chunks", "pen", "score"), EXAMPLES)
def test_meteor_2005_exact(
    exact_2005: Scorer,
    hyp: str,
    ref: str,
    p: float,
    r: float,
    fmean: float,
    chunks: int,
    pen: float,
    score: float,
) -> None:
    result = exact_2005.segment(hyp, ref)
    assert round(result.precision, 4) == pytest.approx(p, abs=1e-4)
    assert round(result.recall, 4) == pytest.approx(r, abs=1e-4)
    assert round(result.breakdown.fmean, 4) == pytest.approx(fmean, abs=1e-4)
    assert result.alignment.chunks == chunks
    assert round(result.breakdown.penalty, 4) == pytest.approx(pen, abs=1e-4)
    assert round(result.score, 4) == score


# Values the Meteor 1.5 jar prints (reference page, "What the jar gives").
JAR_2005_PARAMS = [0.9375, 1.0, 0.9654, 0.5563, 0.9945]  # -l en -m exact -p '0.9 3.0 0.5 0.5'
JAR_PT = [0.7347, 1.0, 0.8157, 0.4884, 0.9148]  # -l pt


def test_jar_exact_with_2005_parameters() -> None:
    scorer = Scorer(
        {
            "extends": "meteor-1.5-en",
            "stages": [{"matcher": "exact"}],
            "alpha": 0.9,
            "beta": 3.0,
            "gamma": 0.5,
            "delta": 0.5,
        }
    )
    got = [round(scorer.segment(h, r).score, 4) for h, r, *_ in EXAMPLES]
    assert got == JAR_2005_PARAMS


def test_jar_portuguese_defaults() -> None:
    scorer = Scorer("meteor-1.5-pt")
    got = [round(scorer.segment(h, r).score, 4) for h, r, *_ in EXAMPLES]
    assert got == JAR_PT


def test_delta_zero_is_not_the_2005_metric() -> None:
    """δ = 0 counts only function words (reference page): no list means nothing counts."""
    scorer = Scorer({"extends": "meteor-2005", "stages": [{"matcher": "exact"}], "delta": 0.0})
    assert scorer.segment("the cat sat on the mat", REF_EN).score == 0.0
