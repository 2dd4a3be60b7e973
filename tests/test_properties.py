"""Property-based tests of the public API (hypothesis).

* every score is in [0, 1];
* a hypothesis identical to its reference scores exactly 1.0 under the Meteor 1.5
  presets (their perfect-match rule), whatever the words;
* adding a word that matches nothing never raises the score, on either side. This is
  a theorem for the ``optimal`` aligner when every stage weighs 1 (as in
  ``meteor-2005``): the feasible alignments are the same, coverage is unchanged and the
  fewest chunks cannot drop when a word is inserted. With unequal weights the
  optimum's tie-break on distance could in principle pick an alignment with more
  matched words (less fragmentation), so there it is checked as a claim. Meteor 1.5's
  beam search (``li``, ``meteor-1.5-*``) is a heuristic whose decisions shift with
  positions: it is *not* monotone, and neither is the jar; the counterexample is
  pinned in :func:`test_meteor15_is_not_monotone_like_the_jar`;
* nothing but :class:`~meteorx.errors.MeteorxError` is raised for any text.

Counterexamples found are reported, not hidden: see the ``xfail`` tests at the end.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import meteorx.api as api
from meteorx.errors import MeteorxError
from meteorx.metric import Scorer

CONFIGS: dict[str, tuple[Any, dict[str, Any]]] = {
    "li-en": ("li", {"language": "en"}),
    "meteor-1.5-pt": ("meteor-1.5-pt", {}),
    "meteor-1.5-en-norm": ("meteor-1.5-en", {"normalize": "meteor"}),
    "meteor-2005-exact-stem": (
        {
            "extends": "meteor-2005",
            "stages": [
                {"matcher": "exact", "weight": 1.0},
                {"matcher": "stem", "weight": 1.0, "algorithm": "porter"},
            ],
        },
        {},
    ),
    "meteor-2005": ("meteor-2005", {}),
    "nltk": ("nltk", {}),
}
METEOR15 = ["li-en", "meteor-1.5-pt", "meteor-1.5-en-norm"]

_SCORERS: dict[str, Scorer] = {}


def scorer_for(name: str) -> Scorer:
    if name not in _SCORERS:
        config, kwargs = CONFIGS[name]
        try:
            _SCORERS[name] = Scorer(config, **kwargs)
        except MeteorxError as error:  # e.g. WordNet not installed
            pytest.skip(f"{name}: {error}")
    return _SCORERS[name]


EN_WORDS = [
    "the",
    "a",
    "an",
    "cat",
    "cats",
    "sat",
    "sit",
    "sitting",
    "on",
    "mat",
    "mats",
    "dog",
    "dogs",
    "run",
    "running",
    "ran",
    "big",
    "large",
    "house",
    "home",
    "is",
    "are",
    "was",
    "be",
    "quick",
    "fast",
    "brown",
    "fox",
    "jumps",
    "jumped",
    "over",
    "lazy",
    ",",
    ".",
    "'s",
]
PT_WORDS = [
    "o",
    "a",
    "um",
    "gato",
    "gatos",
    "sentou",
    "sentar",
    "no",
    "tapete",
    "tapetes",
    "cão",
    "cães",
    "casa",
    "casas",
    "grande",
]
UNMATCHED = "qzxv"  # no stem, synonym or paraphrase relation to anything above

# Any Unicode that UTF-8 can encode, from every category (letters, marks, controls,
# emoji, RTL), so no lone surrogates: a known failure, pinned in tests/test_hostile.py.
ANY_TEXT = st.text(
    alphabet=st.characters(codec="utf-8"),
    max_size=60,
)
VOCAB_TEXT = st.lists(st.sampled_from(EN_WORDS + PT_WORDS), max_size=12).map(" ".join)
TEXT = st.one_of(ANY_TEXT, VOCAB_TEXT)

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_scores_are_in_range_and_errors_documented(name: str) -> None:
    scorer = scorer_for(name)

    @SETTINGS
    @given(hyp=TEXT, refs=st.lists(TEXT, min_size=1, max_size=3))
    def check(hyp: str, refs: list[str]) -> None:
        try:
            result = scorer.segment(hyp, refs)
        except MeteorxError:
            return
        assert 0.0 <= result.score <= 1.0
        assert 0.0 <= result.precision <= 1.0 and 0.0 <= result.recall <= 1.0

    check()


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_token_lists_in_range(name: str) -> None:
    scorer = scorer_for(name)
    token = st.one_of(st.sampled_from(EN_WORDS), st.text(min_size=0, max_size=5))

    @SETTINGS
    @given(hyp=st.lists(token, max_size=10), ref=st.lists(token, max_size=10))
    def check(hyp: list[str], ref: list[str]) -> None:
        try:
            result = scorer.segment(hyp, [ref])
        except MeteorxError:
            return
        assert 0.0 <= result.score <= 1.0

    check()


@pytest.mark.parametrize("name", METEOR15)
def test_identical_scores_one(name: str) -> None:
    scorer = scorer_for(name)

    @SETTINGS
    @given(text=TEXT)
    @example(text="the the the cat the")
    @example(text="a b a b a b")
    def check(text: str) -> None:
        result = scorer.segment(text, text)
        if result.hyp_tokens:
            assert result.score == 1.0
        else:
            assert result.score == 0.0

    check()


def _words_for(name: str) -> list[str]:
    return PT_WORDS if name == "meteor-1.5-pt" else EN_WORDS


def _insert(tokens: list[str], index: int) -> list[str]:
    k = index % (len(tokens) + 1)
    return [*tokens[:k], UNMATCHED, *tokens[k:]]


def _monotone_claim(name: str, hyp: list[str], ref: list[str], index: int, side: str) -> None:
    scorer = scorer_for(name)
    before = scorer.segment(hyp, [ref]).score
    if side == "hyp":
        after = scorer.segment(_insert(hyp, index), [ref]).score
    else:
        after = scorer.segment(hyp, [_insert(ref, index)]).score
    assert after <= before + 1e-12, (hyp, ref, index, side, before, after)


# The property is a theorem for the optimal aligner with equal stage weights
# (meteor-2005); with li's unequal weights it is checked as a claim (it held on 3,000
# random examples in fuzz/long_properties.py). It does NOT hold for Meteor 1.5's beam
# search, nor for delta != 0.5 with function words: see
# test_meteor15_is_not_monotone_like_the_jar.
CONFIGS["li-en-optimal"] = ({"extends": "li", "language": "en", "aligner": "optimal"}, {})
MONOTONE = ["meteor-2005-exact-stem", "li-en-optimal"]


@pytest.mark.parametrize("name", MONOTONE)
def test_an_unmatched_word_never_raises_the_score(name: str) -> None:
    words = st.lists(st.sampled_from(_words_for(name)), max_size=10)

    @settings(SETTINGS, max_examples=300)
    @given(hyp=words, ref=words, index=st.integers(0, 20), side=st.sampled_from(["hyp", "ref"]))
    def check(hyp: list[str], ref: list[str], index: int, side: str) -> None:
        _monotone_claim(name, hyp, ref, index, side)

    check()


JAR_NON_MONOTONE = {
    # name: (preset, hypothesis, reference, insert at, jar score before, jar score after)
    "pt-beam": (
        "meteor-1.5-pt",
        ["o", "o", "o", "a", "cães"],
        ["o", "cão", "a", "a", "cão"],
        0,
        0.12000000000000002,
        0.2622614202052071,
    ),
    "en-delta": (
        "meteor-1.5-en-norm",
        ["is", "jumps"],
        ["the", "the", "the", "are", "jumps", "jumps", "cat"],
        4,
        0.1558064133635053,
        0.1592232206741085,
    ),
}


@pytest.mark.parametrize("case", sorted(JAR_NON_MONOTONE))
def test_meteor15_is_not_monotone_like_the_jar(case: str) -> None:
    """Counterexamples found by fuzz/long_properties.py (shrunk by hypothesis).

    Inserting a word that matches nothing into the reference *raises* the score, and
    ``java -jar meteor-1.5.jar`` prints exactly the same two numbers (``-l pt``, and
    ``-l en -norm``), so this is the reference implementation's behaviour, reproduced
    on purpose. ``pt-beam``: without the extra word the beam search (integer coverage:
    a one-word stem link adds nothing) leaves "cães"/"cão" unlinked; shifted positions
    change the distance tie-breaks and the stem link is taken (the optimal aligner
    scores the pair 0.3016 -> 0.2623, lower as it should). ``en-delta``: the search
    maximises stage-weighted coverage but ignores δ, so the shift can swap a synonym
    link on a function word ("is"/"are") for a paraphrase link on a content word
    ("is"/"jumps"), which δ = 0.75 weighs more.
    """
    name, hyp, ref, index, before, after = JAR_NON_MONOTONE[case]
    scorer = scorer_for(name)
    assert scorer.segment(hyp, [ref]).score == pytest.approx(before, abs=1e-12)
    assert scorer.segment(hyp, [_insert(ref, index)]).score == pytest.approx(after, abs=1e-12)
    assert after > before
    if name == "meteor-1.5-pt":
        optimal = Scorer({"extends": "meteor-1.5-pt", "aligner": "optimal"})
        assert optimal.segment(hyp, [_insert(ref, index)]).score < optimal.segment(hyp, [ref]).score


def test_compute_raises_only_documented_errors() -> None:
    junk = st.recursive(
        st.one_of(st.none(), st.integers(), st.floats(), st.binary(max_size=5), ANY_TEXT),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(ANY_TEXT, inner, max_size=2),
        max_leaves=6,
    )

    @SETTINGS
    @given(predictions=junk, references=junk)
    def check(predictions: Any, references: Any) -> None:
        try:
            out = api.compute(predictions, references, config="li", language="en")
        except MeteorxError:
            return
        assert 0.0 <= out["meteor"] <= 1.0

    check()


@pytest.mark.parametrize(
    ("hyp", "refs"),
    [(None, "a"), ("a", None), (["a", 1], "a"), (1, "a"), ("a", [None]), (b"a", "a")],
)
def test_wrong_types_are_input_errors(hyp: Any, refs: Any) -> None:
    with pytest.raises(MeteorxError):
        scorer_for("li-en").segment(hyp, refs)
