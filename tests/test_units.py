"""``units: characters``: precision and recall over the characters of matched words, as
the Meteor 1.5 jar's ``-ch`` counts them (xray parity with the jar is in
test_jar_parity.py and test_english_parity.py)."""

from __future__ import annotations

import pytest

from meteorx import engine
from meteorx.errors import ConfigError
from meteorx.metric import Scorer

CHARACTERS = {"extends": "li", "language": "en", "units": "characters"}


def test_counts_are_characters_and_fragmentation_stays_words() -> None:
    result = Scorer(CHARACTERS).segment("the cat sat on the mat", "the cat sat on a mat")
    stats = result.stats
    # hyp: the 3 + cat 3 + sat 3 + on 2 + the 3 + mat 3; ref: ... + a 1 + mat 3
    assert (stats.hyp_len, stats.ref_len) == (17, 15)
    # function words (the jar's English list): the, on, the / the, on, a
    assert (stats.hyp_function, stats.ref_function) == (8, 6)
    # exact links: the cat sat on | mat; the second "the" and "a" are left unmatched
    assert stats.hyp_content_matches == (9.0, 0.0) == stats.ref_content_matches
    assert stats.hyp_function_matches == (5.0, 0.0) == stats.ref_function_matches
    assert (stats.hyp_matched_words, stats.ref_matched_words, stats.chunks) == (5, 5, 2)
    words = Scorer({**CHARACTERS, "units": "words"}).segment(
        "the cat sat on the mat", "the cat sat on a mat"
    )
    assert words.alignment == result.alignment
    assert words.breakdown.fragmentation == result.breakdown.fragmentation
    assert words.score != result.score


def test_a_character_outside_the_bmp_counts_two_as_in_java() -> None:
    stats = Scorer(CHARACTERS).segment("ok \U0001f600", "ok \U0001f600").stats
    assert stats.hyp_len == stats.ref_len == 4


def test_both_engines_count_characters_alike() -> None:
    pair = ("the cats sat on the mats today", "a cat sat on the mat")
    with engine.use("c"):
        c = Scorer(CHARACTERS).segment(*pair)
    with engine.use("python"):
        python = Scorer(CHARACTERS).segment(*pair)
    assert repr(c) == repr(python)


def test_the_signature_says_characters_and_bad_units_are_refused() -> None:
    assert "|units:ch|" in Scorer(CHARACTERS).corpus(["a b"], ["a b"]).signature
    assert "units:" not in Scorer("li", language="en").corpus(["a b"], ["a b"]).signature
    with pytest.raises(ConfigError, match="units"):
        Scorer({**CHARACTERS, "units": "bytes"})
