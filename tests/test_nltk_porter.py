"""NLTK METEOR's Porter port (``meteorx_plugins.nltk_compat.porter``) against NLTK's stemmer.

NLTK METEOR's stem stage uses ``PorterStemmer()``; meteorx stems with a rule-for-rule
port of it (much faster, so cold runs stay fast). These tests compare the two on
generated words that hit every rule and quirk, and (slow) on every WordNet lemma and
every token of the example data.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import pytest

from meteorx.errors import ResourceError
from meteorx_plugins.nltk_compat import links, porter
from meteorx_plugins.wordnet.synsets import WordNetSynonyms

PorterStemmer = pytest.importorskip("nltk.stem.porter").PorterStemmer

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("METEORX_DATA", REPO.parent / "shared" / "data"))

# Every suffix a rule tests, plus NLTK's literal "*d" quirk.
_SUFFIX_TEXT = (
    "ational tional enci anci izer bli alli entli eli ousli ization ation ator alism "
    "iveness fulness ousness aliti iviti biliti fulli logi icate ative alize iciti ical "
    "ful ness al ance ence er ic able ible ant ement ment ent ion ou ism ate iti ous ive "
    "ize ed ing ies ied eed sses ss s y e ll *d *ded at bl iz"
)
SUFFIXES = _SUFFIX_TEXT.split()


def _port() -> Any:
    stemmer = PorterStemmer()
    pool = dict(stemmer.pool)
    return stemmer, (lambda word: porter._porter_nltk(word, pool))


def _mismatches(words: set[str]) -> list[tuple[str, str, str]]:
    stemmer, port = _port()
    return [(w, port(w), stemmer.stem(w)) for w in sorted(words) if port(w) != stemmer.stem(w)]


def test_port_equals_nltk_on_generated_words() -> None:
    rng = random.Random(11)
    letters = "aeiouyybcdlstmnrgzwx"
    words = set(porter._PORTER_PROBES)
    for _ in range(15_000):
        base = "".join(rng.choice(letters) for _ in range(rng.randint(0, 6)))
        word = base + rng.choice(SUFFIXES)
        if rng.random() < 0.3:
            word += rng.choice(SUFFIXES)
        words.add(word)
    for _ in range(5_000):  # anything: punctuation, upper case, non-ASCII, runs of y
        words.add("".join(rng.choice(letters + "*'-.ÉéİKY0") for _ in range(rng.randint(1, 10))))
    words.update(["", "y", "yy", "yyyyyyyy", "İİİ", "SKIES", "Dying", "ab*ded", "x*d"])
    assert not _mismatches(words)


def test_porter_stem_function_uses_the_checked_port() -> None:
    stem = porter.porter_stem_function()
    memo = stem.__self__  # type: ignore[attr-defined]
    assert not hasattr(memo.function, "__self__")  # not PorterStemmer.stem
    assert stem("generalizations") == PorterStemmer().stem("generalizations") == "gener"
    # Other modes are NLTK's own code.
    martin = porter.porter_stem_function("MARTIN_EXTENSIONS")
    assert isinstance(martin.__self__.function.__self__, PorterStemmer)  # type: ignore[attr-defined]


def test_port_is_not_used_when_nltk_disagrees() -> None:
    class Changed:
        def __init__(self) -> None:
            self.pool: dict[str, str] = {}

        def stem(self, word: str) -> str:
            return word  # a "different release" of the rules

    assert porter._porter_port(Changed()) is None
    assert porter._porter_port(PorterStemmer()) is not None


def test_a_default_porter_stemmer_argument_shares_the_fast_memo() -> None:
    stemmer = PorterStemmer()
    assert links._stem_function(stemmer) == porter.porter_stem_function()
    # Another mode, or a subclass, keeps its own stem method.
    other = PorterStemmer(PorterStemmer.ORIGINAL_ALGORITHM)
    assert links._stem_function(other) != porter.porter_stem_function()


@pytest.mark.slow
def test_port_equals_nltk_on_wordnet_and_the_example_data() -> None:
    try:
        wordnet = WordNetSynonyms()
        wordnet.load()
    except ResourceError:
        pytest.skip("WordNet 3.0 not found (apt-get install wordnet-base)")
    words: set[str] = set()
    for pos in "nvar":
        words.update(wordnet._index[pos])
        for forms in wordnet._exceptions[pos].items():
            words.add(forms[0])
            words.update(forms[1])
    examples = DATA / "meteor15-examples"
    if examples.is_dir():
        for file in examples.iterdir():
            if file.is_file():
                words.update(file.read_text(encoding="utf-8", errors="replace").split())
    words.update(w.lower() for w in list(words))
    assert len(words) > 150_000
    bad = _mismatches(words)
    assert not bad, f"{len(bad)} words stem differently, e.g. {bad[:10]}"
