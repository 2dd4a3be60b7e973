"""The compiled key-stage pass gives exactly what the plain-Python path gives.

``KeyMatcher.prepare/candidates`` define a key stage; the built-in matchers override
them with faster equivalents; ``meteorx._links_and_counts`` finds the same links over
word ids and counts the statistics. Every layer is compared with the one it replaces.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Iterator
from dataclasses import astuple
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from meteorx import engine
from meteorx.languages import resolve_language
from meteorx.matchers import KeyMatcher
from meteorx.metric import Scorer
from meteorx.types import Match

links_and_counts = pytest.importorskip("meteorx._links_and_counts", reason="C extension not built")

ENGLISH = resolve_language("en")
WORDS = st.sampled_from(["a", "b", "c", "ab", "abc", "ba", "cab", "A", "B", "the", "of"])
SENTENCES = st.lists(WORDS, min_size=0, max_size=14)


def general_path(*args: Any, **kwargs: Any) -> Scorer:
    """The same configuration on the pure-Python engine (the definitions)."""
    with engine.use("python"):
        return Scorer(*args, **kwargs)


@pytest.fixture(autouse=True, scope="module")
def _compiled_engine() -> Iterator[None]:
    """Scorers built in these tests run the compiled code, whatever $METEORX_ENGINE says."""
    with engine.use("c"):
        yield


def same_result(a: Any, b: Any) -> None:
    assert a.stats == b.stats
    # same values and the same types (ints stay ints in JSON output)
    assert [type(v) for v in astuple(a.stats)] == [type(v) for v in astuple(b.stats)]
    assert a.alignment == b.alignment
    assert a.score == b.score
    # bit for bit, NaN included (NaN != NaN, their reprs are equal)
    assert repr(astuple(a.breakdown)) == repr(astuple(b.breakdown))
    assert all(type(m) is Match for m in a.alignment.matches)


class SetKeys(KeyMatcher):
    """A key matcher with several keys per word: its letters (vowels link nothing)."""

    name = "letters"

    def keys(self, word: str) -> Collection[Hashable]:
        return {c for c in word.lower() if c not in "aeiou"}


class Limited(SetKeys):
    name = "letters-limited"
    link_identical = True
    max_links = 3


def c_candidates(matcher: KeyMatcher, hyp: list[str], ref: list[str]) -> list[Match]:
    """``_links_and_counts.key_candidates`` for one matcher, words interned here."""
    words: dict[str, int] = {}
    key_ids: dict[Hashable, int] = {}
    table = links_and_counts.KeyTable()
    for word in [*hyp, *ref]:
        if word not in words:
            words[word] = len(words)
            table.add(sorted({key_ids.setdefault(k, len(key_ids)) for k in matcher.keys(word)}))
    plan = (matcher.link_identical, matcher.max_links)
    return links_and_counts.key_candidates(
        Match, [plan], [table], [words[w] for w in hyp], [words[w] for w in ref], [None], 1
    )


@pytest.mark.parametrize("cls", [SetKeys, Limited])
@given(hyp=SENTENCES, ref=SENTENCES)
@settings(max_examples=300, deadline=None)
def test_compiled_links_equal_the_definition(
    cls: type[KeyMatcher], hyp: list[str], ref: list[str]
) -> None:
    matcher = cls(cls.Options(), ENGLISH)
    expected = [
        Match(j, rl, i, hl, 0)
        for i, hl, j, rl in matcher.candidates(matcher.prepare(hyp), matcher.prepare(ref))
    ]
    assert c_candidates(matcher, hyp, ref) == expected


@pytest.mark.parametrize("name", ["exact", "stem"])
@given(hyp=SENTENCES, ref=SENTENCES)
@settings(max_examples=200, deadline=None)
def test_builtin_overrides_equal_the_definition(name: str, hyp: list[str], ref: list[str]) -> None:
    scorer = Scorer({"extends": "li", "language": "en"})
    matcher = next(m for m in scorer.matchers if m.name == name)
    assert isinstance(matcher, KeyMatcher)
    fast = list(matcher.candidates(matcher.prepare(hyp), matcher.prepare(ref)))
    plain = list(
        KeyMatcher.candidates(
            matcher, KeyMatcher.prepare(matcher, hyp), KeyMatcher.prepare(matcher, ref)
        )
    )
    assert [tuple(s) for s in fast] == [tuple(s) for s in plain]


@pytest.mark.wordnet  # meteor-2005 has a synonym stage
def test_many_repeats_keep_the_nearest_links() -> None:
    """Past MAX_LINKS_PER_WORD identical words, both paths keep the same nearest ones."""
    hyp = ["x"] * 130 + ["y"] * 3
    ref = ["y"] + ["x"] * 70 + ["xs"] * 20
    for config in ("li", "meteor-2005"):
        fast = Scorer(config, language="en")
        slow = general_path(config, language="en")
        same_result(fast.segment(hyp, [ref]), slow.segment(hyp, [ref]))


@pytest.mark.wordnet  # meteor-2005 has a synonym stage
@given(hyp=SENTENCES, ref=SENTENCES)
@settings(max_examples=200, deadline=None)
def test_scores_equal_the_general_path(hyp: list[str], ref: list[str]) -> None:
    for config in (
        {"extends": "li", "language": "en", "function_words": "builtin"},
        {"extends": "meteor-2005", "language": "en"},
    ):
        fast = Scorer(config)
        slow = general_path(config)
        same_result(fast.segment(hyp, [ref]), slow.segment(hyp, [ref]))


UNIT = st.floats(min_value=0.0, max_value=1.0)


@given(
    hyp=SENTENCES,
    ref=SENTENCES,
    alpha=UNIT,
    beta=st.floats(min_value=0.0, max_value=10.0),
    gamma=UNIT,
    delta=UNIT,
    weights=st.tuples(UNIT, UNIT),
    perfect=st.booleans(),
)
@settings(max_examples=300, deadline=None)
def test_compiled_formula_equals_compute(
    hyp: list[str],
    ref: list[str],
    alpha: float,
    beta: float,
    gamma: float,
    delta: float,
    weights: tuple[float, float],
    perfect: bool,
) -> None:
    """The C statistics (``alignment_stats``) are ``meteorx.counts.segment_stats``'s numbers for any
    parameters (both then go through ``meteorx.scoring.breakdown_of``)."""
    config = {
        "extends": "li",
        "language": "en",
        "function_words": "builtin",
        "alpha": alpha,
        "beta": beta,
        "gamma": gamma,
        "delta": delta,
        "perfect_match_rule": perfect,
        "stages": [
            {"matcher": "exact", "weight": weights[0]},
            {"matcher": "stem", "weight": weights[1]},
        ],
    }
    fast = Scorer(config)
    slow = general_path(config)
    same_result(fast.segment(hyp, [ref]), slow.segment(hyp, [ref]))


@given(hyp=SENTENCES, ref=SENTENCES)
@settings(max_examples=200, deadline=None)
def test_compiled_statistics_on_the_general_path(hyp: list[str], ref: list[str]) -> None:
    """Candidates in Python, statistics in C from function-word flags: same result."""
    config = {
        "extends": "meteor-1.5-en",
        "function_words": "builtin",
        "stages": [{"matcher": "exact"}, {"matcher": "stem", "weight": 0.6}],
    }
    flags = Scorer(config)
    flags._plans = None
    flags._reset_words()
    assert flags._alignment_stats is not None
    slow = general_path(config)
    same_result(flags.segment(hyp, [ref]), slow.segment(hyp, [ref]))


def test_word_table_rebuilds_between_segments(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the word limit the tables restart, and scores stay the same."""
    monkeypatch.setattr("meteorx.word_ids.MAX_WORDS", 5)
    scorer = Scorer("li", language="en")
    slow = general_path("li", language="en")
    pairs = [
        ("the cat sat on the mat", "a cat sat on a mat"),
        ("dogs ran home", "the dog runs"),
        ("one two three four five six", "six five four"),
    ] * 3
    for hyp, ref in pairs:
        same_result(scorer.segment(hyp, ref), slow.segment(hyp, ref))
    assert len(scorer._run().words) < 20


@pytest.mark.parametrize(
    "config",
    [
        {"extends": "li", "language": "en", "normalize": "lower"},
        {
            "extends": "meteor-1.5-en",
            "normalize": "lower",
            "function_words": "builtin",
            "stages": [{"matcher": "exact", "weight": 1.0}, {"matcher": "stem", "weight": 0.6}],
        },
        {"extends": "meteor-2005", "language": "en", "normalize": "lower"},
    ],
)
def test_xray_equals_the_general_path(config: dict[str, Any], xray: dict[str, list[str]]) -> None:
    fast = Scorer(config)
    slow = general_path(config)
    assert fast._plans is not None
    for system in ("system1", "system2"):
        a = fast.corpus(xray[system], xray["ref"])
        b = slow.corpus(xray[system], xray["ref"])
        assert a.stats == b.stats
        for x, y in zip(a.segments, b.segments, strict=True):
            same_result(x, y)


def test_full_english_equals_the_general_path(xray: dict[str, list[str]]) -> None:
    """Synonym (a key stage with several keys per word) and paraphrase (explicit)."""
    try:
        fast = Scorer("meteor-1.5-en", normalize="meteor")
    except Exception as error:  # missing WordNet or paraphrase table
        pytest.skip(f"meteor-1.5-en resources unavailable: {error}")
    slow = general_path("meteor-1.5-en", normalize="meteor")
    assert fast._plans == [(True, 48), (False, 48), (False, 0), None]
    for x, y in zip(xray["system1"][:800], xray["ref"][:800], strict=True):
        same_result(fast.segment(x, y), slow.segment(x, y))


def test_paused_gc_restores_the_collector() -> None:
    import gc

    from meteorx.metric import paused_gc

    assert gc.isenabled()
    with paused_gc():
        assert not gc.isenabled()
        junk = [[i] for i in range(1000)]
    assert gc.isenabled() and gc.get_freeze_count() == 0
    gc.disable()
    try:
        with paused_gc():
            pass
        assert not gc.isenabled()  # a disabled collector stays disabled
    finally:
        gc.enable()
    assert len(junk) == 1000


@pytest.mark.parametrize("name", ["exact", "stem"])
@given(words=st.lists(WORDS | st.text(max_size=6), max_size=20))
@settings(max_examples=200, deadline=None)
def test_single_keys_equal_keys(name: str, words: list[str]) -> None:
    """The batch form the scorer uses equals one ``keys`` call per word."""
    from meteorx.registry import get_registry

    cls = get_registry().matcher(name)
    matcher = cls(cls.Options(), ENGLISH)
    expected = [key for word in words for key in matcher.keys(word)]
    assert matcher.single_keys(words) == expected
    assert matcher.single_keys(words) == expected  # from the cache too


def test_compiled_records_name_every_field() -> None:
    """``alignment_stats`` builds Stats from its own field list: it must be the
    dataclass's (``_make_record`` leaves a missing field unset)."""
    from meteorx.stats import STATS_FIELDS

    assert links_and_counts._STATS_FIELDS == STATS_FIELDS


def test_key_table_reused_across_calls_and_growing_keys() -> None:
    """One table serves many segments while words and key ids keep arriving (its
    per-key scratch lists must not leak from one call into the next)."""
    matcher = SetKeys(SetKeys.Options(), ENGLISH)
    words: dict[str, int] = {}
    key_ids: dict[Hashable, int] = {}
    table = links_and_counts.KeyTable()
    sentences = [["ab", "cab"], ["xyz", "zy"], ["ab", "q"], ["pq", "cab", "ba"], ["zz"]]
    for hyp, ref in zip(sentences, sentences[1:] + sentences[:1], strict=True):
        for word in [*hyp, *ref]:
            if word not in words:
                words[word] = len(words)
                keys = {key_ids.setdefault(k, len(key_ids)) for k in matcher.keys(word)}
                table.add(sorted(keys))
        compiled = links_and_counts.key_candidates(
            Match, [(False, 0)], [table], [words[w] for w in hyp], [words[w] for w in ref],
            [None], 1,
        )  # fmt: skip
        assert compiled == c_candidates(matcher, hyp, ref)
        expected = [
            Match(j, 1, i, 1, 0)
            for j, r in enumerate(ref)
            for i, h in enumerate(hyp)
            if h != r and not matcher.keys(h).isdisjoint(matcher.keys(r))
        ]
        assert compiled == expected


def test_key_table_rejects_negative_key_ids() -> None:
    table = links_and_counts.KeyTable()
    with pytest.raises(ValueError, match="key ids"):
        table.add([-1])
    with pytest.raises(ValueError, match="key ids"):
        table.add_single([3, -2])


def test_count_stats_reads_matches_of_any_tuple_kind() -> None:
    """Matches, plain tuples and other sequences count the same; a wrong arity is an
    error, not a read past the end."""
    ids = [0, 1, 0]
    flags = bytearray(b"\x00\x01")
    expected = links_and_counts.count_stats([Match(0, 1, 0, 1, 0)], 1, ids, ids, flags)
    assert links_and_counts.count_stats([(0, 1, 0, 1, 0)], 1, ids, ids, flags) == expected
    assert links_and_counts.count_stats([[0, 1, 0, 1, 0]], 1, ids, ids, flags) == expected
    with pytest.raises(ValueError, match="5 fields"):
        links_and_counts.count_stats([(0, 1, 0, 1)], 1, ids, ids, flags)


@given(st.lists(st.lists(st.sampled_from(["x", "y", "z", 1, 2, (3, 4)]), max_size=6), max_size=8))
def test_add_keysets_equals_adding_sorted_key_ids(keysets: list[list[Hashable]]) -> None:
    """The batch form maps keys to ids in the same order (new keys get the next id) and
    stores each word's ids sorted and distinct, as the one-word form is given them."""
    one_by_one = links_and_counts.KeyTable()
    ids_one: dict[Hashable, int] = {"seen": 0}
    for keys in keysets:
        one_by_one.add(sorted({ids_one.setdefault(k, len(ids_one)) for k in keys}))
    batch = links_and_counts.KeyTable()
    ids_batch: dict[Hashable, int] = {"seen": 0}
    batch.add_keysets([iter(keys) for keys in keysets], ids_batch)
    assert ids_batch == ids_one
    assert len(batch) == len(one_by_one) == len(keysets)
    assert [batch.keys(w) for w in range(len(batch))] == [
        one_by_one.keys(w) for w in range(len(one_by_one))
    ]
